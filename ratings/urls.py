"""The ratings endpoints, included by canfield_site.urls under /api/."""

from django.urls import path

from ratings.api import views

app_name = "ratings"

urlpatterns = [
    path("ratings/", views.RatingBoardView.as_view(), name="board"),
    path(
        "players/<str:username>/ratings/",
        views.RatingHistoryView.as_view(),
        name="history",
    ),
]
