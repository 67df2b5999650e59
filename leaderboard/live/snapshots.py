"""The latest snapshot of each day's live board, kept in the shared cache (Redis when configured):
the base of the next update, and what a watcher that connects receives, so that every socket
shares one snapshot per ``seq``."""

from __future__ import annotations

import datetime as dt

from django.core.cache import cache

from leaderboard import redis_client
from leaderboard.live.frames import SnapshotFrame, snapshot_frame
from leaderboard.models import DailyDeal

#: How long a day's latest snapshot frame is kept in the cache, in seconds.
FRAME_TIMEOUT = 2 * 24 * 3600


def current_seq(day: dt.date) -> int:
    """The day's latest ``seq`` (0 before its first broadcast)."""
    seq = DailyDeal.objects.filter(date=day).values_list("seq", flat=True).first()
    return seq or 0


def frame_key(day: dt.date) -> str:
    return f"board-frame:{redis_client.database_tag()}:{day.isoformat()}"


def stored(day: dt.date) -> SnapshotFrame | None:
    """The day's latest snapshot frame in the shared cache, if any."""
    frame: SnapshotFrame | None = cache.get(frame_key(day))
    return frame


def store(frame: SnapshotFrame) -> None:
    cache.set(frame_key(dt.date.fromisoformat(frame["date"])), frame, FRAME_TIMEOUT)


def latest(day: dt.date, now: dt.datetime | None = None) -> SnapshotFrame:
    """The day's latest snapshot frame, as every watcher that connects now receives it: the one
    the last broadcast stored, or one built now for the current ``seq`` (and stored, unless
    another process stored one first: then that one). A stored frame numbered beyond the day's
    ``seq`` is not this database's (the cache outlived it): it is replaced."""
    seq = current_seq(day)
    frame = stored(day)
    if frame is not None and frame["seq"] <= seq:
        return frame
    fresh = snapshot_frame(day, seq, now)
    if frame is not None:
        store(fresh)
    elif not cache.add(frame_key(day), fresh, FRAME_TIMEOUT):
        return stored(day) or fresh
    return fresh
