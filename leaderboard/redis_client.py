"""The leaderboard's own Redis connection (``settings.REDIS_URL``, never the cache's, which may
evict): every command of the boards' sorted sets and of the live board's stored snapshots goes
through :func:`client`, whose waits are bounded (``core.redis_bounds``)."""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings

from core.redis_bounds import client as bounded_client


def enabled() -> bool:
    return bool(getattr(settings, "REDIS_URL", None))


def client() -> Any:
    """This process's Redis client (a connection pool of bounded waits, for
    ``settings.REDIS_URL``: ``core.redis_bounds``)."""
    return bounded_client()


def database_tag() -> str:
    """A short name of the database the leaderboard's keys cache (its engine, host, port and
    name): a Redis that outlives a database, or serves several, never mixes their boards."""
    db = settings.DATABASES["default"]
    text = "|".join(str(db.get(k, "")) for k in ("ENGINE", "HOST", "PORT", "NAME"))
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def prefix() -> str:
    """The key prefix: the cache's (the tests give each run its own), then the database's tag."""
    return f"{settings.CACHES['default'].get('KEY_PREFIX') or 'canfield'}:board:{database_tag()}"
