"""The ASGI application that Daphne serves: HTTP goes to Django, websockets to Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canfield_site.settings")

# Set up Django (apps, models) before anything imports a consumer.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from leaderboard.routing import websocket_urlpatterns  # noqa: E402

# The only websocket, the live board, is anyone's: no session or user is read for it (the
# session and auth middleware cost a database-thread hop per connection and a wrapper per frame,
# at thousands of sockets a process). A websocket that needs the user wraps its own route in
# channels.auth.AuthMiddlewareStack.
application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(URLRouter(websocket_urlpatterns)),
    }
)
