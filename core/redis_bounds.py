"""Every wait on Redis is bounded, and a Redis that does not answer is skipped for a while.

Redis is never required to answer a request (the service degrades without it: no live push, rate
limits open, boards from the database), so no request may wait long for it:

- every connection has a connect and a read timeout of ``REDIS_CONNECT_TIMEOUT`` and
  ``REDIS_TIMEOUT`` seconds (250 ms by default), and no retry;
- a *breaker* per process: the first connection that fails or times out marks Redis down for
  ``REDIS_RETRY_SECONDS``, during which every connection attempt fails at once, without touching the
  network. A Redis that accepts connections and never answers (a black hole) then costs one
  request one timeout, not every request one. Once the time is up, the next command tries again.

:func:`pool_options` gives these to redis-py pools (the cache's, in its ``OPTIONS``, one per
process however many cache objects Django makes: :class:`SharedConnectionPool`; and
:func:`client`'s, which the live ranking, the health check and the rate limits use). The channel
layer's asyncio pool uses :class:`BoundedAsyncConnection` (``leaderboard.layers``): the same
timeouts, except that a blocking pop waits its own timeout plus the read timeout. A read that
times out there is not proof that Redis is away (the loop that reads may be the slow one):
:func:`answers` asks Redis itself, within a wait of the caller's.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any

import redis
from django.conf import settings
from redis.asyncio.connection import Connection as AsyncConnection
from redis.backoff import NoBackoff
from redis.connection import Connection, SSLConnection, UnixDomainSocketConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

log = logging.getLogger(__name__)

#: What a Redis that is away raises: redis-py's errors (socket errors below them).
FAILURES = (RedisConnectionError, RedisTimeoutError, OSError)


class Breaker:
    """Whether Redis was seen failing lately: :meth:`trip` marks it down for ``seconds``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._down_until = 0.0

    def is_open(self) -> bool:
        return time.monotonic() < self._down_until

    def trip(self, reason: object) -> None:
        with self._lock:
            was_open = self.is_open()
            self._down_until = time.monotonic() + float(settings.REDIS_RETRY_SECONDS)
        if not was_open:
            log.warning(
                "Redis does not answer (%s): skipped for %s s", reason, settings.REDIS_RETRY_SECONDS
            )

    def reset(self) -> None:
        with self._lock:
            self._down_until = 0.0


breaker = Breaker()


class _Breaking:
    """A redis-py connection that fails at once while the breaker is open, and opens it when it
    fails to connect, to send or to read."""

    def connect(self) -> None:
        if breaker.is_open():
            raise RedisConnectionError("Redis is marked down: not trying again yet")
        try:
            super().connect()  # type: ignore[misc]
        except FAILURES as exc:
            breaker.trip(exc)
            raise

    def send_packed_command(self, *args: Any, **kwargs: Any) -> None:
        try:
            super().send_packed_command(*args, **kwargs)  # type: ignore[misc]
        except FAILURES as exc:
            breaker.trip(exc)
            raise

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().read_response(*args, **kwargs)  # type: ignore[misc]
        except FAILURES as exc:
            breaker.trip(exc)
            raise


class BoundedConnection(_Breaking, Connection):
    pass


class BoundedSSLConnection(_Breaking, SSLConnection):
    pass


class BoundedUnixConnection(_Breaking, UnixDomainSocketConnection):
    pass


def connection_class(url: str) -> type[Connection] | type[UnixDomainSocketConnection]:
    if url.startswith("rediss://"):
        return BoundedSSLConnection
    if url.startswith("unix://"):
        return BoundedUnixConnection
    return BoundedConnection


def pool_options(url: str, connect_timeout: float, timeout: float) -> dict[str, Any]:
    """The options of a redis-py connection pool for ``url``: bounded waits, no retry, the
    breaker."""
    return {
        "socket_connect_timeout": connect_timeout,
        "socket_timeout": timeout,
        "retry": Retry(NoBackoff(), 0),
        "connection_class": connection_class(url),
    }


class SharedConnectionPool(redis.ConnectionPool):
    """The cache's pool (its ``OPTIONS["pool_class"]``): one per process for each URL and
    bounds. Django makes a cache object, and with it a client and a pool, for each thread and
    context that uses the cache — under ASGI each request's — so with redis-py's own pool each
    request opened a connection to Redis (a TCP handshake, ``HELLO``, and redis-py reading its own
    version from the installed packages' metadata); the connections of this one are reused. A
    connection that Redis closed meanwhile is found at checkout and made again (redis-py)."""

    _shared: dict[tuple[Any, ...], SharedConnectionPool] = {}
    _shared_lock = threading.Lock()

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> SharedConnectionPool:
        key = (
            url,
            *(kwargs.get(name) for name in ("socket_connect_timeout", "socket_timeout")),
            kwargs.get("connection_class"),
            kwargs.get("parser_class"),
        )
        with cls._shared_lock:
            pool = cls._shared.get(key)
            if pool is None:
                pool = cls._shared[key] = super().from_url(url, **kwargs)
            return pool


_clients: dict[str, redis.Redis] = {}
_clients_lock = threading.Lock()


def client(url: str | None = None) -> redis.Redis:
    """This process's client of ``url`` (``REDIS_URL`` by default): a pool of bounded
    connections."""
    url = str(settings.REDIS_URL) if url is None else url
    with _clients_lock:
        if url not in _clients:
            options = pool_options(url, settings.REDIS_CONNECT_TIMEOUT, settings.REDIS_TIMEOUT)
            pool = redis.ConnectionPool.from_url(url, **options)
            _clients[url] = redis.Redis(connection_pool=pool)
        return _clients[url]


def state() -> str:
    """``off`` without ``REDIS_URL``, ``down`` while the breaker is open or Redis fails to answer
    a ping, else ``up``."""
    if not settings.REDIS_URL:
        return "off"
    if breaker.is_open():
        return "down"
    try:
        client().ping()
    except FAILURES as exc:
        log.warning("health: Redis does not answer (%s)", exc)
        return "down"
    return "up"


def answers(url: str, within: float) -> bool:
    """Whether the Redis at ``url`` answers a PING within ``within`` seconds (twice that at most,
    connecting included), on a connection of its own: not a pool's, whose connections a busy
    caller may be reading late, nor the breaker's, which this answer neither reads nor trips.
    Blocking: the live board's hub asks it off its event loop before it takes a failed read of
    the channel layer for Redis away (``leaderboard.live.fanout``)."""
    connection = redis.Redis.from_url(
        url, socket_connect_timeout=within, socket_timeout=within, retry=Retry(NoBackoff(), 0)
    )
    try:
        return bool(connection.ping())
    except (*FAILURES, redis.RedisError):
        return False
    finally:
        connection.close()


class BoundedAsyncConnection(AsyncConnection):
    """The channel layer's connection: the read timeout applies to every command, but a
    blocking pop (``BZPOPMIN key timeout``, how channels_redis waits for a message) may take its
    own timeout before the read timeout starts to count. And a cancellation is never lost in a
    write (:meth:`send_packed_command`)."""

    _blocking: float | None = None

    async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        """redis-py writes under ``asyncio.wait_for``, which on Python 3.11 returns normally when
        its task is cancelled as the write finishes: the cancellation is lost, and a listener
        that waits for messages in a loop (channels_redis's ``receive``) then waits for ever —
        the event loop's close, which cancels each task once, with it. Such a cancellation is
        raised here, once the connection (whose reply nobody will read) is closed."""
        task = asyncio.current_task()
        asked = task.cancelling() if task is not None else 0
        await super().send_packed_command(command, check_health)
        if task is not None and task.cancelling() > asked:
            await self.disconnect(nowait=True)
            raise asyncio.CancelledError

    async def send_command(self, *args: Any, **kwargs: Any) -> None:
        name = str(args[0]).upper() if args else ""
        self._blocking = float(args[-1]) if name in {"BZPOPMIN", "BRPOP", "BLPOP"} else None
        await super().send_command(*args, **kwargs)

    async def read_response(
        self, disable_decoding: bool = False, timeout: float | None = None, **kwargs: Any
    ) -> Any:
        if timeout is None and self._blocking is not None and self.socket_timeout:
            timeout = self._blocking + self.socket_timeout
        return await super().read_response(disable_decoding, timeout, **kwargs)
