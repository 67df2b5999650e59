"""Every wait on Redis is bounded, and a Redis that hangs is left alone for a while: after one
timeout, nothing touches the network until REDIS_RETRY_SECONDS have passed."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
import redis
from asgiref.sync import async_to_sync
from django.core.cache.backends.redis import RedisCache

from core import redis_bounds
from tests.support import BlackHole, RedisServer, cancel_and_wait


@pytest.fixture
def hole(settings):
    settings.REDIS_RETRY_SECONDS = 0.5
    redis_bounds.breaker.reset()
    with BlackHole() as hole:
        settings.REDIS_URL = hole.url
        yield hole
    redis_bounds.breaker.reset()


def test_a_hanging_redis_times_out_once_then_is_skipped_until_it_is_tried_again(hole):
    client = redis_bounds.client()

    with pytest.raises(redis.TimeoutError):
        client.get("a key")  # one read that times out (REDIS_TIMEOUT)
    connections = len(hole.accepted)
    for _ in range(50):
        with pytest.raises(redis.ConnectionError, match="marked down"):
            client.get("a key")
    assert redis_bounds.state() == "down"

    assert len(hole.accepted) == connections  # skipped: no new connection, no new wait
    time.sleep(0.6)  # REDIS_RETRY_SECONDS later: tried again (and timed out again)
    with pytest.raises(redis.TimeoutError):
        client.get("a key")
    assert len(hole.accepted) == connections + 1


def test_the_cache_waits_as_little_on_a_hanging_redis(hole, settings):
    cache = RedisCache(hole.url, {"OPTIONS": redis_bounds.pool_options(hole.url, 0.25, 0.25)})

    with pytest.raises(redis.TimeoutError):
        cache.get("a-key")
    with pytest.raises(redis.ConnectionError, match="marked down"):
        cache.set("a-key", 1)
    assert len(hole.accepted) == 1


def cache_object(url: str, shared: bool = True) -> RedisCache:
    """A cache object as Django makes one for each thread or request that uses the cache, with
    the site's options (``settings.CACHES``)."""
    options = redis_bounds.pool_options(url, 0.25, 0.25)
    if shared:
        options["pool_class"] = redis_bounds.SharedConnectionPool
    return RedisCache(url, {"OPTIONS": options})


def connections_received(url: str) -> int:
    return int(redis.Redis.from_url(url).info("stats")["total_connections_received"])


def test_the_cache_objects_of_a_process_share_one_pool_of_connections(tmp_path):
    """Django makes a cache object per request under ASGI: with redis-py's own pool each one
    connected to Redis again; the site's pool is shared, and survives a restart of Redis."""
    redis_bounds.breaker.reset()
    with RedisServer(tmp_path) as server:
        before = connections_received(server.url)
        for i in range(10):
            cache = cache_object(server.url)
            cache.set(f"shared-{i}", i)
            assert cache.get(f"shared-{i}") == i
        shared = connections_received(server.url) - before - 1  # (less the count's own)

        before = connections_received(server.url)
        for i in range(10):
            cache_object(server.url, shared=False).set(f"own-{i}", i)
        own = connections_received(server.url) - before - 1

        server.kill()
        server.start()
        cache = cache_object(server.url)
        cache.set("after-restart", 1)  # (the pooled connection Redis closed: made again)
        assert cache.get("after-restart") == 1

    assert shared == 1
    assert own == 10
    assert redis_bounds.state() != "down"


@pytest.fixture(scope="module")
def own_redis():
    with RedisServer() as server:
        yield server


@pytest.mark.parametrize("steps", range(8))
def test_a_write_cancelled_as_it_finishes_still_ends_its_task_and_leaves_no_reply_behind(
    own_redis, steps
):
    """redis-py writes under ``asyncio.wait_for``, which on Python 3.11 loses a cancellation that
    comes as the write finishes: the channel layer's listener then received for ever. The task is
    cancelled at every step around that moment; it ends, and the next command reads its own
    reply, not the cancelled one's."""

    async def scenario() -> tuple[bool, Any]:
        connection = redis_bounds.BoundedAsyncConnection(
            host="127.0.0.1", port=own_redis.port, socket_timeout=2.0
        )
        await connection.connect()

        async def command_then_wait() -> None:
            await connection.send_packed_command(connection.pack_command("ECHO", "cancelled"))
            await connection.read_response()
            await asyncio.sleep(60)

        task = asyncio.get_running_loop().create_task(command_then_wait())
        for _ in range(steps):
            await asyncio.sleep(0)
        lost = await cancel_and_wait({task}, 1)
        ended = not lost and task.cancelled()
        if not ended:
            await connection.disconnect()  # (the reply of the cancelled ECHO is unread)
        await connection.send_command("ECHO", "next")
        reply = await connection.read_response()
        await connection.disconnect()
        return ended, reply

    assert async_to_sync(scenario)() == (True, b"next")
