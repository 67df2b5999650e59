"""The worked example of docs/leagues.md, played through the services and settled as the worker
settles days: four players over three days of ISO week 2030-W25, one day missed, a tie, one
attempt disqualified after its day settled (0 points, and off the day's ranking), then the
week closed. Every number is worked out by hand in the docs."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User

from games.clock import day_end
from leaderboard import review
from leaderboard.standings import SETTLE
from leagues import services
from leagues.models import Membership, Movement, Standing, Tier, Week
from tests.leaderboard.helpers import OPENING, player
from tests.leagues.helpers import MONDAY, at, day_points, played, settle, week_rows

pytestmark = pytest.mark.django_db

MON, TUE, WED = MONDAY, MONDAY + dt.timedelta(days=1), MONDAY + dt.timedelta(days=2)
SUNDAY = MONDAY + dt.timedelta(days=6)


@pytest.fixture
def week(clock):
    """The three days played and settled, and each scored as its task would score it; returns
    the players and Wednesday's attempt of bob's."""
    ann, bob, cat, dan = (player(name) for name in ("ann", "bob", "cat", "dan"))
    # Monday: ann 1 card home; bob no card in 1 action; cat no card in 2. dan does not play.
    played(clock, ann, OPENING, at(MON))
    played(clock, bob, ["D"], at(MON))
    played(clock, cat, ["D", "D"], at(MON))
    # Tuesday: bob and cat the same result (same actions, from the same moment); ann, then dan.
    played(clock, bob, OPENING, at(TUE))
    played(clock, cat, OPENING, at(TUE))
    played(clock, ann, ["D"], at(TUE))
    played(clock, dan, ["D", "D"], at(TUE))
    # Wednesday: ann, cat, dan, and bob last (he is disqualified later).
    played(clock, ann, OPENING, at(WED))
    played(clock, cat, ["D"], at(WED))
    played(clock, dan, ["D", "D"], at(WED))
    cheat = played(clock, bob, ["D", "D", "D"], at(WED))
    for day in (MON, TUE, WED):
        settle(day)
        assert services.score_day(day, now=day_end(day) + SETTLE)
    return {"ann": ann, "bob": bob, "cat": cat, "dan": dan, "cheat": cheat}


def test_each_days_points_are_ten_plus_ninety_times_the_percentile(week):
    assert day_points(MONDAY) == {
        ("ann", MON): 100,  # 1st of 3: percentile 1
        ("bob", MON): 55,  # 2nd of 3: 1/2 -> 10 + 45
        ("cat", MON): 10,  # last: 0
        ("bob", TUE): 100,  # tied first of 4: both 1
        ("cat", TUE): 100,
        ("ann", TUE): 40,  # 3rd of 4: 1/3 -> 10 + 30
        ("dan", TUE): 10,
        ("ann", WED): 100,  # 1st of 4
        ("cat", WED): 70,  # 2nd of 4: 2/3 -> 10 + 60
        ("dan", WED): 40,  # 3rd of 4: 1/3
        ("bob", WED): 10,  # 4th of 4
    }
    # One Bronze division, in order of joining: ann, bob, cat on Monday, dan on Tuesday.
    assert week_rows(MONDAY) == [
        ("ann", Tier.BRONZE, 1, 240, 3, 100, None, None, None),
        ("bob", Tier.BRONZE, 1, 165, 3, 100, None, None, None),
        ("cat", Tier.BRONZE, 1, 180, 3, 100, None, None, None),
        ("dan", Tier.BRONZE, 1, 50, 2, 40, None, None, None),
    ]
    assert set(Standing.objects.values_list("player__username", "tier")) == {
        ("ann", 0),
        ("bob", 0),
        ("cat", 0),
        ("dan", 0),
    }


def test_a_day_is_scored_once_per_settlement(week):
    before = week_rows(MONDAY)

    assert not services.score_day(MON, now=at(SUNDAY))
    assert not services.score_day(TUE + dt.timedelta(days=1), now=at(SUNDAY))
    assert week_rows(MONDAY) == before


def test_a_disqualified_attempt_earns_nothing_and_leaves_the_days_ranking(clock, week):
    clock.set(at(WED + dt.timedelta(days=1)))  # Thursday: staff disqualify bob's Wednesday
    staff = User.objects.create_user("staff", is_staff=True)
    review.disqualify(week["cheat"].pk, staff, "played with the solver")

    assert services.score_day(WED)  # settled afresh: scored afresh

    points = day_points(MONDAY)
    assert ("bob", WED) not in points
    # Wednesday is now a day of three: 100, 55, 10.
    assert [points["ann", WED], points["cat", WED], points["dan", WED]] == [100, 55, 10]
    assert week_rows(MONDAY) == [
        ("ann", Tier.BRONZE, 1, 240, 3, 100, None, None, None),
        ("bob", Tier.BRONZE, 1, 155, 2, 100, None, None, None),
        ("cat", Tier.BRONZE, 1, 165, 3, 100, None, None, None),
        ("dan", Tier.BRONZE, 1, 20, 2, 10, None, None, None),
    ]
    for day in (WED + dt.timedelta(days=k) for k in range(1, 5)):
        settle(day, late=dt.timedelta(hours=12))  # (after Thursday's decision)
    assert services.close_week(MONDAY, now=day_end(SUNDAY) + dt.timedelta(hours=13))
    assert [row[6:] for row in week_rows(MONDAY)] == [
        (1, Movement.UP, Tier.SILVER),  # ann
        (3, Movement.STAY, Tier.BRONZE),  # bob
        (2, Movement.STAY, Tier.BRONZE),  # cat
        (4, Movement.STAY, Tier.BRONZE),  # dan: the bottom zone, but Bronze is the lowest
    ]


def test_the_week_closes_once_its_sunday_is_settled_moving_the_top_up(clock, week):
    for day in (WED + dt.timedelta(days=k) for k in range(1, 4)):  # Thursday to Saturday
        settle(day)
    now = day_end(SUNDAY) + SETTLE + dt.timedelta(minutes=5)
    assert not services.close_week(MONDAY, now=now)  # Sunday is dealt and not settled yet
    assert week_rows(MONDAY)[0][6:] == (None, None, None)
    settle(SUNDAY)

    assert services.close_week(MONDAY, now=now)

    # A division of 4: one goes up (a third, rounded down); none goes below Bronze.
    assert week_rows(MONDAY) == [
        ("ann", Tier.BRONZE, 1, 240, 3, 100, 1, Movement.UP, Tier.SILVER),
        ("bob", Tier.BRONZE, 1, 165, 3, 100, 3, Movement.STAY, Tier.BRONZE),
        ("cat", Tier.BRONZE, 1, 180, 3, 100, 2, Movement.STAY, Tier.BRONZE),
        ("dan", Tier.BRONZE, 1, 50, 2, 40, 4, Movement.STAY, Tier.BRONZE),
    ]
    assert dict(Standing.objects.values_list("player__username", "tier")) == {
        "ann": Tier.SILVER,
        "bob": Tier.BRONZE,
        "cat": Tier.BRONZE,
        "dan": Tier.BRONZE,
    }
    assert Week.objects.get(monday=MONDAY).closed_at == now
    closed = week_rows(MONDAY)

    assert not services.close_week(MONDAY, now=now + dt.timedelta(hours=1))  # once
    assert services.close_due(now + dt.timedelta(hours=1)) == []
    assert week_rows(MONDAY) == closed
    assert Week.objects.get(monday=MONDAY).closed_at == now

    # The next week, ann starts in Silver, the others in Bronze.
    assert services.tier_at(week["ann"], MONDAY + dt.timedelta(days=7)) == Tier.SILVER
    assert services.tier_at(week["dan"], MONDAY + dt.timedelta(days=7)) == Tier.BRONZE


def test_rebuilding_a_week_gives_the_same_rows(clock, week):
    for day in (WED + dt.timedelta(days=k) for k in range(1, 5)):
        settle(day)
    now = day_end(SUNDAY) + SETTLE
    assert services.close_week(MONDAY, now=now)
    rows, points = week_rows(MONDAY), day_points(MONDAY)
    first_ids = set(Membership.objects.values_list("pk", flat=True))

    assert services.rebuild_week(MONDAY, now=now + dt.timedelta(days=3))

    assert week_rows(MONDAY) == rows
    assert day_points(MONDAY) == points
    assert first_ids.isdisjoint(Membership.objects.values_list("pk", flat=True))  # made anew
    assert Week.objects.get(monday=MONDAY).closed_at == now
    assert Standing.objects.get(player=week["ann"]).tier == Tier.SILVER


def test_a_day_settled_again_after_the_close_rewrites_points_and_the_places_stand(clock, week):
    for day in (WED + dt.timedelta(days=k) for k in range(1, 5)):
        settle(day)
    closed_at = day_end(SUNDAY) + SETTLE
    assert services.close_week(MONDAY, now=closed_at)
    clock.set(at(SUNDAY + dt.timedelta(days=2)))  # Tuesday after: staff disqualify bob's Wednesday
    staff = User.objects.create_user("staff", is_staff=True)
    review.disqualify(week["cheat"].pk, staff, "played with the solver")

    assert services.score_day(WED)

    assert week_rows(MONDAY) == [
        ("ann", Tier.BRONZE, 1, 240, 3, 100, 1, Movement.UP, Tier.SILVER),
        ("bob", Tier.BRONZE, 1, 155, 2, 100, 3, Movement.STAY, Tier.BRONZE),
        ("cat", Tier.BRONZE, 1, 165, 3, 100, 2, Movement.STAY, Tier.BRONZE),
        ("dan", Tier.BRONZE, 1, 20, 2, 10, 4, Movement.STAY, Tier.BRONZE),
    ]
    assert Week.objects.get(monday=MONDAY).closed_at == closed_at
    assert Standing.objects.get(player=week["ann"]).tier == Tier.SILVER
