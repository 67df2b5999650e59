"""The latest snapshot of each day's live board: the base of the next update, and what a watcher
that connects receives, so that every socket shares one snapshot per ``seq``.

Only the broadcaster stores one (``leaderboard.live.broadcast``), by compare-and-set on ``seq``
(:func:`swap`): a snapshot replaces the stored one only if its ``seq`` is higher, so the stored
snapshot never goes backwards, whichever process's flush finishes last. With Redis, the snapshot
is a hash of two fields (``seq`` and the frame's JSON) swapped by one Lua script; without Redis
(one process) it is kept in the process's cache under a lock. A read (:func:`latest`) never
stores: with nothing stored, it builds the current snapshot for its caller.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import threading
from typing import Any, cast

from django.core.cache import cache

from core.redis_bounds import FAILURES
from leaderboard import redis_client
from leaderboard.live.frames import SnapshotFrame, snapshot_frame
from leaderboard.models import DailyDeal

log = logging.getLogger(__name__)

#: How long a day's latest snapshot is kept after it was stored, in seconds.
FRAME_TIMEOUT = 2 * 24 * 3600

# KEYS: the day's snapshot hash. ARGV: seq, the frame's JSON, time to live. Stores the frame if
# its seq is higher than the stored one's; returns the frame it replaced ("" if none), or false.
SWAP = """
local old = redis.call('HGET', KEYS[1], 'seq')
if old and tonumber(old) >= tonumber(ARGV[1]) then return false end
local previous = redis.call('HGET', KEYS[1], 'frame') or ''
redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'frame', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return previous
"""

_lock = threading.Lock()


def current_seq(day: dt.date) -> int:
    """The day's latest ``seq`` (0 before its first broadcast)."""
    seq = DailyDeal.objects.filter(date=day).values_list("seq", flat=True).first()
    return seq or 0


def key(day: dt.date) -> str:
    return f"{redis_client.prefix()}:frame:{day.isoformat()}"


def stored(day: dt.date) -> SnapshotFrame | None:
    """The day's latest stored snapshot, if any."""
    if redis_client.enabled():
        text = redis_client.client().hget(key(day), "frame")
        return None if text is None else cast(SnapshotFrame, json.loads(text))
    frame: SnapshotFrame | None = cache.get(key(day))
    return frame


def swap(frame: SnapshotFrame) -> tuple[bool, SnapshotFrame | None]:
    """Store ``frame`` as its day's latest snapshot if its ``seq`` is higher than the stored
    one's. Returns whether it was stored, and the snapshot it replaced (``None`` if there was
    none, or if ``frame`` was not stored)."""
    day = dt.date.fromisoformat(frame["date"])
    if redis_client.enabled():
        text = json.dumps(frame, separators=(",", ":"))
        found: Any = redis_client.client().eval(
            SWAP, 1, key(day), frame["seq"], text, FRAME_TIMEOUT
        )
        if found is None:
            return False, None
        return True, (cast(SnapshotFrame, json.loads(found)) if found else None)
    with _lock:
        previous: SnapshotFrame | None = cache.get(key(day))
        if previous is not None and previous["seq"] >= frame["seq"]:
            return False, None
        cache.set(key(day), frame, FRAME_TIMEOUT)
        return True, previous


def replace(frame: SnapshotFrame) -> None:
    """Store ``frame`` whatever is stored: only for a stored snapshot numbered beyond the day's
    ``seq`` in the database, which is not this database's (the cache outlived it)."""
    day = dt.date.fromisoformat(frame["date"])
    if redis_client.enabled():
        text = json.dumps(frame, separators=(",", ":"))
        redis = redis_client.client()
        redis.hset(key(day), mapping={"seq": frame["seq"], "frame": text})
        redis.expire(key(day), FRAME_TIMEOUT)
        return
    with _lock:
        cache.set(key(day), frame, FRAME_TIMEOUT)


def latest(day: dt.date, now: dt.datetime | None = None) -> SnapshotFrame:
    """The day's latest snapshot, as every watcher that connects now receives it: the one the
    last broadcast stored, or — none stored, one numbered beyond the day's ``seq``, which is
    not this database's (the cache outlived it), or none read because Redis did not answer in
    time — one built now for the current ``seq`` (read from SQL if Redis is away: a watcher
    is never refused for a slow read of its snapshot)."""
    seq = current_seq(day)
    try:
        frame = stored(day)
    except FAILURES as exc:
        log.warning("leaderboard: the stored snapshot of %s was not read (%s): built now", day, exc)
        frame = None
    if frame is not None and frame["seq"] <= seq:
        return frame
    return snapshot_frame(day, seq, now)
