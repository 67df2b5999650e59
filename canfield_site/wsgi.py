"""WSGI entry point, for tools that want one; the service itself runs on ASGI (asgi.py)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canfield_site.settings")

application = get_wsgi_application()
