"""One object per running event loop: a process's hubs (the live board's, the spectators'), each
made on the first ask from a coroutine of its loop and forgotten with the loop; and a bounded wait
that never loses a cancellation. The standard library alone."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class PerLoop(Generic[T]):
    """``make()``'s object for the running event loop (a test's loop, Daphne's one loop)."""

    def __init__(self, make: Callable[[], T]) -> None:
        self.make = make
        self.made: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, T] = (
            weakref.WeakKeyDictionary()
        )

    def get(self) -> T:
        loop = asyncio.get_running_loop()
        found = self.made.get(loop)
        if found is None:
            found = self.made[loop] = self.make()
        return found


async def within(awaitable: Awaitable[T], seconds: float) -> T:
    """``await awaitable``, for at most ``seconds`` (then ``TimeoutError``). Python 3.11's
    ``asyncio.wait_for`` returns the result when its task is cancelled as the awaitable finishes,
    losing the cancellation: a listener that receives in a loop then never ends, nor does the
    event loop's close. ``asyncio.timeout`` keeps it."""
    async with asyncio.timeout(seconds):
        return await awaitable
