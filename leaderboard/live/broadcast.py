"""Live boards: coalesced broadcasts to the watchers of a day, in every Daphne process.

A change to a daily attempt (``games.signals.standing_changed``) calls :func:`mark_dirty`. The first
change of a quiet day claims the day's "dirty" key in the shared cache (``cache.add``: atomic, and
across processes when the cache is Redis) and schedules one flush ``LEADERBOARD_BROADCAST_DELAY``
seconds later (0.25 s by default); later changes in that window find the key taken and do nothing,
because the flush will see them. The flush drops the key first — so a change that lands while it
runs schedules the next one — then takes the day's next sequence number, reads the fresh top 100,
compares them with the day's stored snapshot (``frames.update_frame``: only the rows that
changed go out, by player), stores the new snapshot in its place (``snapshots.store``: the one
that watchers connecting from then on receive) and sends one message to the channel-layer group
``daily.<date>``. Every watcher, in whichever
process, therefore receives at most one update per window per day however many players move, and
sees a change within the window plus one board query.

A flush that fails (the database busy, Redis away) is logged and tried again a window later, up
to ``FLUSH_ATTEMPTS`` times. If a process dies between claiming the key and flushing, the key
expires after ``DIRTY_TIMEOUT`` seconds and the next change schedules a flush again.

Where the flush runs: each process has one daemon thread with an event loop of its own (started on
first use) that keeps the delays and talks to the channel layer, and hands the database work to a
worker thread. Redis's layer is used from that loop. The in-memory layer is a plain object of
asyncio queues that only the loop of its consumers may touch, so its message is sent on that loop
(Daphne's, registered by each consumer as it connects); a process with no watcher has no one to
tell.

The message is serialised once, for all watchers: ``{"type": "board.update", "date", "seq": N,
"text": "<the JSON frame>"}``; it reaches each process's hub (``leaderboard.live.fanout``: one
member of the group per process), which passes ``text`` on to its sockets as it is.
"""

from __future__ import annotations

import asyncio
import atexit
import datetime as dt
import json
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connections, transaction
from django.db.models import F

from leaderboard.live import fanout, frames, snapshots
from leaderboard.models import DailyDeal

log = logging.getLogger(__name__)

#: Seconds after which a claimed dirty key lapses if its flush never ran.
DIRTY_TIMEOUT = 5
#: A flush that fails (the database busy, Redis away) is tried this many times in all.
FLUSH_ATTEMPTS = 3
#: Seconds a process that is exiting waits for its scheduled broadcasts.
EXIT_WAIT = 10


group_name = fanout.group_name


def dirty_key(day: dt.date) -> str:
    return f"board-dirty:{day.isoformat()}"


def delay() -> float:
    return float(getattr(settings, "LEADERBOARD_BROADCAST_DELAY", 0.25))


# --- the message --------------------------------------------------------------------------------


def next_seq(day: dt.date) -> int:
    """Take the day's next sequence number (the row is created on first use)."""
    with transaction.atomic():
        DailyDeal.objects.get_or_create(date=day)
        DailyDeal.objects.filter(date=day).update(seq=F("seq") + 1)  # locks the row until commit
        return DailyDeal.objects.values_list("seq", flat=True).get(date=day)


def update_message(day: dt.date, now: dt.datetime | None = None) -> dict[str, Any]:
    """The group message for a fresh update of ``day``'s board (takes a sequence number): the
    difference from the day's stored snapshot, which it replaces."""
    seq = next_seq(day)  # before reading the rows: they are at least as fresh as ``seq``
    frame = frames.snapshot_frame(day, seq, now)
    update = frames.update_frame(snapshots.stored(day), frame)
    snapshots.store(frame)
    text = json.dumps(update, separators=(",", ":"))
    return {"type": "board.update", "date": day.isoformat(), "seq": seq, "text": text}


def _prepare(day: dt.date) -> dict[str, Any]:
    """The database part of a flush, in a worker thread: it leaves no connection open."""
    close_old_connections()
    try:
        cache.delete(dirty_key(day))
        return update_message(day)
    finally:
        connections.close_all()


# --- delivery -----------------------------------------------------------------------------------

_consumer_loop: asyncio.AbstractEventLoop | None = None


def register_consumer_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Called by each consumer as it connects: the loop the in-memory layer must be used from."""
    global _consumer_loop
    _consumer_loop = loop


async def _deliver(day: dt.date, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    if isinstance(layer, InMemoryChannelLayer):
        loop = _consumer_loop
        if loop is None or loop.is_closed() or not loop.is_running():
            return  # no watcher in this process, and the in-memory layer reaches no other
        if loop is asyncio.get_running_loop():
            await layer.group_send(group_name(day), message)
        else:
            future = asyncio.run_coroutine_threadsafe(
                layer.group_send(group_name(day), message), loop
            )
            await asyncio.wrap_future(future)
    else:
        await layer.group_send(group_name(day), message)


# --- the per-process broadcaster ----------------------------------------------------------------


class _Broadcaster:
    _instance: _Broadcaster | None = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.workers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="leaderboard-db")
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="leaderboard-broadcaster", daemon=True
        )
        self.tasks: set[asyncio.Task[None]] = set()
        #: Flushes scheduled and not yet over (retries included).
        self.pending = 0
        self.idle = threading.Condition()
        self.thread.start()
        # A command that made a change (close_daily_attempts) lets its broadcasts go out
        # before the process ends.
        atexit.register(self.wait_idle, EXIT_WAIT)

    @classmethod
    def get(cls) -> _Broadcaster:
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def schedule(self, day: dt.date, after: float) -> None:
        with self.idle:
            self.pending += 1
        self.loop.call_soon_threadsafe(self._start, day, after)

    def wait_idle(self, timeout: float) -> bool:
        with self.idle:
            return self.idle.wait_for(lambda: self.pending == 0, timeout)

    def _start(self, day: dt.date, after: float) -> None:
        self.loop.call_later(after, self._spawn, day)

    def _spawn(self, day: dt.date, attempt: int = 1) -> None:
        task = self.loop.create_task(self.flush(day, attempt))
        self.tasks.add(task)  # the loop keeps only weak references to its tasks
        task.add_done_callback(self.tasks.discard)

    async def flush(self, day: dt.date, attempt: int = 1) -> None:
        retry = False
        try:
            message = await self.loop.run_in_executor(self.workers, _prepare, day)
            await _deliver(day, message)
        except Exception:  # a failed flush must not kill the loop
            log.exception("leaderboard: broadcasting the board of %s failed", day)
            try:
                await self.loop.run_in_executor(self.workers, cache.delete, dirty_key(day))
            except Exception:  # Redis away: the key lapses after DIRTY_TIMEOUT
                log.warning("leaderboard: the dirty key of %s stays until it lapses", day)
            retry = attempt < FLUSH_ATTEMPTS  # e.g. SQLite busy: try again after a window
            if retry:
                self.loop.call_later(delay(), self._spawn, day, attempt + 1)
        finally:
            if not retry:
                with self.idle:
                    self.pending -= 1
                    self.idle.notify_all()


def wait_idle(timeout: float = 10) -> bool:
    """Wait until this process has no broadcast scheduled or running; False on timeout.
    (For a command about to exit, and for tests.)"""
    instance = _Broadcaster._instance
    return instance is None or instance.wait_idle(timeout)


def mark_dirty(day: dt.date) -> None:
    """A standing on ``day``'s board may have changed: make sure one flush is coming."""
    if cache.add(dirty_key(day), 1, timeout=DIRTY_TIMEOUT):
        _Broadcaster.get().schedule(day, delay())
