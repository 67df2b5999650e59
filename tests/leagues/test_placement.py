"""Placement (docs/leagues.md): a settled day's newcomers join their tier's divisions, each filled
to 30 in order of joining — by day, then tier, then player id — the tier being the one their
latest closed week gave them (the lowest for a newcomer)."""

from __future__ import annotations

import datetime as dt

import pytest

from games.clock import day_end
from leaderboard.standings import SETTLE
from leagues import services
from leagues.models import DayPoints, Division, Membership, Standing, Tier, Week
from tests.leaderboard.helpers import player
from tests.leagues.helpers import MONDAY, at, played, settle

pytestmark = pytest.mark.django_db

TUE = MONDAY + dt.timedelta(days=1)


def score(day: dt.date) -> None:
    settle(day)
    assert services.score_day(day, now=day_end(day) + SETTLE)


def divisions(monday: dt.date) -> dict[tuple[int, int], list[str]]:
    """(tier, number) → its members' names, in order of joining."""
    found: dict[tuple[int, int], list[str]] = {}
    rows = Membership.objects.filter(week_id=monday).order_by("pk")
    for tier, number, name in rows.values_list(
        "division__tier", "division__number", "player__username"
    ):
        found.setdefault((tier, number), []).append(name)
    return found


def test_31_newcomers_fill_a_division_of_30_then_open_a_second(clock):
    people = [player(f"p{k:02d}") for k in range(31)]
    for person in people:
        played(clock, person, ["D"], at(MONDAY))
    score(MONDAY)

    first = [f"p{k:02d}" for k in range(30)]  # by player id: in the order the accounts were made
    assert divisions(MONDAY) == {(Tier.BRONZE, 1): first, (Tier.BRONZE, 2): ["p30"]}

    # Tuesday: two newcomers join the tier's last division; those placed stay where they are.
    late = [player("q0"), player("q1")]
    for person in [*late, people[0], people[30]]:
        played(clock, person, ["D"], at(TUE))
    score(TUE)

    assert divisions(MONDAY) == {
        (Tier.BRONZE, 1): first,
        (Tier.BRONZE, 2): ["p30", "q0", "q1"],
    }
    assert DayPoints.objects.filter(membership__player=people[0]).count() == 2
    assert Standing.objects.filter(tier=Tier.BRONZE).count() == 33


def test_a_player_starts_the_week_in_the_tier_their_latest_closed_week_gave_them(clock):
    gold, silver, ruby, new = (player(name) for name in ("gold", "silver", "ruby", "new"))
    # Two closed weeks before: ruby last played three weeks before (Ruby after it), gold and
    # silver two weeks before, where gold went up to Gold and silver down to Silver.
    for weeks, tier, members in (
        (3, Tier.SAPPHIRE, [(ruby, Tier.RUBY)]),
        (1, Tier.GOLD, [(gold, Tier.GOLD), (silver, Tier.SILVER)]),
    ):
        week = Week.objects.create(monday=MONDAY - dt.timedelta(weeks=weeks), closed_at=at(MONDAY))
        division = Division.objects.create(week=week, tier=tier, number=1)
        for place, (user, after) in enumerate(members, start=1):
            Membership.objects.create(
                week=week, division=division, player=user, place=place, tier_after=after
            )
    for person in (new, ruby, silver, gold):
        played(clock, person, ["D"], at(MONDAY))
    score(MONDAY)

    assert divisions(MONDAY) == {
        (Tier.BRONZE, 1): ["new"],
        (Tier.SILVER, 1): ["silver"],
        (Tier.GOLD, 1): ["gold"],
        (Tier.RUBY, 1): ["ruby"],
    }
    assert dict(Standing.objects.values_list("player__username", "tier")) == {
        "new": Tier.BRONZE,
        "silver": Tier.SILVER,
        "gold": Tier.GOLD,
        "ruby": Tier.RUBY,
    }


def test_a_day_not_settled_is_not_scored(clock):
    played(clock, player("ann"), ["D"], at(MONDAY))

    assert not services.score_day(MONDAY, now=at(TUE))
    assert not Membership.objects.exists()
