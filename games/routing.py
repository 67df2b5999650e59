"""Websocket routes of the games app, served by canfield_site.asgi."""

from __future__ import annotations

from typing import TYPE_CHECKING

from channels.auth import AuthMiddlewareStack
from django.urls import re_path

from games.api.consumers import GameConsumer

if TYPE_CHECKING:
    from channels.routing import URLRouter, _ExtendedURLPattern

# A game's socket needs its user: its route alone reads the session (Channels' session and auth
# middleware); the live board's reads none.
websocket_urlpatterns: list[_ExtendedURLPattern | URLRouter] = [
    re_path(
        r"^ws/games/(?P<game_id>[0-9]{1,18})/$",
        AuthMiddlewareStack(GameConsumer.as_asgi()),  # type: ignore[arg-type,list-item]
    ),
]
