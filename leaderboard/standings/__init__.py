"""A day's standings: one definition of the order, several stores that answer it alike.

- ``order`` — the one definition: which attempts are ranked (``RANKED``) and the standing key
  (``Standing``, part by part), from which the SQL order, the Redis members and the Lua that
  reads them are derived;
- ``sql`` — the board read from SQL, the truth (``SqlBoard``);
- ``sets`` — the board kept in Redis sorted sets, a cache of SQL followed after every commit and
  rebuilt from SQL when missing (``RedisBoard``);
- ``settled`` — a past day's final ranks, written once by the job that settles it
  (``SettledBoard``).

Each is a :class:`~leaderboard.standings.board.Board`; :func:`board` chooses the one that answers a
day at a moment, and every reader (the REST board, the live snapshots, the players' pages) goes
through it. tests/leaderboard/test_standings.py checks on random days full of ties that they
agree row for row.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable

from django.utils import timezone

from games.clock import day_end
from games.models import Game
from leaderboard.standings import sets, settled
from leaderboard.standings.board import PAGE_SIZE, ROW_FIELDS, SETTLE, Board, page
from leaderboard.standings.order import is_ranked, ranked_filters
from leaderboard.standings.settled import (
    games_with_final_ranks,
    percentiles,
    settle_day,
    settle_due,
)
from leaderboard.standings.sql import SqlBoard, attempts

log = logging.getLogger(__name__)

__all__ = [
    "PAGE_SIZE",
    "ROW_FIELDS",
    "SETTLE",
    "Board",
    "SqlBoard",
    "attempts",
    "board",
    "games_with_final_ranks",
    "is_ranked",
    "needs_rebuild",
    "page",
    "percentiles",
    "rank_of",
    "ranks_of",
    "ranked_filters",
    "settle_day",
    "settle_due",
]


def board(day: dt.date, now: dt.datetime) -> Board:
    """The day's board at ``now``: a settled day's final ranks; else the day's Redis sets when
    Redis is configured and they are ready; else — while they are being built, or Redis is
    away — SQL."""
    found: Board | None = settled.board(day, now)
    if found is None:
        found = sets.board(day, now)
    return found if found is not None else SqlBoard(day, now)


def needs_rebuild(day: dt.date, now: dt.datetime | None = None) -> bool:
    """Whether ``day``'s Redis sets should be built from SQL (by the worker tier, or
    ``manage.py rebuild_board``): Redis is configured, the day is not over, and its sets are not
    ready. Meanwhile its board is read from SQL."""
    if not sets.enabled() or (now or timezone.now()) >= day_end(day):
        return False
    try:
        return not sets.ready(day)
    except Exception:  # Redis away: nothing to build into
        log.warning("leaderboard: Redis is away, the sets of %s wait", day, exc_info=True)
        return False


def rank_of(game: Game, now: dt.datetime) -> int | None:
    """``game``'s rank on its day's board, or ``None`` if it is not on it."""
    if game.daily_date is None:
        return None
    return board(game.daily_date, now).rank_of(game)


def ranks_of(games: Iterable[Game], now: dt.datetime) -> dict[int, int | None]:
    """The rank of each of ``games`` (by id): the final rank loaded with it when its day is
    settled (``settled.games_with_final_ranks``), else its rank on its day's board, one board per
    day."""
    ranks: dict[int, int | None] = {}
    boards: dict[dt.date, Board] = {}
    for game in games:
        if game.pk in ranks:
            continue
        final = settled.final_rank_of(game)
        if final is not None:
            ranks[game.pk] = final.rank
        elif game.daily_date is None or not is_ranked(game):
            ranks[game.pk] = None
        else:
            day = game.daily_date
            if day not in boards:
                boards[day] = board(day, now)
            ranks[game.pk] = boards[day].rank_of(game)
    return ranks
