"""The leagues endpoints, included by canfield_site.urls under /api/."""

from django.urls import path

from leagues.api import views

app_name = "leagues"

urlpatterns = [
    path("leagues/", views.WeeksView.as_view(), name="weeks"),
    path("leagues/current/", views.CurrentWeekView.as_view(), name="current"),
    path("leagues/<str:week>/", views.WeekView.as_view(), name="week"),
]
