"""Helpers for the live-board tests: websocket clients on the real ASGI application, over
whichever channel layer the settings configure (in memory, or Redis when REDIS_URL is set).

pytest-asyncio is not installed: a test is an ``async def`` wrapped by :func:`run`, which runs it
with asgiref's ``async_to_sync``. Database work inside goes through ``database_sync_to_async``.
The tests use ``transactional_db``: the games signals go out on commit, and a broadcast reads the
board from an executor thread. A change made before a test's first socket connects is published at
once, in the thread that made it (no loop serves yet); once one has connected, the test's loop is
the serving loop and its changes are flushed there, a window apart: a test waits for their frames.
When the test's loop ends, so do the flushes it still had scheduled: each task left is cancelled,
and one that does not end then fails the test with its stack (it would hold the loop's close for
ever).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import json
import time
from collections.abc import Callable, Coroutine
from typing import Any

from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import override_settings

from canfield_site.asgi import application
from tests.support import cancel_and_wait

HEADERS = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]


def run(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """``test`` on an event loop of its own, with a channel layer of its own: Channels makes its
    layers again when CHANNEL_LAYERS is set, and a layer keeps what it set up (its locks, its
    Redis connections) for the loop it first served, which an earlier test's end closed."""

    async def ended(*args: Any, **kwargs: Any) -> None:
        try:
            await test(*args, **kwargs)
        finally:
            await end_tasks()

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        with override_settings(CHANNEL_LAYERS={**settings.CHANNEL_LAYERS}):
            async_to_sync(ended)(*args, **kwargs)

    return wrapper


#: Seconds a cancelled task has to end.
END_WITHIN = 10.0


async def end_tasks() -> None:
    """Cancel every other task of the running loop, as the loop's close does, and wait for them
    to end. A task still running :data:`END_WITHIN` seconds later lost its cancellation: it is
    ended anyway, and the test fails with its stack."""
    current = asyncio.current_task()
    lost = await cancel_and_wait(
        (task for task in asyncio.all_tasks() if task is not current), END_WITHIN
    )
    assert not lost, "tasks that did not end when cancelled:\n" + "\n".join(lost.values())


def watcher(day: dt.date | str) -> WebsocketCommunicator:
    text = day if isinstance(day, str) else day.isoformat()
    return WebsocketCommunicator(application, f"/ws/daily/{text}/", headers=HEADERS)


async def connect(day: dt.date | str) -> tuple[WebsocketCommunicator, dict[str, Any]]:
    """A connected watcher and the snapshot it received."""
    client = watcher(day)
    connected, _ = await client.connect(timeout=5)
    assert connected
    return client, await client.receive_json_from(timeout=5)


async def next_frame(client: WebsocketCommunicator, timeout: float = 3) -> str:
    frame = await client.receive_from(timeout=timeout)
    assert isinstance(frame, str), "the board sends text frames"
    return frame


async def frames_for(client: WebsocketCommunicator, seconds: float) -> list[Any]:
    """Every frame received in the next ``seconds``."""
    frames = []
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        if await client.receive_nothing(timeout=min(left, 0.05), interval=0.01):
            continue
        frames.append(json.loads(await client.receive_from()))
    return frames


async def frames_until_quiet(client: WebsocketCommunicator, quiet: float = 1.0) -> list[Any]:
    """Every frame received until none comes for ``quiet`` seconds (the last change's update
    has gone out: a flush follows a change within a window)."""
    frames = []
    while not await client.receive_nothing(timeout=quiet, interval=0.01):
        frames.append(json.loads(await client.receive_from()))
    return frames
