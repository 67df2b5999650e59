"""What every board answers (:class:`Board`), whichever store it reads."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from games.models import Game

#: Rows per page of a board (and in a live snapshot).
PAGE_SIZE = 100

#: The columns a board row needs; nothing else of a Game is read (above all not its cached views).
ROW_FIELDS = (
    "id",
    "owner__username",
    "kind",
    "daily_date",
    "status",
    "day_over",
    "score",
    "ply",
    "foundation_cards",
    "started_at",
    "finished_at",
)

#: How long after its end a day's attempts may still change (an action sent in the day's last
#: instant may still be committing at midnight): from then on the day can be settled.
SETTLE = dt.timedelta(minutes=1)


class Board(Protocol):
    """One day's board as it stands at ``now``: counts, rows in rank order, ranks. Every
    implementation gives the same answers (tests/leaderboard/test_standings.py)."""

    day: dt.date
    now: dt.datetime

    @property
    def count(self) -> int:
        """The ranked attempts of the day."""
        ...

    def rows(self, start: int, stop: int) -> list[Game]:
        """The attempts at positions ``start`` to ``stop - 1`` (0-based), in rank order, with
        :data:`ROW_FIELDS` loaded."""
        ...

    def rank_of(self, game: Game) -> int | None:
        """``game``'s rank (1 for the best), or ``None`` if it is not on this board."""
        ...


def page(board: Board, number: int) -> list[Game]:
    """The attempts of page ``number`` (1-based) of ``board``, in rank order."""
    return board.rows((number - 1) * PAGE_SIZE, number * PAGE_SIZE)
