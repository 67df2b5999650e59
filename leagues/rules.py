"""The leagues' rules, as pure functions of their numbers (docs/leagues.md): ISO weeks, a ranked
day's points, a division's size and order, and who goes up or down. ``leagues.services`` applies
them to the database; ``leagues.payloads`` shows them."""

from __future__ import annotations

import datetime as dt
import math
import re

from django.utils.translation import gettext as _

from games.errors import GameError
from leagues.models import HIGHEST, LOWEST, Movement

#: The most players a division holds.
DIVISION_SIZE = 30
#: The most players of a division who go up (and as many down) at the week's end.
ZONE = 5
#: Points of a ranked day: BASE for the day's last, BASE + SPAN for its best.
BASE = 10
SPAN = 90
#: The order of a division's table: points, then days played, then the best single day, then
#: the player's id (the earlier account first).
ORDER = ("-points", "-days", "-best", "player_id")
#: :data:`ORDER` in SQL, of columns of the memberships' table.
ORDER_SQL = ", ".join(f"{key[1:]} DESC" if key.startswith("-") else key for key in ORDER)

_WEEK = re.compile(r"(\d{4})-W(\d{2})")


def week_of(day: dt.date) -> dt.date:
    """The Monday of ``day``'s ISO week."""
    return day - dt.timedelta(days=day.weekday())


def week_label(monday: dt.date) -> str:
    """An ISO week as the API writes it: ``2030-W24``."""
    year, week, _day = monday.isocalendar()
    return f"{year}-W{week:02d}"


def week_days(monday: dt.date) -> list[dt.date]:
    """The seven days of the week of ``monday``, Monday first."""
    return [monday + dt.timedelta(days=k) for k in range(7)]


def parse_week(text: str) -> dt.date:
    """The Monday of the ISO week ``text`` (``2026-W49``); ``invalid_week`` for anything else,
    a week number the year has not (``2026-W53``, ``2026-W60``) included."""
    found = _WEEK.fullmatch(text)
    if found is not None:
        try:
            return dt.date.fromisocalendar(int(found[1]), int(found[2]), 1)
        except ValueError:
            pass
    raise GameError(
        "invalid_week",
        _(
            "“%(week)s” is not a week: write an ISO week as the year, -W and the week's number, "
            "like %(example)s."
        )
        % {"week": text[:20], "example": "2026-W49"},
    )


#: The allowance added before rounding down: the percentile of a day of n ranked attempts is a
#: fraction of n − 1, so SPAN × percentile is at least 1 / (2(n − 1)) away from a half unless it
#: is one; the allowance only keeps a half computed a hair low (floating point) from rounding
#: down.
_NUDGE = 1e-9


def points_for(percentile: float) -> int:
    """A ranked day's points: ``BASE + SPAN × percentile``, rounded half up."""
    return BASE + math.floor(SPAN * percentile + 0.5 + _NUDGE)


#: :func:`points_for` in SQL (PostgreSQL and SQLite), of the column ``{percentile}``: how the
#: worker writes a day's points, in one statement.
POINTS_SQL = f"CAST({BASE} + FLOOR({SPAN} * {{percentile}} + {0.5 + _NUDGE!r}) AS INTEGER)"


def zone_size(members: int) -> int:
    """How many of a division of ``members`` go up, and as many down: a third, rounded down,
    and at most :data:`ZONE` (30 members: 5; 14: 4; 2: none)."""
    return min(ZONE, members // 3)


def movement_of(place: int, members: int, tier: int) -> Movement:
    """Where ``place`` (1 first) of a division of ``members`` in ``tier`` goes: none above the
    highest tier, none below the lowest."""
    zone = zone_size(members)
    if place <= zone and tier < HIGHEST:
        return Movement.UP
    if place > members - zone and tier > LOWEST:
        return Movement.DOWN
    return Movement.STAY


#: :func:`zone_size` and :func:`movement_of` in SQL (PostgreSQL and SQLite), of the columns
#: ``{place}``, ``{members}`` and ``{tier}``: how the worker closes a week, in one statement
#: (tests/leagues/test_rules.py checks that both agree, place by place).
ZONE_SQL = f"(CASE WHEN {{members}} / 3 < {ZONE} THEN {{members}} / 3 ELSE {ZONE} END)"
MOVEMENT_SQL = (
    f"(CASE WHEN {{place}} <= {ZONE_SQL} AND {{tier}} < {int(HIGHEST)} THEN {int(Movement.UP)} "
    f"WHEN {{place}} > {{members}} - {ZONE_SQL} AND {{tier}} > {int(LOWEST)} "
    f"THEN {int(Movement.DOWN)} ELSE {int(Movement.STAY)} END)"
)
