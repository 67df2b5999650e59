"""The ASGI application that Daphne serves: HTTP goes to Django, websockets to Channels."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canfield_site.settings")

# Set up Django (apps, models) before anything imports a consumer.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import re_path  # noqa: E402

from canfield_site.limits import BodyLimitMiddleware, limit_daphne_bodies  # noqa: E402
from canfield_site.websocket import no_route  # noqa: E402
from leaderboard import keeper  # noqa: E402
from leaderboard.routing import websocket_urlpatterns  # noqa: E402

if TYPE_CHECKING:
    from channels.routing import _ExtendedURLPattern

# Any other websocket path: closed with 4404, not a crash of the router.
websocket_routes: list[_ExtendedURLPattern | URLRouter] = [
    *websocket_urlpatterns,
    re_path(r"", no_route),  # type: ignore[arg-type,list-item]
]

# Request bodies over their limit: 413 before they are read, here and inside Daphne.
# The only websocket, the live board, is anyone's: no session or user is read for it (the
# session and auth middleware cost a database-thread hop per connection and a wrapper per frame,
# at thousands of sockets a process). A websocket that needs the user wraps its own route in
# channels.auth.AuthMiddlewareStack.
limit_daphne_bodies()
application = BodyLimitMiddleware(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            "websocket": AllowedHostsOriginValidator(URLRouter(websocket_routes)),
        }
    )
)

# Today's and tomorrow's deals kept dealt, in the solver pool, by a thread of this process
# (DEAL_AHEAD): no player waits for the solver, and no scheduler is needed.
keeper.start()
