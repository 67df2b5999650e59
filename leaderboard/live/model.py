"""The watcher's model of a live board: what a client holds after each frame, step for step as the
browser's ``frontend/static/frontend/js/live.js`` (``applyUpdate``) does it. The tests apply random
frame sequences with it and check that it ends where a fresh snapshot is — and that the page's
script, given the same frames, holds the same rows (tests/frontend/test_leaderboard_page.py); the
leaderboard benchmark and the fault scenarios follow their sockets' boards with it.

An update names the rows by player, never by position: each row of ``rows`` is "this player's row
is now this, at this rank"; each name of ``left`` is "this player left the top". Applying it:

1. drop the players of ``left`` and of ``rows`` from the rows held — the others keep their order;
2. put each row of ``rows`` at its rank, best rank first, so the rows between shift;
3. the top then has ``size`` rows, ranked 1, 2, … in order.

An open attempt's time runs on by itself: a row held across an update has its ``time_seconds``
moved on to the update's ``at``. A ``full`` update carries the whole top instead.

Pure Python (no Django), so that tools without Django — the fault scenarios' watcher — use it too.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from leaderboard.live.frames import SnapshotFrame, UpdateFrame


class NotFollowing(ValueError):
    """The update is not one of the board held: the client resyncs."""


def _moved_on(row: dict[str, Any], seconds: float) -> dict[str, Any]:
    if row["status"] == "in_progress" and row["time_seconds"] is not None:
        return {**row, "time_seconds": row["time_seconds"] + seconds}
    return row


def apply_rows(held: list[dict[str, Any]], update: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows a watcher that holds ``held`` holds after ``update`` (live.js's ``applyUpdate``).
    ``NotFollowing`` if the update cannot be of these rows (a rank past the rows, too few)."""
    if update["full"]:
        return [dict(row) for row in update["rows"]]
    gone = set(update["left"]) | {row["player"] for row in update["rows"]}
    rows = [row for row in held if row["player"] not in gone]
    for row in sorted(update["rows"], key=lambda r: r["rank"]):
        if not 1 <= row["rank"] <= len(rows) + 1:
            raise NotFollowing(f"a row at rank {row['rank']} after {len(rows)} rows")
        rows.insert(row["rank"] - 1, row)
    if len(rows) < update["size"]:
        raise NotFollowing(f"{len(rows)} rows where the update has {update['size']}")
    return [{**row, "rank": rank} for rank, row in enumerate(rows[: update["size"]], start=1)]


def apply_update(frame: SnapshotFrame, update: UpdateFrame) -> SnapshotFrame:
    """The snapshot a watcher that holds ``frame`` holds after ``update``, its open attempts'
    times moved on to the update's ``at``. ``NotFollowing`` if ``update`` does not follow
    ``frame`` (its ``seq`` is not the next, and it is not ``full``)."""
    if not update["full"]:
        if (update["date"], update["seq"]) != (frame["date"], frame["seq"] + 1):
            raise NotFollowing(f"update {update['seq']} does not follow board {frame['seq']}")
        seconds = (
            dt.datetime.fromisoformat(update["at"]) - dt.datetime.fromisoformat(frame["at"])
        ).total_seconds()
        held = [_moved_on(dict(row), seconds) for row in frame["results"]]
    else:
        held = []
    rows: Any = apply_rows(held, dict(update))
    return {
        "type": "snapshot",
        "date": update["date"],
        "seq": update["seq"],
        "at": update["at"],
        "count": update["count"],
        "results": rows,
    }
