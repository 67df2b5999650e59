"""Websocket routes of the leaderboard, served by canfield_site.asgi."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import re_path

from leaderboard.live.consumers import DailyBoardConsumer

if TYPE_CHECKING:
    from channels.routing import URLRouter, _ExtendedURLPattern

# Channels routes ASGI applications with Django's re_path, whose types know only views.
websocket_urlpatterns: list[_ExtendedURLPattern | URLRouter] = [
    re_path(r"^ws/daily/(?P<date>[^/]{1,40})/$", DailyBoardConsumer.as_asgi()),  # type: ignore[arg-type,list-item]
]
