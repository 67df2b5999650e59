"""core.loops: a bounded wait that never loses a cancellation, and the hubs' listeners built on it.

Python 3.11's ``asyncio.wait_for`` returns the awaited result when its task is cancelled at the
moment the awaitable finishes: the cancellation is lost. A hub's listener receives in a loop, so a
lost cancellation left it receiving for ever, and the event loop's close (which cancels each task
once and waits for it) never returned. These tests cancel at every step around that moment.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.test import override_settings

from core.loops import within
from games import watch_hub
from leaderboard.live import fanout
from tests.support import cancel_and_wait

IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

#: Enough steps of the loop to pass the moment the receive finishes, whichever step it is.
STEPS = range(8)


async def ended_when_cancelled(task: asyncio.Task[Any]) -> bool:
    """Cancel ``task`` and say whether it ended cancelled within a second (one that lost the
    cancellation is ended anyway, so that the test's loop can close)."""
    lost = await cancel_and_wait({task}, 1)
    return not lost and task.cancelled()


def test_within_gives_the_result_and_times_out():
    async def scenario() -> tuple[int, bool]:
        async def late() -> int:
            await asyncio.sleep(5)
            return 2

        async def soon() -> int:
            await asyncio.sleep(0)
            return 1

        result = await within(soon(), 1)
        try:
            await within(late(), 0.05)
        except TimeoutError:
            return result, True
        return result, False

    assert async_to_sync(scenario)() == (1, True)


@pytest.mark.parametrize("steps", STEPS)
def test_within_keeps_a_cancellation_that_comes_as_the_awaitable_finishes(steps):
    async def scenario() -> bool:
        queue: asyncio.Queue[int] = asyncio.Queue()
        queue.put_nowait(1)

        async def receiving() -> None:
            while True:  # as a listener does
                await within(queue.get(), 60)

        task = asyncio.get_running_loop().create_task(receiving())
        for _ in range(steps):
            await asyncio.sleep(0)
        return await ended_when_cancelled(task)

    assert async_to_sync(scenario)()


@override_settings(CHANNEL_LAYERS=IN_MEMORY)
@pytest.mark.parametrize("hub", [fanout.Hub, watch_hub.Hub], ids=["board", "watch"])
@pytest.mark.parametrize("steps", STEPS)
def test_a_hubs_listener_cancelled_as_a_message_arrives_ends(hub: Callable[[], Any], steps):
    async def scenario() -> bool:
        listening = hub()
        layer = get_channel_layer()
        assert layer is not None and listening.layer is layer
        listening.channel = await layer.new_channel()
        await layer.send(listening.channel, {"type": "unknown"})
        task = asyncio.get_running_loop().create_task(listening.listen())
        for _ in range(steps):
            await asyncio.sleep(0)
        return await ended_when_cancelled(task)

    assert async_to_sync(scenario)()
