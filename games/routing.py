"""Websocket routes of the games app, served by canfield_site.asgi."""

from __future__ import annotations

from typing import TYPE_CHECKING

from channels.auth import AuthMiddlewareStack
from django.urls import re_path

from games.api.consumers import GameConsumer
from games.api.watch_consumer import WatchConsumer

if TYPE_CHECKING:
    from channels.routing import URLRouter, _ExtendedURLPattern

# A game's sockets need their user: their routes alone read the session (Channels' session and
# auth middleware); the live board's reads none. /ws/games/<id>/ is its player's, to play it;
# /ws/games/<id>/watch/ its spectators', who may be visitors (games.api.watch_consumer).
websocket_urlpatterns: list[_ExtendedURLPattern | URLRouter] = [
    re_path(
        r"^ws/games/(?P<game_id>[0-9]{1,18})/$",
        AuthMiddlewareStack(GameConsumer.as_asgi()),  # type: ignore[arg-type,list-item]
    ),
    re_path(
        r"^ws/games/(?P<game_id>[0-9]{1,18})/watch/$",
        AuthMiddlewareStack(WatchConsumer.as_asgi()),  # type: ignore[arg-type,list-item]
    ),
]
