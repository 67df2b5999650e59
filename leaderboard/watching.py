"""The games to watch (``GET /api/watch/``, the /watch/ page): the games being played now, and the
day's best finished games — the practice games finished today and yesterday's best daily
attempts, best first by the board's order.

It lives beside the boards because "best" is theirs: the order of a day's board is defined once
(``leaderboard.standings.order``), and the practice games are put in the part of it that any
game has (its static parts: won first, more cards, fewer actions), then who finished first;
yesterday's attempts are the top of yesterday's board as the board reads it (its settled final
ranks, else Redis, else SQL). The games being played now are the games app's
(``games.watch.playing``: most recently active first).

Every list shows only the games the viewer may watch — ``games.services.can_watch``, asked of each
game, never restated — and never a guest's (a guest is on no board, and their games are listed
nowhere). A list shows a game's player, kind, result and cards home, never a card.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Annotated, TypedDict

from django.db.models import Case, IntegerField, QuerySet, Value, When
from django.utils import timezone

from core.formats import IsoDate, IsoDateTime, iso
from games import services, watch
from games.clock import day_end, utc_today
from games.models import Game
from games.payloads import Kind, Result, Status
from games.services import Viewer
from leaderboard import standings
from leaderboard.standings.order import STATIC, won_is

#: Games in the list of games being played now.
PLAYING = 20
#: Games in each list of the day's best.
BEST = 10
#: The most practice games finished today read to find the best that the viewer may watch.
BEST_READ = 100


class WatchGame(TypedDict):
    """A game in a list of games to watch: whose, what kind, how far it got. Never a card."""

    id: Annotated[int, "The game: its page is /games/<id>/replay/ (live while it is played)."]
    player: str
    kind: Kind
    daily_date: Annotated[IsoDate | None, "The UTC day of a daily attempt."]
    status: Status
    result: Result
    foundation_cards: Annotated[int, "Cards on the foundations, 1 to 52."]
    actions: Annotated[int, "Every action logged, undos included."]
    at: Annotated[
        IsoDateTime | None,
        "When it was last played (a game being played) or when it ended (a finished game).",
    ]


class WatchLists(TypedDict):
    """The games to watch: those being played now, and the day's best finished games."""

    playing: Annotated[
        list[WatchGame],
        "Games in progress played within the last 15 minutes, most recently active first "
        f"(at most {PLAYING}).",
    ]
    practice: Annotated[
        list[WatchGame],
        "Practice games finished today (UTC), best first: won, then more cards home, fewer "
        f"actions, then who finished first (at most {BEST}).",
    ]
    daily: Annotated[
        list[WatchGame],
        f"The best daily attempts of the day before, in the order of its board (at most {BEST}).",
    ]
    daily_date: Annotated[IsoDate, "The day of those daily attempts: yesterday (UTC)."]


def watch_game(game: Game, at: dt.datetime | None, today: dt.date) -> WatchGame:
    game.apply_day_end(today)
    return {
        "id": game.pk,
        "player": game.owner.get_username(),
        "kind": game.kind,  # type: ignore[typeddict-item]
        "daily_date": game.daily_date.isoformat() if game.daily_date else None,
        "status": game.status,  # type: ignore[typeddict-item]
        "result": game.result,  # type: ignore[typeddict-item]
        "foundation_cards": game.foundation_cards,
        "actions": game.ply,
        "at": iso(at),
    }


def best_first(games: QuerySet[Game]) -> QuerySet[Game]:
    """``games`` in the order of the board's static parts (``order.STATIC``: won first, more
    cards, fewer actions), then who finished first."""
    won_first = Case(When(won_is(1), then=Value(1)), default=Value(0), output_field=IntegerField())
    parts = [f"{'-' if part.descending else ''}{part.sql}" for part in STATIC]
    return games.annotate(won_first=won_first).order_by(*parts, "finished_at", "id")


def _watchable(viewer: Viewer, games: Iterable[Game], today: dt.date, count: int) -> list[Game]:
    shown: list[Game] = []
    for game in games:
        if services.can_watch(viewer, game, today):
            shown.append(game)
            if len(shown) == count:
                break
    return shown


def practice_today(viewer: Viewer, now: dt.datetime) -> list[Game]:
    """The practice games finished today that ``viewer`` may watch, best first."""
    today = utc_today(now)
    since = day_end(today - dt.timedelta(days=1))
    finished = best_first(
        Game.objects.filter(
            kind=Game.Kind.PRACTICE, finished_at__gte=since, owner__guest__isnull=True
        ).select_related("owner")
    )
    return _watchable(viewer, finished[:BEST_READ], today, BEST)


def daily_best(viewer: Viewer, day: dt.date, now: dt.datetime) -> list[Game]:
    """The top of ``day``'s board that ``viewer`` may watch (a day over: anyone may)."""
    top = standings.board(day, now).rows(0, BEST)
    return _watchable(viewer, top, utc_today(now), BEST)


def watch_lists(viewer: Viewer, now: dt.datetime | None = None) -> WatchLists:
    now = now or timezone.now()
    today = utc_today(now)
    yesterday = today - dt.timedelta(days=1)
    return {
        "playing": [
            watch_game(game, game.active_at, today) for game in watch.playing(viewer, PLAYING)
        ],
        "practice": [
            watch_game(game, game.finished_at, today) for game in practice_today(viewer, now)
        ],
        "daily": [
            watch_game(game, game.finished_at, today) for game in daily_best(viewer, yesterday, now)
        ],
        "daily_date": yesterday.isoformat(),
    }
