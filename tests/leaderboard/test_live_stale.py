"""No live-board watcher left stale: a slow read of the channel layer is not Redis away.

The first three give the process's hub a Redis of its own (a private redis-server), reached
through a TCP proxy that can hold the replies on the connections open at a moment: a real Redis
whose replies reach the hub late, as they reach a process busy with a crowd. The channel layer's
reads are bounded at 0.25 s here (as the site bounded them all before a crowd showed that a busy
process reads late), so that a reply held for a second is a read that fails. The updates come
from "another process": a second channel layer that reaches the Redis directly, sending what the
broadcaster sends (``broadcast.update_message``: the day's next ``seq``, its snapshot stored).
The last one makes the stored snapshots' Redis a black hole.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from redis import Redis

from core import redis_bounds
from leaderboard.layers import RedisChannelLayer
from leaderboard.live import broadcast, fanout, snapshots
from tests.leaderboard.helpers import utc_today
from tests.leaderboard.live import connect, run
from tests.support import BlackHole, RedisServer

#: The channel layer's read bound in these tests (the site's default before a crowd showed it
#: too tight for a busy process): a reply held longer is a read that fails.
READ_BOUND = 0.25
#: How late the hub's connections get Redis's replies: past the read bound.
SLOW = 1.0


class SlowProxy:
    """A TCP proxy on 127.0.0.1 in front of a Redis that can hold the replies of the connections
    open at a moment (:meth:`hold`): each chunk that comes from Redis on one of them is passed on
    ``delay`` seconds after the proxy read it (the delay in force then). Redis itself stays
    quick — a new connection is not held — as when the process that reads is the slow one."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.delay = 0.0
        self.held: set[socket.socket] = set()
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(128)
        self.port = int(self.server.getsockname()[1])
        self.sockets: list[socket.socket] = []

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def hold(self, delay: float) -> None:
        """Hold the replies on the connections open now by ``delay`` seconds (0: no more)."""
        self.held = set(self.sockets[1::2])  # (each connection's Redis end)
        self.delay = delay

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
                redis = socket.create_connection(("127.0.0.1", self.upstream), timeout=5)
            except OSError:
                return
            redis.settimeout(None)
            self.sockets += [client, redis]
            for source, sink in ((client, redis), (redis, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if source in self.held and self.delay:
                    time.sleep(self.delay)
                sink.sendall(data)
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> SlowProxy:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.close()
        for end in self.sockets:
            end.close()


def layer_config(address: str, prefix: str) -> dict[str, Any]:
    hosts = [{"address": address, "socket_timeout": READ_BOUND, "socket_connect_timeout": 1.0}]
    return {
        "default": {
            "BACKEND": "leaderboard.layers.RedisChannelLayer",
            "CONFIG": {"hosts": hosts, "prefix": prefix},
        }
    }


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(tmp_path) as server:
        yield server


@pytest.fixture
def prefix() -> str:
    return f"stale-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def slow_redis(redis: RedisServer, settings: Any, prefix: str) -> Iterator[SlowProxy]:
    """The process's channel layer on the private Redis, through a proxy that can slow it."""
    with SlowProxy(redis.port) as proxy:
        settings.CHANNEL_LAYERS = layer_config(proxy.url, prefix)
        yield proxy


@pytest.fixture
def hub_warnings(caplog: pytest.LogCaptureFixture) -> Callable[[], list[str]]:
    """The hub's warnings so far (read while the test runs)."""
    caplog.set_level(logging.WARNING, logger=fanout.__name__)
    return lambda: [r.getMessage() for r in caplog.records if r.name == fanout.__name__]


async def send_update(direct: RedisChannelLayer, day: dt.date) -> int:
    """What the broadcaster of another process sends after a change: the day's next ``seq``,
    its snapshot stored, the update to the day's group (straight to Redis). Its ``seq``."""
    message = await database_sync_to_async(broadcast.update_message)(day)
    assert message is not None
    await direct.group_send(fanout.group_name(day), message)
    return int(message["seq"])


async def frame_at(client: WebsocketCommunicator, seq: int, timeout: float = 15) -> dict[str, Any]:
    """The first frame that brings the watcher to ``seq`` or beyond (an update, or a snapshot
    that the hub sent it to catch up); fails on a close or an error frame."""
    end = time.monotonic() + timeout
    while True:
        output = await client.receive_output(timeout=max(0.1, end - time.monotonic()))
        assert output["type"] == "websocket.send", output  # (not closed)
        frame = json.loads(output["text"])
        assert frame["type"] in {"update", "snapshot"}, frame
        if frame["seq"] >= seq:
            return dict(frame)


async def hub_waiting(redis: RedisServer) -> None:
    """Until the hub waits for its channel's next message (a blocking pop, on its connection)."""
    client = Redis.from_url(redis.url)
    await until(lambda: int(client.info("clients")["blocked_clients"]) > 0)
    client.close()


async def until(condition: Callable[[], bool], timeout: float = 15) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "waited in vain"
        await asyncio.sleep(0.05)


@pytest.mark.usefixtures("transactional_db")
@run
async def test_a_slow_read_closes_no_watcher_and_the_update_still_arrives(
    slow_redis: SlowProxy, redis: RedisServer, prefix: str, hub_warnings: Callable[[], list[str]]
) -> None:
    """The hub's connections get Redis's replies a second late — four times the read's bound,
    as a process busy with a crowd reads them — while an update arrives: the hub's read fails,
    Redis answers a PING, so the read is tried again; the watcher stays connected, gets that
    update, and the next one."""
    today = utc_today()
    direct = RedisChannelLayer(hosts=[{"address": redis.url}], prefix=prefix)
    client, snapshot = await connect(today)

    await hub_waiting(redis)
    slow_redis.hold(SLOW)
    first = await send_update(direct, today)
    await until(lambda: bool(hub_warnings()))  # a read failed, and the hub took it somehow
    slow_redis.hold(0.0)

    assert (await frame_at(client, first))["seq"] == first > snapshot["seq"]
    assert any("failed while Redis answers" in m for m in hub_warnings())
    second = await send_update(direct, today)
    update = await frame_at(client, second)
    assert (update["type"], update["seq"]) == ("update", second)
    assert not [m for m in hub_warnings() if "lost the channel layer" in m]
    await client.disconnect()
    await direct.close_pools()


@pytest.mark.usefixtures("transactional_db")
@run
async def test_an_update_lost_with_a_read_that_failed_reaches_the_watcher_as_a_snapshot(
    slow_redis: SlowProxy, redis: RedisServer, prefix: str, hub_warnings: Callable[[], list[str]]
) -> None:
    """Redis hands the hub an update in a reply that reaches it too late to be read (later
    than even the blocking pop's bound): the update is gone from Redis and from the hub's
    channel. Redis answers a PING, so the hub goes on, and its catch-up gives the watcher the
    day's stored snapshot at that update's ``seq``: it is not left on the board before it until
    the day's next update."""
    today = utc_today()
    direct = RedisChannelLayer(hosts=[{"address": redis.url}], prefix=prefix)
    client, snapshot = await connect(today)

    await hub_waiting(redis)
    slow_redis.hold(7.0)  # (past 5 s of blocking pop + the read's bound)
    seq = await send_update(direct, today)

    frame = await frame_at(client, seq)
    assert (frame["type"], frame["seq"]) == ("snapshot", seq)
    assert seq > snapshot["seq"]
    assert any("tried again" in m for m in hub_warnings())
    await client.disconnect()
    await direct.close_pools()


@pytest.mark.usefixtures("transactional_db")
@run
async def test_redis_away_pauses_watchers_and_a_watcher_that_reconnects_is_up_to_date(
    redis: RedisServer, settings: Any, prefix: str, hub_warnings: Callable[[], list[str]]
) -> None:
    """Redis killed: the hub's read fails and Redis answers no PING — the watcher is told
    ``unavailable`` and closed with 4503. Redis back (empty): a watcher that reconnects gets the
    board at the day's current ``seq``, then the next update (the hub joined the day's group
    again)."""
    settings.CHANNEL_LAYERS = layer_config(redis.url, prefix)
    today = utc_today()
    client, _ = await connect(today)

    redis.kill()
    error = json.loads((await client.receive_output(timeout=15))["text"])
    closed = await client.receive_output(timeout=5)

    assert (error["type"], error["code"]) == ("error", "unavailable")
    assert closed == {"type": "websocket.close", "code": 4503, "reason": "unavailable"}
    assert any("does not answer a PING" in m for m in hub_warnings())

    redis.start()
    direct = RedisChannelLayer(hosts=[{"address": redis.url}], prefix=prefix)
    missed = await database_sync_to_async(broadcast.update_message)(today)  # (nobody heard it)
    assert missed is not None
    again, snapshot = await connect(today)
    assert snapshot["seq"] == missed["seq"]

    seq = await send_update(direct, today)
    update = await frame_at(again, seq)
    assert (update["type"], update["seq"]) == ("update", missed["seq"] + 1)
    await again.disconnect()
    await direct.close_pools()


@pytest.mark.usefixtures("transactional_db")
@run
async def test_a_snapshot_that_redis_does_not_give_in_time_is_built_and_refuses_nobody(
    settings: Any,
) -> None:
    """The Redis of the stored snapshots does not answer (a black hole): a watcher that connects
    gets the board built from the database at the day's current ``seq``, not a 4503."""
    today = utc_today()
    seq = await database_sync_to_async(snapshots.current_seq)(today)
    with BlackHole() as hole:
        settings.REDIS_URL = hole.url
        try:
            client, snapshot = await connect(today)
        finally:
            redis_bounds.breaker.reset()

    assert (snapshot["type"], snapshot["seq"]) == ("snapshot", seq)
    await client.disconnect()
