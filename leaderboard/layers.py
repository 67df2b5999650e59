"""The Redis channel layer, its connections pooled the way a crowd needs them.

channels_redis gives each process a redis-py pool that refuses a command outright ("Too many
connections") once ``max_connections`` (100 by default) are in use: a thousand watchers
connecting within a second then fail, their sockets closed with 1011. This layer's pool is a
``BlockingConnectionPool`` instead: past ``max_connections`` a command waits up to ``timeout``
seconds for a free connection. Both come from the host's entry in ``CHANNEL_LAYERS`` (defaults
below). Its connections are ``core.redis_bounds.BoundedAsyncConnection``: every read
waits at most ``REDIS_TIMEOUT``, a blocking pop its own timeout more.
"""

from __future__ import annotations

from typing import Any

from channels_redis.core import RedisChannelLayer as BaseRedisChannelLayer  # type: ignore[import-untyped]
from redis.asyncio import BlockingConnectionPool

from core.redis_bounds import BoundedAsyncConnection

#: Connections per process and host, and seconds a command waits for one.
MAX_CONNECTIONS = 200
TIMEOUT = 20


class RedisChannelLayer(BaseRedisChannelLayer):  # type: ignore[misc]
    def create_pool(self, index: int) -> Any:
        host = dict(self.hosts[index])
        address = host.pop("address")
        host.setdefault("max_connections", MAX_CONNECTIONS)
        host.setdefault("timeout", TIMEOUT)
        if str(address).startswith("redis://"):
            host.setdefault("connection_class", BoundedAsyncConnection)
        return BlockingConnectionPool.from_url(address, **host)
