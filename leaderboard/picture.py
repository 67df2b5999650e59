"""The day's picture: how everyone did on a day's deal, in counts only.

For a day, the attempts played (one action or more, as on the board) counted by the number of
cards they have on the foundations — a bar for each number reached, 52 being the wins — with the
real share of wins next to the share the simulated players predicted (the deal's difficulty),
and par once the day is over. The viewer's own attempt is placed in it: its cards, and how many
players placed more and fewer.

It is one SQL aggregate over the day's ``games.models.Game`` rows (at most 52 groups, from the
board's index), kept in the cache: a few seconds while the day runs (the after-daily result card
shows the picture so far), an hour once it is over and settled (it no longer changes). While the
cache's Redis is away the counts are read from the database on every request, as the boards are
(a warning is logged): the picture is never refused for want of a cache. Nothing in it names a
card, so it is served during the day as after it.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Annotated, Final, TypedDict

from django.core.cache import cache
from django.db.models import Avg, Count, Q
from django.utils import timezone
from redis.exceptions import RedisError

from core.formats import IsoDate
from games.clock import day_end, utc_today
from games.models import Game
from games.services import Viewer
from leaderboard import deals, payloads
from leaderboard.payloads import DifficultyDict
from leaderboard.standings import ranked_filters

log = logging.getLogger(__name__)

#: What a cache whose Redis is away raises (redis-py's errors; socket errors below them).
CACHE_ERRORS: Final = (RedisError, OSError)

#: Seconds a day's counts are kept in the cache while the day runs, and once it has settled.
LIVE_TIMEOUT: Final = 5
SETTLED_TIMEOUT: Final = 3600
#: A day's counts settle this long after its end (an action of its last instant may be
#: committing at midnight).
SETTLE: Final = dt.timedelta(minutes=1)


class Bar(TypedDict):
    cards: Annotated[int, "Cards on the foundations, 1 to 52 (52: won)."]
    players: Annotated[int, "Attempts with exactly that many cards."]


class Place(TypedDict):
    """The viewer's attempt in the picture."""

    foundation_cards: int
    won: bool
    ahead: Annotated[int, "Players with more cards on the foundations."]
    behind: Annotated[int, "Players with fewer cards on the foundations."]


class PictureDict(TypedDict):
    date: IsoDate
    final: Annotated[bool, "The day is over: the picture no longer changes."]
    players: Annotated[int, "Attempts played (one action or more)."]
    winners: int
    share: Annotated[float, "winners / players, 0 to 1 (0 when nobody played)."]
    mean_cards: Annotated[float | None, "The players' mean cards on the foundations."]
    bars: Annotated[list[Bar], "One bar per number of cards reached, fewest cards first."]
    predicted: Annotated[
        DifficultyDict | None,
        "The deal's difficulty, measured by simulated players before the day: their share of "
        "wins next to the real one.",
    ]
    par: Annotated[
        int | None,
        "The length of the solver's winning line; null until the day is over, and for a day "
        "dealt before certification.",
    ]
    me: Annotated[Place | None, "The viewer's own attempt, if they played it."]


def _key(day: dt.date) -> str:
    return f"day-picture:{day.isoformat()}"


def counts(day: dt.date, now: dt.datetime | None = None) -> list[Bar]:
    """The day's attempts played, counted by their cards on the foundations (cached)."""
    now = now or timezone.now()
    try:
        found: list[Bar] | None = cache.get(_key(day))
    except CACHE_ERRORS as exc:
        log.warning("day picture of %s read from the database: the cache is away (%s)", day, exc)
        found = None
    if found is not None:
        return found
    rows = (
        Game.objects.filter(*ranked_filters(), daily_date=day)
        .values("foundation_cards")
        .annotate(players=Count("id"))
        .order_by("foundation_cards")
    )
    found = [{"cards": r["foundation_cards"], "players": r["players"]} for r in rows]
    settled = now >= day_end(day) + SETTLE
    try:
        cache.set(_key(day), found, SETTLED_TIMEOUT if settled else LIVE_TIMEOUT)
    except CACHE_ERRORS as exc:
        log.warning("day picture of %s not cached: the cache is away (%s)", day, exc)
    return found


def results(days: list[dt.date]) -> dict[dt.date, tuple[int, int, float | None]]:
    """For each of ``days``: its attempts played, their wins, and their mean foundation cards
    (``None`` when nobody played). One query."""
    rows = (
        Game.objects.filter(*ranked_filters(), daily_date__in=days)
        .values("daily_date")
        .annotate(
            players=Count("id"),
            winners=Count("id", filter=Q(status=Game.Status.WON)),
            cards=Avg("foundation_cards"),
        )
    )
    found = {
        r["daily_date"]: (r["players"], r["winners"], r["cards"])
        for r in rows
        if r["daily_date"] is not None
    }
    return {day: found.get(day, (0, 0, None)) for day in days}


def place(bars: list[Bar], game: Game | None) -> Place | None:
    """Where ``game`` (an attempt of the day, or ``None``) stands among ``bars``."""
    if game is None or not game.ply:
        return None
    cards = game.foundation_cards
    return {
        "foundation_cards": cards,
        "won": game.status == Game.Status.WON,
        "ahead": sum(bar["players"] for bar in bars if bar["cards"] > cards),
        "behind": sum(bar["players"] for bar in bars if bar["cards"] < cards),
    }


def picture(
    day: dt.date, viewer: Viewer | None = None, now: dt.datetime | None = None
) -> PictureDict:
    """The day's picture as ``viewer`` sees it (their own attempt placed in it)."""
    now = now or timezone.now()
    bars = counts(day, now)
    players = sum(bar["players"] for bar in bars)
    winners = sum(bar["players"] for bar in bars if bar["cards"] == 52)
    total = sum(bar["cards"] * bar["players"] for bar in bars)
    deal = deals.stored(day)
    final = day < utc_today(now)
    mine = None
    if viewer is not None and viewer.is_authenticated:
        mine = Game.objects.filter(owner_id=viewer.pk, kind=Game.Kind.DAILY, daily_date=day).first()
    return {
        "date": day.isoformat(),
        "final": final,
        "players": players,
        "winners": winners,
        "share": round(winners / players, 4) if players else 0.0,
        "mean_cards": round(total / players, 1) if players else None,
        "bars": bars,
        "predicted": payloads.difficulty(deal),
        "par": deal.par if final and deal is not None else None,
        "me": place(bars, mine),
    }
