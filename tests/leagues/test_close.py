"""Closing a week (docs/leagues.md): each division ranked by points, then days played, then the
best day, then player id; the top five up a tier and the bottom five down, none past the
highest or lowest; once, whatever the number of workers closing it."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection, connections

from games.clock import day_end
from leaderboard.models import Milestone
from leaderboard.standings import SETTLE
from leagues import services
from leagues.models import DayPoints, Division, Membership, Movement, Standing, Tier, Week

#: A week with no dealt day (the tests deal the days from 2030-06-15 to 2030-07-24).
QUIET = dt.date(2030, 8, 5)
CLOSING = day_end(QUIET + dt.timedelta(days=6)) + SETTLE


def division_of_30(tier: int = Tier.GOLD) -> list[User]:
    """Thirty members of one division of ``tier``, u00 .. u29, with day rows worth 300, 290, ..
    10 points in three days — but for the ties the tie-breaks decide (below); returns them by
    id."""
    week = Week.objects.create(monday=QUIET)
    division = Division.objects.create(week=week, tier=tier, number=1)
    users = [User.objects.create_user(f"u{k:02d}") for k in range(30)]
    days: dict[int, list[int]] = {}
    for k in range(30):
        total = 300 - 10 * k
        days[k] = [total // 3, total // 3, total - 2 * (total // 3)]
    # u04 and u05 tie on points (250): u05 played more days and goes up, u04 stays.
    days[4] = [84, 83, 83]
    days[5] = [70, 60, 60, 60]
    # u24 and u25 tie on points and days (50): u25's best day is better; u24 goes down.
    days[24] = [30, 20]
    days[25] = [40, 10]
    # u26 and u27 tie on all three (30 in one day): the earlier account, u26, first.
    days[26] = days[27] = [30]
    for k, user in enumerate(users):
        member = Membership.objects.create(week=week, division=division, player=user)
        DayPoints.objects.bulk_create(
            DayPoints(membership=member, day=QUIET + dt.timedelta(days=n), points=points)
            for n, points in enumerate(days[k])
        )
        Standing.objects.create(player=user, tier=tier)
    return users


def outcome() -> dict[str, tuple[int | None, int | None, int | None]]:
    rows = Membership.objects.filter(week_id=QUIET).values_list(
        "player__username", "place", "movement", "tier_after"
    )
    return {name: (place, movement, after) for name, place, movement, after in rows}


@pytest.mark.django_db
def test_the_top_five_go_up_and_the_bottom_five_down_by_the_documented_order():
    users = division_of_30()

    assert services.close_week(QUIET, now=CLOSING)

    found = outcome()
    up = sorted(name for name, (_p, movement, _a) in found.items() if movement == Movement.UP)
    down = sorted(name for name, (_p, movement, _a) in found.items() if movement == Movement.DOWN)
    assert up == ["u00", "u01", "u02", "u03", "u05"]
    assert down == ["u24", "u26", "u27", "u28", "u29"]
    assert [found[f"u{k:02d}"][0] for k in (3, 4, 5, 23, 24, 25, 26, 27, 28)] == [
        4,
        6,
        5,
        24,
        26,
        25,
        27,
        28,
        29,
    ]
    totals = Membership.objects.filter(week_id=QUIET).values_list("points", "days", "best")
    assert totals.get(player=users[5]) == (250, 4, 70)
    assert totals.get(player=users[4]) == (250, 3, 84)
    assert found["u05"] == (5, Movement.UP, Tier.SAPPHIRE)
    assert found["u04"] == (6, Movement.STAY, Tier.GOLD)
    assert found["u29"] == (30, Movement.DOWN, Tier.SILVER)
    tiers = dict(Standing.objects.values_list("player__username", "tier"))
    assert [tiers[name] for name in ("u00", "u05", "u04", "u25", "u24")] == [
        Tier.SAPPHIRE,
        Tier.SAPPHIRE,
        Tier.GOLD,
        Tier.GOLD,
        Tier.SILVER,
    ]


@pytest.mark.django_db
def test_the_highest_tier_sends_nobody_up_and_a_week_not_over_does_not_close():
    division_of_30(Tier.DIAMOND)

    assert not services.close_week(QUIET, now=CLOSING - dt.timedelta(seconds=1))
    assert Week.objects.get(monday=QUIET).closed_at is None
    assert services.close_due(CLOSING) == [QUIET]

    found = outcome()
    assert found["u00"] == (1, Movement.STAY, Tier.DIAMOND)
    assert found["u29"] == (30, Movement.DOWN, Tier.RUBY)
    assert sum(1 for _p, movement, _a in found.values() if movement == Movement.DOWN) == 5


@pytest.mark.django_db
def test_a_closed_week_awards_its_promotions_and_the_top_tier_reached_once_on_its_sunday():
    users = division_of_30(Tier.RUBY)  # (the five who go up reach Diamond, the top)
    Milestone.objects.create(user=users[1], kind=Milestone.Kind.PROMOTION, day=QUIET)

    assert services.close_week(QUIET, now=CLOSING)
    services.rebuild_week(QUIET, now=CLOSING)  # (closed again: nothing awarded twice)

    sunday = QUIET + dt.timedelta(days=6)
    earned = sorted(Milestone.objects.values_list("user__username", "kind", "day"))
    promoted = ["u00", "u01", "u02", "u03", "u05"]
    assert earned == sorted(
        [(name, "promotion", QUIET if name == "u01" else sunday) for name in promoted]
        + [(name, "top_tier", sunday) for name in promoted]
    )


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL's")
@pytest.mark.django_db(transaction=True)
def test_two_workers_closing_the_same_week_at_once_close_it_once():
    users = division_of_30()
    start = threading.Barrier(2)
    results: dict[int, bool] = {}

    def close(worker: int) -> None:
        try:
            start.wait()
            results[worker] = services.close_week(QUIET, now=CLOSING + dt.timedelta(seconds=worker))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=close, args=(worker,)) for worker in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(results.values()) == [False, True]
    winner = next(worker for worker, won in results.items() if won)
    assert Week.objects.get(monday=QUIET).closed_at == CLOSING + dt.timedelta(seconds=winner)
    found = outcome()
    assert sum(1 for _p, movement, _a in found.values() if movement == Movement.UP) == 5
    assert Standing.objects.get(player=users[0]).tier == Tier.SAPPHIRE  # once up, not twice
    assert Standing.objects.get(player=users[29]).tier == Tier.SILVER
