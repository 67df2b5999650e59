"""Helpers of the leagues tests: attempts played at a chosen moment, days settled, a week's rows
read back whole."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Count, Max, Sum
from django.db.models.functions import Coalesce

from games.clock import day_end
from games.models import Game
from leaderboard.standings import SETTLE, settle_day
from leagues.models import DayPoints, Membership, Week
from tests.leaderboard.helpers import attempt

#: The week of the worked example (docs/leagues.md): ISO week 2030-W25.
MONDAY = dt.date(2030, 6, 17)


def at(day: dt.date, hour: int = 10, second: int = 0) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, hour, 0, second, tzinfo=dt.UTC)


def played(clock: Any, user: User, tokens: Iterable[str], when: dt.datetime) -> Game:
    """``user``'s attempt at ``when``'s daily deal, its actions a second apart from ``when``
    on: two attempts with the same actions played from the same moment have the same result."""
    clock.set(when)
    game: Game = attempt(user, tokens, clock)
    return game


def settle(day: dt.date, late: dt.timedelta = dt.timedelta(0)) -> None:
    """Settle ``day`` as the worker would, once it is due (``late`` after that)."""
    assert settle_day(day, now=day_end(day) + SETTLE + late)


def week_rows(monday: dt.date) -> list[tuple[Any, ...]]:
    """The week's memberships as comparable tuples, by player name: their totals as written at
    the week's close, or, while it is open, summed from their day rows."""
    rows = Membership.objects.filter(week_id=monday)
    if Week.objects.filter(monday=monday, closed_at__isnull=True).exists():
        rows = rows.annotate(
            points_=Coalesce(Sum("day_points__points"), 0),
            days_=Count("day_points"),
            best_=Coalesce(Max("day_points__points"), 0),
        )
        totals = ("points_", "days_", "best_")
    else:
        totals = ("points", "days", "best")
    return sorted(
        rows.values_list(
            "player__username",
            "division__tier",
            "division__number",
            *totals,
            "place",
            "movement",
            "tier_after",
        )
    )


def day_points(monday: dt.date) -> dict[tuple[str, dt.date], int]:
    """Every day row of the week: (player, day) → points."""
    return {
        (name, day): points
        for name, day, points in DayPoints.objects.filter(membership__week_id=monday).values_list(
            "membership__player__username", "day", "points"
        )
    }
