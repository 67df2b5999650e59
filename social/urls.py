"""The following endpoints, included by canfield_site.urls under /api/."""

from django.urls import path

from social.api import views

app_name = "social"

urlpatterns = [
    path("players/<str:username>/follow/", views.FollowView.as_view(), name="follow"),
    path("me/following/", views.FollowingView.as_view(), name="following"),
    path("me/following/today/", views.FollowingTodayView.as_view(), name="following-today"),
]
