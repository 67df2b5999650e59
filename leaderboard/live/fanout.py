"""Cheap fan-out: one listener per process, not one per socket.

Every Daphne process (every event loop) has one :class:`Hub`. The hub takes one channel of the
channel layer and joins the group ``daily.<date>`` of each day it has watchers of, so that a
broadcast (``leaderboard.live.broadcast``) reaches each process once, whatever its number of
sockets; the hub then hands the update's text to each of its sockets of that day. (With a
channel-layer channel per socket, as Channels does by default, a crowd of 5,000 sockets in one
process made every broadcast cost seconds: channels_redis wakes, and reschedules, every socket's
receive for every message.)

Each socket gets the update's text through its consumer's ``send`` (the ASGI path, the same
for Daphne and for Channels's test communicator); the text is serialised once, by the
broadcaster, for every socket of every process.

The hub also keeps the latest snapshot of each of its days (:class:`LatestFrames`), which every
socket that connects receives: one snapshot per ``seq`` for all of them — the one the broadcaster
stored, which comes with each update — loaded (``snapshots.latest``) only when the process has
none.

Everything here runs on the event loop of the sockets; the hub is made on first use per loop. If
the channel layer fails while the hub listens (Redis away), the hub pauses all its sockets (close
code 4503: their pages poll and reconnect) and starts afresh with the next one that connects.

Of a socket the hub keeps its place in its day's set, from ``join`` to ``leave`` (which its
consumer calls however it ends), and nothing else: no queue — an update goes straight to the
socket's ``send``, where the site's limit on unread output applies (``canfield_site.socket_limits``)
— and a day whose last socket left is forgotten with its snapshot and its group. The one queue
is the hub's channel's, one per process, bounded by the channel layer's capacity (an update lost
there is a ``seq`` gap: its watchers resync).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import time
import weakref
from collections.abc import Mapping
from typing import Any, Protocol

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone

from canfield_site.formats import iso
from leaderboard.live import snapshots

log = logging.getLogger(__name__)

#: Sockets served between two yields to the event loop while an update goes out.
YIELD_EVERY = 250
#: A day's group membership is renewed this often (channels_redis forgets members after a day).
RENEW_GROUP = 3600.0


class Watcher(Protocol):
    day: dt.date | None

    async def deliver(self, seq: int, text: str) -> None: ...

    async def pause(self) -> None: ...


def group_name(day: dt.date) -> str:
    return f"daily.{day.isoformat()}"


def _text(frame: Mapping[str, object]) -> str:
    return json.dumps(frame, separators=(",", ":"))


class LatestFrames:
    """The latest snapshot of each day a hub has watchers of: its ``seq`` and its JSON text."""

    def __init__(self) -> None:
        self.frames: dict[dt.date, tuple[int, str]] = {}
        self.locks: dict[dt.date, asyncio.Lock] = {}

    def forget(self, day: dt.date) -> None:
        self.frames.pop(day, None)
        self.locks.pop(day, None)

    async def snapshot(self, day: dt.date, keep: bool) -> tuple[int, str]:
        """The day's latest snapshot: its ``seq`` and its text with ``now`` added. Loaded once
        at a time per day; kept if ``keep`` (the hub follows the day's updates)."""
        held = self.frames.get(day)
        if held is None:
            async with self.locks.setdefault(day, asyncio.Lock()):
                held = self.frames.get(day)
                if held is None:
                    frame = await database_sync_to_async(snapshots.latest)(day)
                    held = (frame["seq"], _text(frame))
                    if keep:
                        self.frames[day] = held
        seq, text = held
        return seq, f'{text[:-1]},"now":"{iso(timezone.now())}"}}'

    def follow(self, day: dt.date, seq: int, snapshot: str | None) -> None:
        """An update of ``day`` came with the broadcaster's snapshot of its ``seq`` (the one it
        stored): hold that one. Without it, forget the day's: the next socket loads the stored
        one."""
        held = self.frames.get(day)
        if held is None or seq <= held[0]:
            return
        if snapshot is None:
            del self.frames[day]
        else:
            self.frames[day] = (seq, snapshot)


class Hub:
    """This event loop's listener: the sockets of each day, one channel for all of them."""

    _hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()

    @classmethod
    def current(cls) -> Hub:
        loop = asyncio.get_running_loop()
        hub = cls._hubs.get(loop)
        if hub is None:
            hub = cls._hubs[loop] = cls()
        return hub

    def __init__(self) -> None:
        self.layer = get_channel_layer()
        self.channel: str | None = None
        self.listener: asyncio.Task[None] | None = None
        self.sockets: dict[dt.date, set[Watcher]] = {}
        self.joined: dict[dt.date, float] = {}
        self.latest = LatestFrames()

    async def join(self, watcher: Watcher) -> None:
        """Deliver ``watcher``'s day's updates to it from now on."""
        day = watcher.day
        assert day is not None
        self.sockets.setdefault(day, set()).add(watcher)
        if self.layer is None:
            return
        if self.channel is None:
            self.channel = await self.layer.new_channel()
            self.listener = asyncio.get_running_loop().create_task(self.listen())
        if time.monotonic() - self.joined.get(day, float("-inf")) > RENEW_GROUP:
            self.joined[day] = time.monotonic()
            await self.layer.group_add(group_name(day), self.channel)

    async def leave(self, watcher: Watcher, day: dt.date) -> None:
        sockets = self.sockets.get(day)
        if sockets is None:
            return
        sockets.discard(watcher)
        if not sockets:
            del self.sockets[day]
            self.latest.forget(day)
            if self.joined.pop(day, None) is not None and self.layer is not None:
                assert self.channel is not None
                await self.layer.group_discard(group_name(day), self.channel)

    async def snapshot(self, day: dt.date) -> tuple[int, str]:
        return await self.latest.snapshot(day, keep=day in self.sockets)

    async def renew(self) -> None:
        """Join again the groups of the days watched here (their membership lapses after a day
        in channels_redis), at most once per :data:`RENEW_GROUP`."""
        assert self.layer is not None and self.channel is not None
        for day in list(self.sockets):
            if time.monotonic() - self.joined.get(day, float("-inf")) > RENEW_GROUP:
                self.joined[day] = time.monotonic()
                await self.layer.group_add(group_name(day), self.channel)

    async def listen(self) -> None:
        assert self.layer is not None and self.channel is not None
        while True:
            try:
                message = await asyncio.wait_for(self.layer.receive(self.channel), RENEW_GROUP)
            except TimeoutError:  # a quiet hour
                await self.renew()
                continue
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: its groups may be gone when it comes back
                log.warning(
                    "leaderboard: the live board's listener lost the channel layer (%s)", exc
                )
                await self.lost()
                return
            if message.get("type") == "board.update":
                await self.dispatch(message)
            await self.renew()

    async def lost(self) -> None:
        """The channel layer failed: this hub's group memberships cannot be trusted any more (a
        Redis that comes back empty has none). Start afresh — the next socket joins again — and
        pause every socket: their pages poll the REST board and reconnect."""
        watchers = [watcher for sockets in self.sockets.values() for watcher in sockets]
        self.sockets.clear()
        self.joined.clear()
        self.latest = LatestFrames()
        self.channel = None
        self.listener = None
        for watcher in watchers:
            await watcher.pause()

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Hand an update to every socket of its day in this process."""
        seq, text = message["seq"], message["text"]
        days = [dt.date.fromisoformat(message["date"])] if "date" in message else list(self.sockets)
        for day in days:
            self.latest.follow(day, seq, message.get("snapshot"))
            for n, watcher in enumerate(list(self.sockets.get(day, ())), start=1):
                try:
                    await watcher.deliver(seq, text)
                except Exception:  # a socket that went away meanwhile
                    log.debug("leaderboard: an update was not delivered", exc_info=True)
                if n % YIELD_EVERY == 0:
                    await asyncio.sleep(0)  # let the process's HTTP requests in meanwhile
