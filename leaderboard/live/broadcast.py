"""Live boards: coalesced broadcasts to the watchers of a day, sent by the web process that made
the change, on its own serving event loop.

A change to a daily attempt (``games.signals.standing_changed``, after its commit, in the thread
of the request that made it) calls :func:`mark_dirty`. The first change since the day's latest
flush claims the day's "dirty" key in the shared cache (``cache.add``: atomic, and across
processes when the cache is Redis) and schedules one flush: at once on a quiet board — the day's
latest flush began a window ago or more — else when that window ends
(``LEADERBOARD_BROADCAST_DELAY``, 0.25 s by default); later changes find the key taken and do
nothing, because the flush will see them. So a change on a quiet board goes out at once, changes
in a burst go out together, and flushes of a day begin at least a window apart, whichever
process runs them (each records when it began, in the shared cache). The flush drops the key
first — so a change that lands while it runs schedules the next one — then takes the day's next
sequence number, reads the fresh top 100, stores them as the day's snapshot if no newer one is
stored (``snapshots.swap``, compare-and-set on ``seq``: the snapshot that watchers connecting
from then on receive), compares them with the snapshot they replace (``frames.update_frame``:
what changed, by player) and sends one message to the channel-layer group ``daily.<date>``. Every
watcher, in whichever process, therefore receives at most one update per window per day however
many players move, and sees a change within a window plus one board query.

Where the flush runs — one owner, one way:

- In a web process, on its serving loop: the event loop its connections run on (Daphne's), which
  :class:`ServingLoop` (the ASGI application's outermost layer, ``canfield_site.asgi``) learns
  from every connection. :func:`mark_dirty` hands the flush to that loop
  (``loop.call_soon_threadsafe``) and returns: the request does not wait for it. The flush waits
  for its window on the loop, does its database and Redis work in an executor thread
  (``sync_to_async(..., thread_sensitive=False)``, Django's way: the process's sockets never wait
  for it) and sends with the channel layer on the loop — with the in-memory layer, the very loop its
  consumers listen on. The process starts no thread, loop or pool of its own for it.
- Where no loop serves (a worker's task, a management command, a test's sync client), the
  change is published at once, in the calling thread, with no window (:func:`publish`); the
  in-memory layer, which reaches only the process's own sockets, has nobody to tell there.

The broadcaster keeps the day's Redis sorted sets whole without doing the work itself: a flush
that finds today's sets missing (never built, or Redis flushed or restarted) enqueues the worker
tier's ``leaderboard.tasks.rebuild_board`` — once per ``REBUILD_TIMEOUT`` per day, however many
flushes find them missing (the board is read from SQL meanwhile) —; and an attempt whose change
Redis refused (:func:`record_later`) is handed to ``leaderboard.tasks.record_again``, which
records it again from SQL, waiting longer each time, then makes the day dirty again.

A flush that fails (the database busy, Redis away) is logged and tried again a window later, up
to ``FLUSH_ATTEMPTS`` times. If a process stops or dies between claiming the key and flushing,
the key lapses after ``DIRTY_TIMEOUT`` seconds and the next change schedules a flush again.

The message is serialised once, for all watchers: ``{"type": "board.update", "date", "seq": N,
"text": "<the update's JSON>", "snapshot": "<the snapshot's JSON>"}``; it reaches each process's
hub (``leaderboard.live.fanout``: one member of the group per process), which passes ``text`` on
to its sockets as it is, and holds ``snapshot`` for the sockets that connect next.
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime as dt
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import connections, transaction
from django.db.models import F

from leaderboard import standings, tasks
from leaderboard.live import fanout, frames, snapshots
from leaderboard.models import DailyDeal

log = logging.getLogger(__name__)

#: Seconds after which a claimed dirty key lapses if its flush never ran.
DIRTY_TIMEOUT = 5
#: Seconds a day's latest flush time is kept (longer than any window).
FLUSHED_TIMEOUT = 60
#: A flush that fails (the database busy, Redis away) is tried this many times in all.
FLUSH_ATTEMPTS = 3
#: Seconds during which a day's missing sets are not asked of the worker tier again.
REBUILD_TIMEOUT = 30


group_name = fanout.group_name


def dirty_key(day: dt.date) -> str:
    return f"board-dirty:{day.isoformat()}"


def flushed_key(day: dt.date) -> str:
    """When the day's latest flush began (seconds since the epoch, by the wall clock)."""
    return f"board-flushed:{day.isoformat()}"


def rebuild_key(day: dt.date) -> str:
    """Taken when a rebuild of the day's sets is enqueued (for ``REBUILD_TIMEOUT`` seconds)."""
    return f"board-rebuild:{day.isoformat()}"


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


def prepare(day: dt.date) -> dict[str, Any] | None:
    """The database and Redis part of a flush: mark its beginning, drop the dirty key, ask for
    the day's sets if they are missing, and build the message (``None``: nothing to send)."""
    cache.set(flushed_key(day), time.time(), timeout=FLUSHED_TIMEOUT)
    cache.delete(dirty_key(day))  # (after: a change that claims it sees this flush's time)
    if standings.needs_rebuild(day):
        rebuild_soon(day)  # read from SQL meanwhile
    return update_message(day)


def _prepare_apart(day: dt.date) -> dict[str, Any] | None:
    """:func:`prepare` in an executor thread, leaving no database connection behind: the call
    runs in a context of its own, so its connection must be given back (to the pool, if any)
    within it."""
    try:
        return prepare(day)
    finally:
        connections.close_all()


def rebuild_soon(day: dt.date) -> None:
    """Have the worker tier build ``day``'s Redis sets from SQL, unless it was asked to within
    ``REBUILD_TIMEOUT`` seconds."""
    if cache.add(rebuild_key(day), 1, timeout=REBUILD_TIMEOUT):
        try:
            tasks.rebuild_board.enqueue(day.isoformat())
        except Exception:  # the periodic rebuild_today builds them; the board is read from SQL
            log.exception("leaderboard: no rebuild of the Redis sets of %s was enqueued", day)


def _give_up_key(day: dt.date) -> None:
    try:
        cache.delete(dirty_key(day))
    except Exception:  # Redis away: the key lapses after DIRTY_TIMEOUT
        log.warning("leaderboard: the dirty key of %s stays until it lapses", day)


# --- on a serving loop --------------------------------------------------------------------------

Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[..., Awaitable[None]]

_serving_loop: asyncio.AbstractEventLoop | None = None
#: The flushes scheduled or running (the loop keeps only weak references to its tasks).
_flushes: set[asyncio.Task[None]] = set()


class ServingLoop:
    """ASGI middleware: the event loop each connection runs on is this process's serving loop,
    on which its live-board flushes run. (Daphne serves every connection of a process on one
    loop; a test's loop serves its own connections while it lives.)"""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        global _serving_loop
        _serving_loop = asyncio.get_running_loop()
        await self.app(scope, receive, send)


def serving_loop() -> asyncio.AbstractEventLoop | None:
    """The loop that serves this process's connections, if one is running."""
    loop = _serving_loop
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


def _start(day: dt.date, wait: float) -> None:
    """On the serving loop: run the flush of ``day`` after ``wait`` seconds."""
    task = asyncio.get_running_loop().create_task(flush(day, wait))
    _flushes.add(task)
    task.add_done_callback(_flushes.discard)


async def flush(day: dt.date, wait: float = 0.0) -> None:
    """Send ``day``'s update after ``wait`` seconds, from the serving loop: its database and
    Redis work in an executor thread, its message with the channel layer on the loop."""
    for _ in range(FLUSH_ATTEMPTS):
        await asyncio.sleep(wait)
        try:
            message = await sync_to_async(_prepare_apart, thread_sensitive=False)(day)
            if message is not None:
                layer = get_channel_layer()
                if layer is not None:
                    await layer.group_send(group_name(day), message)
            return
        except Exception:  # logged, and tried again a window later
            log.exception("leaderboard: broadcasting the board of %s failed", day)
            await sync_to_async(_give_up_key, thread_sensitive=False)(day)
            wait = delay()  # e.g. SQLite busy


# --- where no loop serves -----------------------------------------------------------------------


def publish(day: dt.date) -> None:
    """Send ``day``'s update at once, from the calling thread (no loop serves this process: a
    worker's task, a command, a test's sync client). Never raises: the change is committed; a
    failure is logged and tried again a window later, up to ``FLUSH_ATTEMPTS`` times."""
    for attempt in range(1, FLUSH_ATTEMPTS + 1):
        try:
            message = prepare(day)
            layer = get_channel_layer()
            # (The in-memory layer reaches this process's sockets only, and none is served here.)
            if (
                message is not None
                and layer is not None
                and not isinstance(layer, InMemoryChannelLayer)
            ):
                async_to_sync(layer.group_send)(group_name(day), message)
            return
        except Exception:
            log.exception("leaderboard: broadcasting the board of %s failed", day)
            _give_up_key(day)
            if attempt < FLUSH_ATTEMPTS:
                time.sleep(delay())


# --- the entry points ---------------------------------------------------------------------------


def mark_dirty(day: dt.date) -> None:
    """A standing on ``day``'s board may have changed: make sure one flush is coming — on the
    serving loop at once if the day's latest flush began a window ago or more, else when that
    window ends; at once from this thread where no loop serves. Raises the cache's errors (Redis
    away: no live update)."""
    if not cache.add(dirty_key(day), 1, timeout=DIRTY_TIMEOUT):
        return  # a flush is coming: it will see this change
    loop = serving_loop()
    if loop is not None:
        try:
            # (In a context of its own: the flush outlives the request and needs nothing of it.)
            loop.call_soon_threadsafe(_start, day, flush_wait(day), context=contextvars.Context())
            return
        except RuntimeError:  # the loop closed meanwhile
            pass
    publish(day)


def flush_wait(day: dt.date) -> float:
    """Seconds until ``day``'s next flush may begin: 0 if its latest began a window ago or
    more (or never), else the rest of that window."""
    latest = cache.get(flushed_key(day))
    wait = 0.0 if latest is None else float(latest) + delay() - time.time()
    return min(max(wait, 0.0), delay())


def record_later(day: dt.date, game_id: int) -> None:
    """Recording attempt ``game_id`` in ``day``'s Redis sets failed: have the worker tier record
    it again (from SQL, as it then stands) and broadcast the day once it is
    (``leaderboard.tasks.record_again``)."""
    try:
        tasks.record_again.enqueue(day.isoformat(), [game_id])
    except Exception:  # the change is committed: never fail its request
        log.exception(
            "leaderboard: attempt %s is missing from the Redis sets of %s: rebuild them "
            "(manage.py rebuild_board --day %s --force)",
            game_id,
            day,
            day.isoformat(),
        )
