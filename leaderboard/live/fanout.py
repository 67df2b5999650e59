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

Everything here runs on the event loop of the sockets; the hub is made on first use per loop.

A failed wait on the channel layer is not taken for Redis away (:meth:`Hub.steady`). Every read
of channels_redis is bounded (``REDIS_TIMEOUT``; its blocking pop, its own 5 s more), and a
process whose loop is busy — a crowd connecting, an update going out to thousands of sockets —
reads late what Redis answered in time: at 2,000 watchers on a loaded machine, one such read made
a hub close every socket of its process (4503) while Redis was there all along. So a failed
command is followed by a liveness check off the loop (``redis_bounds.answers``: a PING on a
connection of its own, within :data:`ALIVE_WITHIN` seconds); while Redis answers, the command is
tried again after a wait that doubles from :data:`RETRY_FIRST` to :data:`RETRY_MOST` seconds, for
:data:`PATIENCE` seconds at most. Nothing waits on the sockets meanwhile: the broadcasts wait in
the hub's channel, and channels_redis puts back a message whose handling failed once it had been
read; the one that can be lost with a failed read (handed over by Redis in a reply never read) is
made good by :meth:`Hub.catch_up`, which gives the sockets behind the day's stored snapshot that
snapshot. Only when Redis does not answer, or the layer keeps failing past :data:`PATIENCE`, does
the hub pause all its sockets (close code 4503: their pages poll and reconnect) and start afresh
with the next one that connects. Whatever ends the hub's listener ends it that way: no socket
stays connected to a hub that no longer listens.

Of a socket the hub keeps its place in its day's set, from ``join`` to ``leave`` (which its
consumer calls however it ends), and nothing else: no queue — an update goes straight to the
socket's ``send``, where the site's limit on unread output applies (``core.socket_limits``)
— and a day whose last socket left is forgotten with its snapshot and its group. The one queue
is the hub's channel's, one per process, bounded by the channel layer's capacity: 100 messages,
of which a day sends at most one per broadcast window (0.25 s), so that it fills only if the hub
reads nothing for 25 s — longer than :data:`PATIENCE`. An update lost there is a ``seq`` gap: its
watchers resync.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Protocol, TypeVar

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone

from core.formats import iso
from core.loops import PerLoop, within
from core.redis_bounds import answers as redis_answers
from leaderboard.live import snapshots

log = logging.getLogger(__name__)

#: Sockets served between two yields to the event loop while an update goes out.
YIELD_EVERY = 250
#: A day's group membership is renewed this often (channels_redis forgets members after a day).
RENEW_GROUP = 3600.0
#: Seconds within which Redis must answer a PING for a failed channel-layer command to be tried
#: again rather than taken for Redis away (a black hole costs the hub this long, twice at most).
ALIVE_WITHIN = 3.0
#: The first wait before a failed channel-layer command is tried again, and the longest; the wait
#: doubles from one to the other.
RETRY_FIRST = 0.1
RETRY_MOST = 2.0
#: Seconds for which a channel-layer command that keeps failing is tried again while Redis
#: answers; past them the hub gives up (its sockets are paused).
PATIENCE = 20.0
#: Seconds after a failed receive before the hub's sockets catch up with the stored snapshots.
CATCH_UP_AFTER = 1.0

T = TypeVar("T")


class Watcher(Protocol):
    day: dt.date | None

    async def deliver(self, seq: int, text: str) -> None: ...

    async def pause(self) -> None: ...


def group_name(day: dt.date) -> str:
    return f"daily.{day.isoformat()}"


def _text(frame: Mapping[str, object]) -> str:
    return json.dumps(frame, separators=(",", ":"))


def _why(exc: BaseException) -> str:
    return f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}"


def layer_addresses(layer: Any) -> list[str]:
    """The Redis servers of a channels_redis layer (its ``hosts``, each an ``address`` or a
    ``host`` and ``port``); none for another layer (the in-memory one has no server to lose)."""
    hosts: Iterable[Any] = getattr(layer, "hosts", None) or ()
    addresses = []
    for host in hosts:
        if isinstance(host, dict) and "address" in host:
            addresses.append(str(host["address"]))
        elif isinstance(host, dict) and "host" in host:
            addresses.append(f"redis://{host['host']}:{host.get('port', 6379)}")
    return addresses


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

    @classmethod
    def current(cls) -> Hub:
        """The running event loop's hub."""
        return _HUBS.get()

    def __init__(self) -> None:
        self.layer = get_channel_layer()
        self.channel: str | None = None
        self.listener: asyncio.Task[None] | None = None
        self.sockets: dict[dt.date, set[Watcher]] = {}
        #: When each day's group was joined (renewed), by the monotonic clock.
        self.joined: dict[dt.date, float] = {}
        #: Taken while the hub joins or leaves a group: a group left by the day's last socket
        #: while the next one joins it could otherwise end up left, the new socket unserved.
        self.membership = asyncio.Lock()
        self.latest = LatestFrames()
        #: The catch-up that follows a failed receive, if one is coming or running.
        self.catching_up: asyncio.Task[None] | None = None

    def due(self, day: dt.date) -> bool:
        """Whether the day's group is to be joined (or its membership renewed)."""
        return time.monotonic() - self.joined.get(day, float("-inf")) > RENEW_GROUP

    async def join(self, watcher: Watcher) -> None:
        """Deliver ``watcher``'s day's updates to it from now on: once this returns, the hub is
        a member of the day's group. Raises the channel layer's error if Redis is away (every
        socket of the hub is paused then, this one with them)."""
        day = watcher.day
        assert day is not None
        self.sockets.setdefault(day, set()).add(watcher)
        if self.layer is None:
            return
        if self.channel is None:
            self.channel = await self.layer.new_channel()
            self.listener = asyncio.get_running_loop().create_task(self.listen())
        if self.due(day):
            try:
                await self.renew([day])
            except Exception:
                await self.lost()
                raise

    async def leave(self, watcher: Watcher, day: dt.date) -> None:
        sockets = self.sockets.get(day)
        if sockets is None:
            return
        sockets.discard(watcher)
        if sockets:
            return
        del self.sockets[day]
        self.latest.forget(day)
        if self.layer is None or self.channel is None:
            return
        channel = self.channel
        async with self.membership:
            if day not in self.sockets and self.joined.pop(day, None) is not None:
                await self.layer.group_discard(group_name(day), channel)

    async def snapshot(self, day: dt.date) -> tuple[int, str]:
        return await self.latest.snapshot(day, keep=day in self.sockets)

    async def renew(self, days: Iterable[dt.date] | None = None) -> None:
        """Join the groups of ``days`` (every day watched here by default) that are due: not
        joined yet, or joined :data:`RENEW_GROUP` ago (a membership lapses after a day in
        channels_redis). One at a time: the joins of a crowd wait for the first."""
        layer = self.layer
        assert layer is not None
        for day in list(self.sockets) if days is None else days:
            if not self.due(day):
                continue
            async with self.membership:
                channel = self.channel
                if not self.due(day) or day not in self.sockets or channel is None:
                    continue
                await self.steady(functools.partial(layer.group_add, group_name(day), channel))
                self.joined[day] = time.monotonic()

    async def answers(self) -> bool:
        """Whether every Redis of the channel layer answers a PING within
        :data:`ALIVE_WITHIN` seconds — asked off the event loop, on a connection of its own, so
        that a busy loop is not taken for Redis away."""
        addresses = layer_addresses(self.layer)
        if not addresses:
            return False
        for address in addresses:
            alive = await sync_to_async(redis_answers, thread_sensitive=False)(
                address, ALIVE_WITHIN
            )
            if not alive:
                return False
        return True

    async def bear(self, exc: Exception, since: float, wait: float) -> None:
        """A channel-layer command failed with ``exc``; it has been failing since ``since``. Wait
        ``wait`` seconds before it is tried again if Redis answers a PING and the failures have
        lasted less than :data:`PATIENCE`; else raise ``exc`` (Redis away)."""
        if time.monotonic() - since > PATIENCE:
            log.warning(
                "leaderboard: a channel-layer command kept failing for %.0f s while Redis "
                "answers (%s): given up",
                PATIENCE,
                _why(exc),
            )
            raise exc
        if not await self.answers():
            log.warning(
                "leaderboard: a channel-layer command failed (%s) and Redis does not answer a "
                "PING within %.1f s",
                _why(exc),
                ALIVE_WITHIN,
            )
            raise exc
        log.warning(
            "leaderboard: a channel-layer command failed while Redis answers (%s): tried again "
            "in %.1f s",
            _why(exc),
            wait,
        )
        await asyncio.sleep(wait)

    async def steady(self, command: Callable[[], Awaitable[T]]) -> T:
        """``command()``, a channel-layer command, tried again while it fails and Redis answers
        (:meth:`bear`), after a wait that doubles from :data:`RETRY_FIRST` to
        :data:`RETRY_MOST` seconds. Raises its error if Redis does not answer, or once the
        failures have lasted :data:`PATIENCE`."""
        since, wait = time.monotonic(), RETRY_FIRST
        while True:
            try:
                return await command()
            except Exception as exc:
                await self.bear(exc, since, wait)
                wait = min(2 * wait, RETRY_MOST)

    async def listen(self) -> None:
        """Receive the broadcasts of the hub's channel and hand them out, until the channel
        layer is lost (then every socket is paused) or the hub is cancelled. A failed receive is
        borne as :meth:`steady` bears a command's failure, and is followed by a catch-up."""
        assert self.layer is not None and self.channel is not None
        layer, channel = self.layer, self.channel
        failing_since: float | None = None
        wait = RETRY_FIRST
        try:
            while True:
                try:
                    message = await within(layer.receive(channel), RENEW_GROUP)
                except TimeoutError:  # a quiet hour
                    await self.renew()
                    continue
                except Exception as exc:
                    if failing_since is None:
                        failing_since = time.monotonic()
                    await self.bear(exc, failing_since, wait)
                    wait = min(2 * wait, RETRY_MOST)
                    self.catch_up_soon()
                    continue
                failing_since, wait = None, RETRY_FIRST
                if message.get("type") == "board.update":
                    await self.dispatch(message)
                await self.renew()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # Redis away: its groups may be gone when it comes back
            log.warning(
                "leaderboard: the live board's listener lost the channel layer (%s)", _why(exc)
            )
            if self.channel == channel:
                await self.lost()

    async def lost(self) -> None:
        """The channel layer failed: this hub's group memberships cannot be trusted any more (a
        Redis that comes back empty has none). Start afresh — the next socket joins again — and
        pause every socket: their pages poll the REST board and reconnect."""
        watchers = [watcher for sockets in self.sockets.values() for watcher in sockets]
        tasks = [self.listener, self.catching_up]
        self.sockets.clear()
        self.joined.clear()
        self.latest = LatestFrames()
        self.channel = None
        self.listener = self.catching_up = None
        for task in tasks:
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        for n, watcher in enumerate(watchers, start=1):
            await watcher.pause()
            if n % YIELD_EVERY == 0:
                await asyncio.sleep(0)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Hand an update to every socket of its day in this process."""
        seq, text = message["seq"], message["text"]
        days = [dt.date.fromisoformat(message["date"])] if "date" in message else list(self.sockets)
        for day in days:
            self.latest.follow(day, seq, message.get("snapshot"))
            await self.hand_out(day, seq, text)

    def catch_up_soon(self) -> None:
        """Run :meth:`catch_up` in :data:`CATCH_UP_AFTER` seconds, unless one is coming."""
        if self.catching_up is None or self.catching_up.done():
            loop = asyncio.get_running_loop()
            self.catching_up = loop.create_task(self.catch_up(CATCH_UP_AFTER))

    async def catch_up(self, after: float = 0.0) -> None:
        """After a failed read of the channel layer: an update that Redis handed over in a reply
        that was never read is lost to this process (channels_redis keeps a copy of a message
        only once it has read it), and the hub's channel may hold no other. So, ``after`` seconds
        later — the updates the channel did keep have gone out by then — each day's stored
        snapshot is loaded afresh and given to the sockets still behind it (a socket at its
        ``seq`` or beyond ignores it): none stays on an older board until the day's next
        update."""
        await asyncio.sleep(after)
        for day in list(self.sockets):
            self.latest.forget(day)
            try:
                seq, text = await self.snapshot(day)
            except Exception:  # the next update's seq gap makes its watchers resync
                log.warning("leaderboard: the live board of %s did not catch up", day)
                continue
            await self.hand_out(day, seq, text)

    async def hand_out(self, day: dt.date, seq: int, text: str) -> None:
        """Give frame ``seq`` of ``day`` to every socket of the day in this process."""
        for n, watcher in enumerate(list(self.sockets.get(day, ())), start=1):
            try:
                await watcher.deliver(seq, text)
            except Exception:  # a socket that went away meanwhile
                log.debug("leaderboard: an update was not delivered", exc_info=True)
            if n % YIELD_EVERY == 0:
                await asyncio.sleep(0)  # let the process's HTTP requests in meanwhile


#: Each event loop's hub.
_HUBS: PerLoop[Hub] = PerLoop(Hub)
