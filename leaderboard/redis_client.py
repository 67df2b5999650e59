"""The leaderboard's own Redis connection (``settings.REDIS_URL``): every command of the boards'
sorted sets and of the live board's stored snapshots goes through :func:`client`."""

from __future__ import annotations

import hashlib
import threading
from typing import Any

from django.conf import settings

_client_lock = threading.Lock()
_clients: dict[str, Any] = {}


def enabled() -> bool:
    return bool(getattr(settings, "REDIS_URL", None))


def client() -> Any:
    """This process's Redis client (a connection pool), for ``settings.REDIS_URL``."""
    import redis

    url = str(settings.REDIS_URL)
    with _client_lock:
        if url not in _clients:
            _clients[url] = redis.Redis.from_url(
                url, socket_timeout=5, socket_connect_timeout=2, health_check_interval=30
            )
        return _clients[url]


def database_tag() -> str:
    """A short name of the database the leaderboard's keys cache (its engine, host, port and
    name): a Redis that outlives a database, or serves several, never mixes their boards."""
    db = settings.DATABASES["default"]
    text = "|".join(str(db.get(k, "")) for k in ("ENGINE", "HOST", "PORT", "NAME"))
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def prefix() -> str:
    """The key prefix: the cache's (the tests give each run its own), then the database's tag."""
    return f"{settings.CACHES['default'].get('KEY_PREFIX') or 'canfield'}:board:{database_tag()}"
