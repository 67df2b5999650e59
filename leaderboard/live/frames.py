"""The live board's frames: a snapshot of the top of a day's board, and the update from one
``seq`` to the next, which names the rows that changed by player, never by position.

An update turns the top of ``seq - 1`` into the top of ``seq`` (``leaderboard.live.model`` applies
it, as the browser does): the rows that changed or entered (``rows``: "this player's row is now
this, at this rank") and the players who left the top (``left``); every other row keeps its place
among the others and shifts by itself. Which rows are "the others" is the largest set that keeps
its order from one top to the next (a longest increasing subsequence), so a row that moves is the
one row sent, however many it passes: a newcomer entering at rank 1 of a full top is one row in
``rows`` and one name in ``left``, a frame of a few hundred bytes.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_left
from typing import Annotated, Literal, NotRequired, TypedDict

from django.utils import timezone

from core.formats import IsoDate, IsoDateTime, iso
from leaderboard import payloads, standings
from leaderboard.payloads import BoardRow


class SnapshotFrame(TypedDict):
    """The first frame of ``/ws/daily/<date>/`` (and the answer to a resync): the top of the board
    as it stood at ``seq``."""

    type: Literal["snapshot"]
    date: IsoDate
    seq: Annotated[int, "The stream's number of the board these rows show."]
    at: Annotated[IsoDateTime, "When the rows' times were taken (open attempts' times run on)."]
    count: Annotated[int, "Attempts on the board."]
    results: Annotated[list[BoardRow], "The top 100 rows, in rank order."]
    now: NotRequired[Annotated[IsoDateTime, "When the server sent the frame (a snapshot only)."]]


class UpdateFrame(TypedDict):
    """A change of the top of the board, from ``seq - 1`` to ``seq``, by player: the rows that
    changed or entered, each at its rank, and the players who left the top; the rows not named
    keep their order and shift between them (an open attempt's running time alone is no change)."""

    type: Literal["update"]
    date: IsoDate
    seq: int
    at: IsoDateTime
    count: int
    size: Annotated[int, "How many rows the top holds now (at most 100)."]
    rows: Annotated[list[BoardRow], "Each player's row that changed or entered, at its rank."]
    left: Annotated[list[str], "The players whose rows left the top."]
    full: Annotated[bool, "The rows are the whole top: apply them to any earlier board."]


def snapshot_frame(day: dt.date, seq: int, now: dt.datetime | None = None) -> SnapshotFrame:
    """The frame of the day's board numbered ``seq``: its top rows and attempt count at ``now``
    (take ``seq`` before calling: the rows are then at least as fresh as it)."""
    now = now or timezone.now()
    board = standings.board(day, now)
    return {
        "type": "snapshot",
        "date": day.isoformat(),
        "seq": seq,
        "at": iso(now) or "",
        "count": board.count,
        "results": payloads.rows(standings.page(board, 1), 1, now),
    }


def same_row(old: BoardRow, new: BoardRow) -> bool:
    """Whether a watcher that holds ``old`` needs nothing to hold ``new`` (wherever either
    ranks): the same attempt with the same values. An open attempt's time runs on by itself (the
    watcher counts it), so its ``time_seconds`` alone is no change."""
    if {**old, "rank": None} == {**new, "rank": None}:
        return True
    if old["status"] != "in_progress" or new["status"] != "in_progress":
        return False
    return {**old, "rank": None, "time_seconds": None} == {
        **new,
        "rank": None,
        "time_seconds": None,
    }


def _in_order(positions: list[int]) -> set[int]:
    """The indexes of a longest increasing subsequence of ``positions`` (distinct numbers)."""
    tails: list[int] = []  # tails[k]: the smallest last value of an increasing run of k + 1
    ends: list[int] = []  # ends[k]: the index of that value
    before: list[int] = []  # before[i]: the index before i in its run, or -1
    for i, value in enumerate(positions):
        k = bisect_left(tails, value)
        if k == len(tails):
            tails.append(value)
            ends.append(i)
        else:
            tails[k], ends[k] = value, i
        before.append(ends[k - 1] if k else -1)
    kept: set[int] = set()
    i = ends[-1] if ends else -1
    while i >= 0:
        kept.add(i)
        i = before[i]
    return kept


def update_frame(previous: SnapshotFrame | None, current: SnapshotFrame) -> UpdateFrame:
    """The update that turns the top of ``previous`` into that of ``current``, by player (see the
    module). Without the previous ``seq``'s board to compare with, every row (``full``)."""
    base = None
    if previous is not None and (previous["date"], previous["seq"]) == (
        current["date"],
        current["seq"] - 1,
    ):
        base = previous["results"]
    rows = current["results"]
    if base is None:
        changed, left = list(rows), []
    else:
        was = {row["player"]: (i, row) for i, row in enumerate(base)}
        now_in = {row["player"] for row in rows}
        # The rows that are unchanged, with their places in the previous top, in today's order:
        # the longest run of them still in the previous order stays put; the rest are sent.
        unchanged = [
            (j, was[row["player"]][0])
            for j, row in enumerate(rows)
            if row["player"] in was and same_row(was[row["player"]][1], row)
        ]
        kept = {unchanged[k][0] for k in _in_order([i for _, i in unchanged])}
        changed = [row for j, row in enumerate(rows) if j not in kept]
        left = [row["player"] for row in base if row["player"] not in now_in]
    return {
        "type": "update",
        "date": current["date"],
        "seq": current["seq"],
        "at": current["at"],
        "count": current["count"],
        "size": len(rows),
        "rows": changed,
        "left": left,
        "full": base is None,
    }
