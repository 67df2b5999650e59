"""Websocket routes of the leaderboard, served by canfield_site.asgi."""

from django.urls import re_path

from leaderboard.consumers import DailyBoardConsumer

websocket_urlpatterns = [
    re_path(r"^ws/daily/(?P<date>[^/]{1,40})/$", DailyBoardConsumer.as_asgi()),
]
