"""Live boards: coalesced broadcasts to the watchers of a day, in every Daphne process.

A change to a daily attempt (``games.signals.standing_changed``) calls :func:`mark_dirty`. The first
change since the day's latest flush claims the day's "dirty" key in the shared cache
(``cache.add``: atomic, and across processes when the cache is Redis) and schedules one flush: at
once on a quiet board — the day's latest flush began a window ago or more — else when that
window ends (``LEADERBOARD_BROADCAST_DELAY``, 0.25 s by default); later changes find the key
taken and do nothing, because the flush will see them. So a change on a quiet board goes out at
once, changes in a burst go out together, and flushes of a day begin at least a window apart,
whichever process runs them (each records when it began, in the shared cache). The flush drops the
key first — so a change that lands while it runs schedules the next one — then takes the day's
next sequence number, reads the fresh top 100, stores them as the day's snapshot if no newer one
is stored (``snapshots.swap``, compare-and-set on ``seq``: the snapshot that watchers connecting
from then on receive), compares them with the snapshot they replace (``frames.update_frame``:
what changed, by player) and sends one message to the channel-layer group ``daily.<date>``. Every
watcher, in whichever process, therefore receives at most one update per window per day however
many players move, and sees a change within a window plus one board query.

The broadcaster also keeps the day's Redis sorted sets whole, so that no read has to: a flush
that finds today's sets missing (never built, or Redis flushed or restarted) has them rebuilt
from SQL in a thread of their own (the board is read from SQL meanwhile), and an attempt whose
change Redis refused (:func:`record_later`) is recorded again from SQL, with a growing wait, as
long as the process lives — then the day is broadcast again. A process that exits with changes
still unrecorded marks their day not ready: SQL answers until its sets are rebuilt.

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
"text": "<the update's JSON>", "snapshot": "<the snapshot's JSON>"}``; it reaches each process's
hub (``leaderboard.live.fanout``: one member of the group per process), which passes ``text`` on
to its sockets as it is, and holds ``snapshot`` for the sockets that connect next.
"""

from __future__ import annotations

import asyncio
import atexit
import datetime as dt
import json
import logging
import threading
import time
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connections, transaction
from django.db.models import F

from games.models import Game
from leaderboard import standings
from leaderboard.live import fanout, frames, snapshots
from leaderboard.models import DailyDeal
from leaderboard.standings import sets

log = logging.getLogger(__name__)

#: Seconds after which a claimed dirty key lapses if its flush never ran.
DIRTY_TIMEOUT = 5
#: Seconds a day's latest flush time is kept (longer than any window).
FLUSHED_TIMEOUT = 60
#: A flush that fails (the database busy, Redis away) is tried this many times in all.
FLUSH_ATTEMPTS = 3
#: Seconds a process that is exiting waits for its scheduled broadcasts.
EXIT_WAIT = 10
#: The longest wait, in seconds, before recording again a change that Redis refused.
RECORD_RETRY_CAP = 30.0


group_name = fanout.group_name


def dirty_key(day: dt.date) -> str:
    return f"board-dirty:{day.isoformat()}"


def flushed_key(day: dt.date) -> str:
    """When the day's latest flush began (seconds since the epoch, by the wall clock)."""
    return f"board-flushed:{day.isoformat()}"


def delay() -> float:
    return float(getattr(settings, "LEADERBOARD_BROADCAST_DELAY", 0.25))


# --- the message --------------------------------------------------------------------------------


def next_seq(day: dt.date) -> int:
    """Take the day's next sequence number (the row is created on first use)."""
    with transaction.atomic():
        DailyDeal.objects.get_or_create(date=day)
        DailyDeal.objects.filter(date=day).update(seq=F("seq") + 1)  # locks the row until commit
        return DailyDeal.objects.values_list("seq", flat=True).get(date=day)


def update_message(day: dt.date, now: dt.datetime | None = None) -> dict[str, Any] | None:
    """The group message for a fresh update of ``day``'s board (takes a sequence number): the
    difference from the day's stored snapshot, which it replaces — stored first, so that a
    watcher that receives the update and resyncs gets at least its ``seq``. ``None`` if a newer
    snapshot is stored already (another process's flush went ahead: it tells the watchers)."""
    seq = next_seq(day)  # before reading the rows: they are at least as fresh as ``seq``
    frame = frames.snapshot_frame(day, seq, now)
    swapped, previous = snapshots.swap(frame)
    if not swapped:
        ahead = snapshots.stored(day)
        if ahead is None or ahead["seq"] <= snapshots.current_seq(day):
            return None
        snapshots.replace(frame)  # numbered beyond the database's seq: not this database's
    update = frames.update_frame(previous, frame)
    text = json.dumps(update, separators=(",", ":"))
    snapshot = json.dumps(frame, separators=(",", ":"))
    return {
        "type": "board.update",
        "date": day.isoformat(),
        "seq": seq,
        "text": text,
        "snapshot": snapshot,
    }


def _prepare(day: dt.date) -> dict[str, Any] | None:
    """The database part of a flush, in a worker thread: it leaves no connection open."""
    close_old_connections()
    try:
        cache.set(flushed_key(day), time.time(), timeout=FLUSHED_TIMEOUT)
        cache.delete(dirty_key(day))  # (after: a change that claims it sees this flush's time)
        if standings.needs_rebuild(day):
            _Broadcaster.get().rebuild_soon(day)  # read from SQL meanwhile
        return update_message(day)
    finally:
        connections.close_all()


def _rebuild(day: dt.date) -> None:
    """Build ``day``'s Redis sets from SQL, in the broadcaster's builder thread."""
    close_old_connections()
    try:
        if standings.needs_rebuild(day) and sets.rebuild(day):
            log.info("leaderboard: the Redis sets of %s were rebuilt", day)
    except Exception:
        log.exception("leaderboard: rebuilding the Redis sets of %s failed", day)
    finally:
        connections.close_all()


def _record_again(day: dt.date, game_ids: set[int]) -> set[int]:
    """Record the attempts ``game_ids`` of ``day`` in its Redis sets again, as they stand in
    SQL; returns those that failed again (an attempt no longer in SQL has nothing to record)."""
    close_old_connections()
    try:
        failed: set[int] = set()
        for game in Game.objects.select_related("owner").filter(pk__in=game_ids):
            if not sets.record(game):
                failed.add(game.pk)
        return failed
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
        self.builder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="leaderboard-sets")
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="leaderboard-broadcaster", daemon=True
        )
        self.tasks: set[asyncio.Task[None]] = set()
        #: Flushes, rebuilds and records again scheduled and not yet over (retries included).
        self.pending = 0
        self.idle = threading.Condition()
        #: The days whose sets are being rebuilt here.
        self.rebuilding: set[dt.date] = set()
        #: The attempts whose change could not be recorded in their day's sets, by day.
        self.unrecorded: dict[dt.date, set[int]] = {}
        self.thread.start()
        # A command that made a change (close_daily_attempts) lets its broadcasts go out
        # before the process ends.
        atexit.register(self.exit)

    @classmethod
    def get(cls) -> _Broadcaster:
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def _begin(self) -> None:
        with self.idle:
            self.pending += 1

    def _end(self) -> None:
        with self.idle:
            self.pending -= 1
            self.idle.notify_all()

    def schedule(self, day: dt.date, after: float) -> None:
        self._begin()
        self.loop.call_soon_threadsafe(self._start, day, after)

    def wait_idle(self, timeout: float) -> bool:
        with self.idle:
            return self.idle.wait_for(lambda: self.pending == 0, timeout)

    def exit(self) -> None:
        """At the process's end: let the scheduled work finish; a day with changes still not
        recorded in its sets is marked not ready (read from SQL until rebuilt)."""
        self.wait_idle(EXIT_WAIT)
        with self.idle:
            days = [day for day, ids in self.unrecorded.items() if ids]
        for day in days:
            try:
                sets.unready(day)
            except Exception:
                log.exception(
                    "leaderboard: changes of %s are missing from its Redis sets: rebuild them "
                    "(manage.py rebuild_board --day %s --force)",
                    day,
                    day.isoformat(),
                )

    def _start(self, day: dt.date, after: float) -> None:
        self.loop.call_later(after, self._spawn, day)

    def _spawn(self, day: dt.date, attempt: int = 1) -> None:
        self._task(self.flush(day, attempt))

    def _task(self, work: Coroutine[Any, Any, None]) -> None:
        task = self.loop.create_task(work)
        self.tasks.add(task)  # the loop keeps only weak references to its tasks
        task.add_done_callback(self.tasks.discard)

    async def flush(self, day: dt.date, attempt: int = 1) -> None:
        retry = False
        try:
            message = await self.loop.run_in_executor(self.workers, _prepare, day)
            if message is not None:
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
                self._end()

    # -- the sets --------------------------------------------------------------------------------

    def rebuild_soon(self, day: dt.date) -> None:
        """Build ``day``'s sets from SQL in the builder thread, unless this process is at it."""
        with self.idle:
            if day in self.rebuilding:
                return
            self.rebuilding.add(day)
            self.pending += 1
        future = self.builder.submit(_rebuild, day)

        def done(_: object) -> None:
            with self.idle:
                self.rebuilding.discard(day)
            self._end()

        future.add_done_callback(done)

    def record_later(self, day: dt.date, game_id: int) -> None:
        """Record attempt ``game_id`` of ``day`` in its sets again soon (recording it failed)."""
        with self.idle:
            waiting = self.unrecorded.setdefault(day, set())
            first = not waiting
            waiting.add(game_id)
            if first:
                self.pending += 1
        if first:
            self.loop.call_soon_threadsafe(self._record_soon, day, 1)

    def _record_soon(self, day: dt.date, attempt: int) -> None:
        wait = min(RECORD_RETRY_CAP, delay() * 2**attempt)
        self.loop.call_later(wait, self._task, self.record_again(day, attempt))

    async def record_again(self, day: dt.date, attempt: int) -> None:
        """Record the day's unrecorded attempts again, as they stand in SQL; then broadcast the
        day (its rows may have been read without them). What fails is tried again later, as
        long as the process lives."""
        with self.idle:
            game_ids = set(self.unrecorded.get(day, ()))
        try:
            failed = await self.loop.run_in_executor(self.workers, _record_again, day, game_ids)
        except Exception:
            log.exception("leaderboard: recording the changes of %s again failed", day)
            failed = game_ids
        with self.idle:
            waiting = self.unrecorded.setdefault(day, set())
            waiting -= game_ids - failed
            left = bool(waiting)
            if not left:
                del self.unrecorded[day]
        if left:
            self._record_soon(day, attempt + 1)
            return
        try:
            await self.loop.run_in_executor(self.workers, mark_dirty, day)
        except Exception:
            log.warning("leaderboard: no live update of %s after its changes were recorded", day)
        finally:
            self._end()


def wait_idle(timeout: float = 10) -> bool:
    """Wait until this process has no broadcast scheduled or running; False on timeout.
    (For a command about to exit, and for tests.)"""
    instance = _Broadcaster._instance
    return instance is None or instance.wait_idle(timeout)


def mark_dirty(day: dt.date) -> None:
    """A standing on ``day``'s board may have changed: make sure one flush is coming — at once
    if the day's latest flush began a window ago or more, else when that window ends."""
    if cache.add(dirty_key(day), 1, timeout=DIRTY_TIMEOUT):
        _Broadcaster.get().schedule(day, flush_wait(day))


def flush_wait(day: dt.date) -> float:
    """Seconds until ``day``'s next flush may begin: 0 if its latest began a window ago or
    more (or never), else the rest of that window."""
    latest = cache.get(flushed_key(day))
    wait = 0.0 if latest is None else float(latest) + delay() - time.time()
    return min(max(wait, 0.0), delay())


def record_later(day: dt.date, game_id: int) -> None:
    """Recording attempt ``game_id`` in ``day``'s Redis sets failed: record it again soon (from
    SQL, as it then stands), and broadcast the day once it is."""
    _Broadcaster.get().record_later(day, game_id)
