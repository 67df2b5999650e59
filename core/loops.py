"""One object per running event loop: a process's hubs (the live board's, the spectators'), each
made on the first ask from a coroutine of its loop and forgotten with the loop. The standard
library alone."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
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
