"""The ASGI application that Daphne serves (``python -m canfield_site.serve``, which gives Daphne
the site's limits): HTTP goes to Django, websockets to Channels."""

from __future__ import annotations

import asyncio
import os
import sys
from typing import TYPE_CHECKING, cast

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canfield_site.settings")

# Set up Django (apps, models) before anything imports a consumer.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import re_path  # noqa: E402

from core.limits import BodyLimitMiddleware  # noqa: E402
from core.socket_limits import SocketLimits  # noqa: E402
from core.websocket import no_route  # noqa: E402
from games import pool, routing  # noqa: E402
from leaderboard.live.broadcast import ServingLoop  # noqa: E402
from leaderboard.routing import websocket_urlpatterns  # noqa: E402

if TYPE_CHECKING:
    from channels.routing import _ExtendedURLPattern

# Any other websocket path: closed with 4404, not a crash of the router.
websocket_routes: list[_ExtendedURLPattern | URLRouter] = [
    *websocket_urlpatterns,
    *routing.websocket_urlpatterns,
    re_path(r"", no_route),  # type: ignore[arg-type,list-item]
]

# Request bodies over their limit: 413 before they are read (core.limits).
# The live board is anyone's: no session or user is read for it (the session and auth
# middleware cost a database-thread hop per connection and a wrapper per frame, at thousands of
# sockets a process). A websocket that needs the user wraps its own route in
# channels.auth.AuthMiddlewareStack: a game's socket (games.routing), on which its owner plays.
# Every websocket, whatever its route, within SocketLimits: its messages' size and rate, its
# unread output, its network's sockets, its language (core.socket_limits; Daphne's own options
# for frames and pings come from canfield_site.serve).
# Outermost, ServingLoop: the loop the connections run on is the one the live board's
# broadcasts of this process run on (leaderboard.live.broadcast); the process starts none.
websocket_limits = SocketLimits(AllowedHostsOriginValidator(URLRouter(websocket_routes)))
application = ServingLoop(
    BodyLimitMiddleware(
        ProtocolTypeRouter(
            {
                "http": django_asgi_app,
                "websocket": websocket_limits,
            }
        )
    )
)


def _end_the_searches_first() -> None:
    """Daphne stops at SIGTERM at once, its event loop with it: a request whose thread is still
    at work (a hint waiting for its search) then never gets back to the loop, and holds the
    process's exit for good (measured: a Daphne stopped during a hint never exited). So, served
    by Daphne (a Twisted reactor, already installed when this module is imported), its stop
    first ends the solver pool — a search in flight answers 503 busy — and keeps the loop running
    until those requests have answered (``games.pool.stopped``): Twisted's public shutdown
    trigger, which waits for the Deferred it is given."""
    if "twisted.internet.reactor" not in sys.modules:  # (not served by Daphne)
        return
    from twisted.internet import defer
    from twisted.internet import reactor as installed
    from twisted.internet.base import ReactorBase

    def stop() -> defer.Deferred[None]:
        return defer.Deferred.fromFuture(asyncio.ensure_future(pool.stopped()))

    cast(ReactorBase, installed).addSystemEventTrigger("before", "shutdown", stop)


_end_the_searches_first()
