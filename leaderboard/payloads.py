"""What the daily-deal and leaderboard API sends, each shape declared once as a ``TypedDict`` and
built by one function. The API's schema is derived from these declarations
(``core.schema``). The live board's frames, whose rows are these board rows, are
declared in ``leaderboard.live.frames`` and documented in ``docs/api.md``.

A board row never holds a card or a deal code. Rows show an attempt as it stands at ``now``: one
whose day is over is shown closed (``Game.apply_day_end``, in memory: reads never write).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from typing import Annotated, Any, TypedDict

from core.formats import IsoDate, IsoDateTime, iso
from games.clock import utc_today
from games.engine.difficulty import Label
from games.models import Game
from games.payloads import GameDict, Result, Status
from leaderboard.models import DailyDeal
from leaderboard.standings.board import row_game
from leaderboard.standings.order import clock_end, elapsed_between, elapsed_of


class BoardRow(TypedDict):
    rank: Annotated[int | None, "1 for the best; null for an attempt not on the board."]
    player: str
    status: Status
    result: Result
    won: bool
    foundation_cards: Annotated[int, "Cards on the foundations, 1 to 52."]
    actions: Annotated[int, "Every action logged, undos included."]
    time_seconds: Annotated[
        float | None,
        "Server time from the first action to the end (or to now / the day's end while open); "
        "null before the first action.",
    ]
    score: Annotated[int, "Shown only: never part of the order."]
    finished_at: IsoDateTime | None
    game_id: Annotated[int, "For GET /api/games/<id>/record/ (a replay)."]


class AmongRow(BoardRow):
    board_rank: Annotated[int | None, "The attempt's rank on the whole day's board."]


class AmongBoard(TypedDict):
    """A day's board among some players (those I follow and I, a group's members): their
    attempts in the whole board's order, ``rank`` among them, ``board_rank`` in the whole."""

    date: IsoDate
    players: Annotated[
        int, "How many players the board is among (me and whom I follow, a group's members)."
    ]
    count: Annotated[int, "Attempts of these players on the day's board."]
    page: Annotated[int, "Always 1: one page holds them all."]
    pages: Annotated[int, "Always 1."]
    results: Annotated[list[AmongRow], "Their attempts, in rank order."]
    me: Annotated[AmongRow | None, "The viewer's own row among them; null if none."]
    seq: Annotated[int, "The latest sequence number of the day's live stream (/ws/daily/<date>/)."]


class DifficultyDict(TypedDict):
    """How hard a day's deal is, measured before anyone plays it by simulated players who see
    only what a player sees (docs/difficulty.md). Never a card."""

    label: Annotated[
        Label,
        "gentle (the simulated casual player wins 35% of its games or more), moderate (15-35%), "
        "hard (5-15%) or fierce (under 5%).",
    ]
    share: Annotated[float, "The share of the simulated casual player's games won, 0 to 1."]
    cards: Annotated[float, "Its mean number of cards on the foundations, 1 to 52."]


class BoardPage(TypedDict):
    date: IsoDate
    code: Annotated[str | None, "The day's deal code; null until the day is over."]
    par: Annotated[
        int | None,
        "The length of the solver's winning line (not proved shortest); null until the day is "
        "over, and for a day dealt before certification.",
    ]
    solution: Annotated[
        str | None,
        "URL of the solver's winning line as a record (GET /api/daily/<date>/solution/); null "
        "until the day is over, and for a day dealt before certification.",
    ]
    count: Annotated[int, "Attempts on the board (one action or more)."]
    page: int
    pages: int
    results: Annotated[list[BoardRow], "100 rows per page, in rank order."]
    me: Annotated[BoardRow | None, "The viewer's own row, wherever it ranks; null if none."]
    seq: Annotated[int, "The latest sequence number of the day's live stream (/ws/daily/<date>/)."]
    difficulty: Annotated[
        DifficultyDict | None, "How hard the day's deal is; null until it is dealt and measured."
    ]


class TodayDict(TypedDict):
    date: Annotated[IsoDate, "Today, UTC."]
    ends_at: Annotated[IsoDateTime, "When today's deal ends (midnight UTC)."]
    attempt: Annotated[GameDict | None, "My ranked attempt today, or null."]
    code: Annotated[str | None, "Always null: published once the day is over."]
    difficulty: Annotated[
        DifficultyDict | None, "How hard today's deal is; null until it is dealt and measured."
    ]


class DayRow(TypedDict):
    date: IsoDate
    code: Annotated[str, "The day's deal code, public once the day is over."]
    par: Annotated[
        int | None,
        "The length of the solver's winning line (not proved shortest); null for a day dealt "
        "before certification.",
    ]
    players: Annotated[int, "Attempts played (one action or more)."]
    winners: int
    difficulty: Annotated[
        DifficultyDict | None, "How hard the deal was; null for a day dealt before difficulties."
    ]


class PlayerStats(TypedDict):
    played: Annotated[int, "Daily attempts with one action or more."]
    won: int
    win_rate: Annotated[float, "won / played, 0 to 1 (0 when none played)."]
    best_rank: Annotated[
        int | None, "The best rank on a day's board (today's counts as it stands); null if none."
    ]
    most_cards: Annotated[
        int | None, "The most foundation cards of one attempt (52: a win); null if none played."
    ]
    current_streak: Annotated[
        int,
        "Consecutive UTC days played, ending today (or yesterday, if today's deal is not "
        "played yet).",
    ]
    longest_streak: int


class PracticeStats(TypedDict):
    """Over the player's practice games (unranked: any deal, any rules)."""

    played: Annotated[int, "Finished practice games (won or resigned) with one action or more."]
    won: int
    win_rate: Annotated[float, "won / played, 0 to 1 (0 when none played)."]


class HistoryRow(BoardRow):
    date: IsoDate


class FollowCounts(TypedDict):
    """What a player's page says of follows (counted by the social app, which answers the
    leaderboard through ``services.answer_follows``)."""

    following: Annotated[int, "How many players this player follows."]
    followers: Annotated[int, "How many players follow this player."]
    followed_by_me: Annotated[
        bool | None,
        "Whether I follow this player; null when I cannot follow them (not logged in, a guest, "
        "or my own page).",
    ]


class PlayerRating(TypedDict):
    """A player's skill rating (computed by the ratings app, which answers the leaderboard
    through ``services.answer_rating``; docs/ratings.md)."""

    number: Annotated[
        int, "The conservative rating shown: 1000 + 40 × (mu − 3 sigma); 1000 for a new player."
    ]
    uncertainty: Annotated[int, "The rating's uncertainty (one standard deviation, 40 × sigma)."]
    days: Annotated[int, "Settled days that rated the player."]
    provisional: Annotated[bool, "Fewer than 5 days rated: not on the rating board yet."]


class PlayerPage(FollowCounts):
    player: str
    rating: Annotated[PlayerRating | None, "The player's rating; null if never rated."]
    stats: Annotated[PlayerStats, "Over the player's daily attempts only."]
    practice: Annotated[PracticeStats, "Over the player's practice games."]
    count: Annotated[int, "Daily attempts in the history."]
    page: int
    pages: int
    history: Annotated[list[HistoryRow], "Newest first, 30 per page."]


def difficulty(deal: DailyDeal | None) -> DifficultyDict | None:
    """The difficulty of a day's deal as the API shows it, or ``None`` if it has none."""
    measured = deal.measured() if deal is not None else None
    if measured is None:
        return None
    return {
        "label": measured.label,
        "share": round(measured.share, 4),
        "cards": round(measured.cards, 1),
    }


def row(game: Game, rank: int | None, now: dt.datetime) -> BoardRow:
    """An attempt's row on its day's board, as it stands at ``now``."""
    game.apply_day_end(utc_today(now))
    return _row(
        rank,
        game.pk,
        game.owner.get_username(),
        game.status,
        game.result,
        game.score,
        game.ply,
        game.foundation_cards,
        elapsed_of(game, now),
        game.finished_at,
    )


def row_of(
    rank: int | None, game_id: int, day: dt.date, values: Sequence[Any], now: dt.datetime
) -> BoardRow:
    """:func:`row` of the attempt ``game_id`` of ``day`` from its values — those of
    ``standings.board.ROW_VALUES``, in that order, as a query of values gives them — without a
    model instance: a Following view of 500 players builds 500 rows (``row_game``'s instances,
    two a row, took more time than the rest of the rows). Once the day is over, an attempt still
    open stands closed (``Game.apply_day_end``, the one definition of that): such a day's rows
    are built through :func:`row`."""
    if day < utc_today(now):
        return row(row_game(game_id, day, *values), rank, now)
    username, status, day_over, score, ply, cards, started, finished = values
    # (its clock stops as ``order.end_of`` stops a daily attempt's: at its end, or the day's)
    end = finished if finished is not None else _clock_end(day, now)
    elapsed = elapsed_between(started, end)
    return _row(
        rank, game_id, username, status, _result(status, day_over), score, ply, cards, elapsed,
        finished,
    )  # fmt: skip


#: ``order.clock_end``, once for the rows of a board built at one moment.
_clock_end = lru_cache(maxsize=8)(clock_end)


@cache
def _result(status: str, day_over: bool) -> str:
    """``Game.result`` of an attempt with ``status`` and ``day_over``, asked of a ``Game`` once
    for each pair: the definition stays the model's."""
    return Game(status=status, day_over=day_over).result


def _row(
    rank: int | None,
    game_id: int,
    username: str,
    status: str,
    result: str,
    score: int,
    ply: int,
    cards: int,
    elapsed: dt.timedelta | None,
    finished: dt.datetime | None,
) -> BoardRow:
    """The row both :func:`row` and :func:`row_of` give: what it shows of an attempt, once."""
    return {
        "rank": rank,
        "player": username,
        "status": status,  # type: ignore[typeddict-item]
        "result": result,  # type: ignore[typeddict-item]
        "won": status == Game.Status.WON,
        "foundation_cards": cards,
        "actions": ply,
        "time_seconds": None if elapsed is None else round(elapsed.total_seconds(), 3),
        "score": score,
        "finished_at": iso(finished),
        "game_id": game_id,
    }


def rows(games_in_order: Iterable[Game], first_rank: int, now: dt.datetime) -> list[BoardRow]:
    return [row(game, rank, now) for rank, game in enumerate(games_in_order, start=first_rank)]


def history_row(game: Game, rank: int | None, now: dt.datetime) -> HistoryRow:
    assert game.daily_date is not None
    return {"date": game.daily_date.isoformat(), **row(game, rank, now)}
