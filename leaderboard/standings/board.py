"""What every board answers (:class:`Board`), whichever store it reads."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from django.contrib.auth.models import User
from django.db.models.base import ModelState

from games.models import Game

#: Rows per page of a board (and in a live snapshot).
PAGE_SIZE = 100

#: The values :func:`row_game` takes after the game's id and day, as query lookups.
ROW_VALUES = (
    "owner__username",
    "status",
    "day_over",
    "score",
    "ply",
    "foundation_cards",
    "started_at",
    "finished_at",
)

#: The columns a board row needs; nothing else of a Game is read (above all not its cached views).
ROW_FIELDS = ("id", "kind", "daily_date", *ROW_VALUES)

#: How long after its end a day's attempts may still change (an action sent in the day's last
#: instant may still be committing at midnight): from then on the day can be settled.
SETTLE = dt.timedelta(minutes=1)


def row_game(
    game_id: int,
    day: dt.date,
    username: str,
    status: str,
    day_over: bool,
    score: int,
    ply: int,
    cards: int,
    started: dt.datetime | None,
    finished: dt.datetime | None,
) -> Game:
    """A ranked attempt as a ``Game`` with only the fields a board row reads (:data:`ROW_FIELDS`,
    for ``payloads.row``), its owner's username with it. Built as ``Model.from_db`` builds a row
    with deferred fields, without ``Model.__init__``, which costs more than all the rest of a
    page: the Redis board and a settled day's board build their rows with it."""
    owner = User.__new__(User)
    owner._state = ModelState()
    owner.__dict__["username"] = username
    game = Game.__new__(Game)
    game._state = ModelState()
    game.__dict__.update(
        id=game_id,
        kind=Game.Kind.DAILY,
        daily_date=day,
        status=status,
        day_over=bool(day_over),
        score=score,
        ply=ply,
        foundation_cards=cards,
        started_at=started,
        finished_at=finished,
    )
    game._state.fields_cache["owner"] = owner
    return game


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
