"""Every wait on Redis is bounded, and a Redis that hangs is left alone for a while: after one
timeout, nothing touches the network until REDIS_RETRY_SECONDS have passed."""

from __future__ import annotations

import time

import pytest
import redis
from django.core.cache.backends.redis import RedisCache

from canfield_site import redis_bounds
from tests.support import BlackHole


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
