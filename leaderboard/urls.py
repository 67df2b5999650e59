"""The daily deal and leaderboard endpoints, included by canfield_site.urls under /api/."""

from django.urls import path

from leaderboard.api import milestones_views, standings, views, watch

app_name = "leaderboard"

urlpatterns = [
    path("daily/", views.DailyView.as_view(), name="daily"),
    path("daily/days/", views.DaysView.as_view(), name="days"),
    path("daily/<str:date>/board/", views.BoardView.as_view(), name="board"),
    path("daily/<str:date>/solution/", views.SolutionView.as_view(), name="solution"),
    path("daily/<str:date>/picture/", views.PictureView.as_view(), name="picture"),
    path("players/<str:username>/", views.PlayerView.as_view(), name="player"),
    path("watch/", watch.WatchView.as_view(), name="watch"),
    path("standings/", standings.StandingsView.as_view(), name="standings"),
    path(
        "players/<str:username>/milestones/",
        milestones_views.MilestonesView.as_view(),
        name="milestones",
    ),
]
