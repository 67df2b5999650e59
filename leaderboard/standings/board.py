"""What every board answers (:class:`Board`), whichever store it reads."""

from __future__ import annotations

import datetime as dt
from functools import cache
from typing import Protocol, TypeVar

from django.contrib.auth.models import User
from django.db.models import DEFERRED, Model

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

M = TypeVar("M", bound=Model)


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
    for ``payloads.row``) and every other deferred, its owner known by username alone. The Redis
    board and a settled day's board build their rows with it, as a query builds its rows."""
    game = _loaded(
        Game,
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
    # (the owner's id is not known, and not read: a board row is shown, never saved)
    game.owner = _loaded(User, id=None, username=username)
    return game


def _loaded(model: type[M], **values: object) -> M:
    """An instance of ``model`` with ``values`` and every other field deferred, built by
    ``Model.from_db`` — Django's hook for building an instance from a database's values, which
    queries use — from a value for every column, deferred or not, in the columns' order. That
    is ``Model.__init__``'s fast way (positional values): a row with its owner in ~14 µs, where
    keyword arguments take ~50 µs, and a hundred such rows more than all the rest of a page."""
    columns = _columns(model)
    return model.from_db(None, columns, [values.get(name, DEFERRED) for name in columns])


@cache
def _columns(model: type[Model]) -> tuple[str, ...]:
    """``model``'s columns in the order ``Model.from_db`` takes their values (as the example of
    ``from_db`` in Django's documentation reads them)."""
    return tuple(field.attname for field in model._meta.concrete_fields)


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
