"""Milestones: moments of a player's record shown on their page, each earned once, on a day.

- ``first_win``: the first ranked daily attempt won;
- ``streak_7``, ``streak_30``, ``streak_100``: 7, 30 and 100 consecutive UTC days with a ranked
  daily attempt (as ``leaderboard.services.streaks`` counts them);
- ``promotion``, ``top_tier``: a league promotion and reaching its top tier, awarded by the
  leagues app when a week closes (:func:`award_each`).

Nothing farmable earns one: each comes from ranked daily attempts (one a day) or from the
leagues, never from practice games or a repeated action. The first four are awarded by the
worker tier as it adds each settled day to the standings (``leaderboard.periods``). A milestone
is never taken back: a later staff decision on an attempt leaves the day it was earned as it
was (docs/standings.md).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Annotated, Any, TypedDict

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import QuerySet
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from core.formats import IsoDate
from leaderboard.models import Milestone

Kind = Milestone.Kind

#: The streak milestones, by the run of days that earns them.
STREAKS: dict[int, str] = {7: Kind.STREAK_7, 30: Kind.STREAK_30, 100: Kind.STREAK_100}

#: Each kind's title, in the reader's language.
TITLES: dict[str, Promise] = {
    Kind.FIRST_WIN: _("First win"),
    Kind.STREAK_7: _("7 days in a row"),
    Kind.STREAK_30: _("30 days in a row"),
    Kind.STREAK_100: _("100 days in a row"),
    Kind.PROMOTION: _("Promoted"),
    Kind.TOP_TIER: _("Top tier"),
}

#: The order of the kinds on a player's page, for milestones earned on one day.
_ORDER = {kind: index for index, kind in enumerate(Kind.values)}


def award(user_id: int, kind: str, day: dt.date) -> bool:
    """Award ``kind`` to player ``user_id``, earned on ``day``, unless they have it already
    (idempotent: the earlier day stays). Returns whether it was awarded now. ``ValueError`` for
    an unknown kind."""
    if kind not in _ORDER:
        raise ValueError(f"unknown milestone kind {kind!r}")
    _found, created = Milestone.objects.get_or_create(
        user_id=user_id, kind=kind, defaults={"day": day}
    )
    return created


def award_many(earned: Iterable[tuple[int, str]], day: dt.date) -> None:
    """Award each ``(user_id, kind)`` of ``earned``, earned on ``day``, in one statement; those
    a player has already are left as they are."""
    Milestone.objects.bulk_create(
        [Milestone(user_id=user_id, kind=kind, day=day) for user_id, kind in earned],
        ignore_conflicts=True,
    )


def award_each(players: QuerySet[Any, Any], kind: str, day: dt.date) -> None:
    """Award ``kind``, earned on ``day``, to every player whose user id ``players`` (a query of
    that one column) gives, in one ``INSERT ... SELECT``, however many they are; those who have
    it already keep theirs. ``ValueError`` for an unknown kind."""
    if kind not in _ORDER:
        raise ValueError(f"unknown milestone kind {kind!r}")
    select, params = players.query.sql_with_params()
    table = connection.ops.quote_name(Milestone._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (user_id, kind, day) SELECT p.*, %s, %s FROM ({select}) p "
            "WHERE TRUE ON CONFLICT DO NOTHING",
            [kind, day, *params],
        )


class MilestoneDict(TypedDict):
    kind: Annotated[
        str,
        "One of first_win; streak_7, streak_30, streak_100 (days in a row with a ranked daily "
        "attempt); promotion and top_tier (the leagues).",
    ]
    title: Annotated[str, "The milestone's name in the request's language."]
    day: Annotated[IsoDate, "The UTC day it was earned."]


class MilestonesPage(TypedDict):
    player: str
    milestones: Annotated[list[MilestoneDict], "Every milestone earned, oldest first."]


def of(user: User) -> MilestonesPage:
    """``user``'s milestones, oldest first (one query, at most one row per kind)."""
    found = sorted(
        Milestone.objects.filter(user=user).values_list("kind", "day"),
        key=lambda row: (row[1], _ORDER.get(row[0], len(_ORDER))),
    )
    return {
        "player": user.get_username(),
        "milestones": [
            {"kind": kind, "title": str(TITLES[kind]), "day": day.isoformat()}
            for kind, day in found
        ],
    }
