"""A league week played out end to end (docs/leagues.md): ISO week 2030-W26, Monday to Sunday,
15 players in three tiers — six Gold and six Silver, placed there by the week before, and three
newcomers who start in Bronze — playing real attempts through the services on a clock the test
sets, each day settled by the worker tier's settling duty and then worked by two workers at
once: one runs the day's ``score_day`` task, the other the periodic ``close_weeks`` duty (which
scores a day whose points are missing, then closes what can close), so that both reach for the
same day and, after Sunday, the same week.

The workers are two threads with a database connection each, running the duties' calls, not
``manage.py worker`` processes: a process of its own would read the real time, not the test's
clock, and django-tasks-db's worker sets signal handlers, which only a main thread may.

The expected points, totals, places and movements are worked out here from the rules as the
docs write them — ``10 + 90 × (n − r) / (n − 1)`` rounded half up, the division's order, a zone
of ⌊m / 3⌋ at most 5, none below Bronze — not by the code under test. Two ties fall on a zone's
edge: in Gold, gil and glen have 158 points each and gil played more days (gil 4th stays, glen
5th goes down to Silver); in Silver, sara and seth have 292 points in 4 days with a best day of
100 each, and the older account, sara's, is 2nd and goes up (seth 3rd stays)."""

from __future__ import annotations

import datetime as dt
import math
import threading
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connections
from django_tasks_db.models import DBTaskResult

from games.clock import day_end
from leaderboard import tasks as leaderboard_tasks
from leaderboard.models import DailyDeal, Milestone
from leaderboard.standings import SETTLE
from leagues import services
from leagues import tasks as league_tasks
from leagues.models import Division, Membership, Movement, ScoredDay, Standing, Tier, Week
from tests.leaderboard.helpers import player
from tests.leagues.helpers import at, day_points, played, week_rows

#: The week played: ISO week 2030-W26 (the clock's days are dealt from 2030-06-15 on).
MONDAY = dt.date(2030, 6, 24)
DAYS = [MONDAY + dt.timedelta(days=k) for k in range(7)]
SUNDAY = DAYS[-1]
BEFORE = MONDAY - dt.timedelta(days=7)
NEXT = MONDAY + dt.timedelta(days=7)

GOLD = ["gail", "gus", "gwen", "gil", "glen", "greg"]
SILVER = ["sam", "sara", "seth", "sid", "sky", "suzy"]
NEWCOMERS = ["ben", "bea", "bob"]
#: Silver the week before, and no attempt this week: no division, and her tier kept.
IDLE = "ivy"
#: The accounts in order of creation, which is the order of their ids (the last tie-break).
PLAYERS = GOLD + SILVER + NEWCOMERS
STARTS = {
    **{name: Tier.GOLD for name in GOLD},
    **{name: Tier.SILVER for name in SILVER},
    **{name: Tier.BRONZE for name in NEWCOMERS},
}

#: Each day's results, best first; "a=b": a tie (the same result). Nobody plays every day;
#: gwen, suzy and ben first play on Wednesday, glen and bob on Friday (placed then).
RESULTS = [
    "gail sam bea sara greg gus gil",
    "sara seth gus=sid sky",
    "gail sam gus sara gwen seth=gil sid suzy=greg ben",
    "gus gail sara=sid sky bea",
    "seth=sam gwen gail ben=glen gil bea gus bob",
    "gail gwen sky=glen gil",
    "gus sam=gail sid ben seth sky gil=glen suzy greg bob",
]


# --- the rules, as docs/leagues.md writes them ----------------------------------------------


def groups(line: str) -> list[list[str]]:
    return [group.split("=") for group in line.split()]


def expected_points(line: str) -> dict[str, int]:
    """A day's points: the one ranked r of n (a tie: the best place it shares) earns
    10 + 90 × (n − r) / (n − 1), rounded half up (exact fractions)."""
    n = sum(len(group) for group in groups(line))
    points, rank = {}, 1
    for group in groups(line):
        share = Fraction(n - rank, n - 1) if n > 1 else Fraction(1)
        for name in group:
            points[name] = 10 + math.floor(90 * share + Fraction(1, 2))
        rank += len(group)
    return points


def expected_week() -> dict[str, tuple[int, int, int, int, int, int, int]]:
    """Each member's (tier, points, days, best, place, movement, next tier): one division per
    tier (each has fewer than 30), ranked by points, days, best day, then the older account;
    the top ⌊m / 3⌋ (at most 5) up, as many at the bottom down, none below Bronze."""
    days: dict[str, list[int]] = {}
    for line in RESULTS:
        for name, points in expected_points(line).items():
            days.setdefault(name, []).append(points)
    week = {}
    for tier in {STARTS[name] for name in days}:
        table = sorted(
            (name for name in days if STARTS[name] == tier),
            key=lambda name: (
                -sum(days[name]),
                -len(days[name]),
                -max(days[name]),
                PLAYERS.index(name),
            ),
        )
        zone = min(5, len(table) // 3)
        for place, name in enumerate(table, start=1):
            movement = 0
            if place <= zone and tier < Tier.DIAMOND:
                movement = 1
            elif place > len(table) - zone and tier > Tier.BRONZE:
                movement = -1
            week[name] = (
                int(tier),
                sum(days[name]),
                len(days[name]),
                max(days[name]),
                place,
                movement,
                int(tier) + movement,
            )
    return week


# --- the workers --------------------------------------------------------------------------------


def both_at_once(first: Callable[[], Any], second: Callable[[], Any]) -> tuple[Any, Any]:
    """``first()`` and ``second()`` run by two workers at the same moment, each in a thread of
    its own with its own database connection; their results (an exception is raised here)."""
    start = threading.Barrier(2)
    results: dict[int, Any] = {}

    def work(worker: int, call: Callable[[], Any]) -> None:
        try:
            start.wait(timeout=30)
            results[worker] = call()
        except BaseException as exc:  # (re-raised in the test's thread)
            results[worker] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=pair) for pair in enumerate((first, second))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    for result in results.values():
        if isinstance(result, BaseException):
            raise result
    return results[0], results[1]


def the_duty() -> tuple[list[dt.date], list[dt.date]]:
    """What the periodic ``leagues.tasks.close_weeks`` does, its two calls' results kept: the
    days scored for having been missed, then the weeks closed."""
    return services.catch_up(), services.close_due()


def snapshot() -> dict[str, Any]:
    """Everything the leagues wrote, to compare before and after a second run."""
    return {
        "rows": week_rows(MONDAY),
        "points": day_points(MONDAY),
        "scored": sorted(ScoredDay.objects.values_list("day", "settled_at")),
        "weeks": sorted(Week.objects.values_list("monday", "closed_at")),
        "divisions": sorted(Division.objects.values_list("week_id", "tier", "number")),
        "standings": sorted(Standing.objects.values_list("player__username", "tier")),
        "milestones": sorted(Milestone.objects.values_list("user__username", "kind", "day")),
    }


# --- the week -----------------------------------------------------------------------------------


def week_before() -> dict[str, User]:
    """The accounts, and the week before closed as its close leaves it: the Gold players' next
    tier Gold, the Silver players' (ivy's too) Silver; the newcomers have never played."""
    users = {name: player(name) for name in [*PLAYERS, IDLE]}
    week = Week.objects.create(monday=BEFORE, closed_at=day_end(BEFORE + dt.timedelta(days=6)))
    for tier, names in ((Tier.GOLD, GOLD), (Tier.SILVER, [*SILVER, IDLE])):
        division = Division.objects.create(week=week, tier=tier, number=1)
        for place, name in enumerate(names, start=1):
            Membership.objects.create(
                week=week,
                division=division,
                player=users[name],
                place=place,
                movement=Movement.STAY,
                tier_after=tier,
            )
            Standing.objects.create(player=users[name], tier=tier)
    # Only this week's days are dealt: the settling duty has no earlier day to settle.
    DailyDeal.objects.filter(date__lt=MONDAY).delete()
    return users


def play_day(clock: Any, users: dict[str, User], day: dt.date, line: str) -> None:
    """The day's attempts, one action each ("D", no card home): an attempt's time runs from
    its first action to the day's end, so of results with the same cards and actions the one
    that started later is the better. The best group starts last; a tie starts together."""
    ranked = groups(line)
    for k, group in enumerate(ranked):
        for name in group:
            played(clock, users[name], ["D"], at(day) + dt.timedelta(minutes=len(ranked) - k))


@pytest.mark.django_db(transaction=True)  # (two workers: two threads, two connections)
def test_a_week_played_out_over_seven_days_by_two_workers_moves_the_documented_players_once(
    clock,
):
    users = week_before()
    scored: dict[dt.date, int] = {day: 0 for day in DAYS}
    closes: list[tuple[dt.datetime, list[dt.date]]] = []

    for day, line in zip(DAYS, RESULTS, strict=True):
        play_day(clock, users, day, line)
        # The day over: the settling duty settles it, which enqueues its scoring task.
        now = day_end(day) + SETTLE + dt.timedelta(seconds=30)
        clock.set(now)
        assert leaderboard_tasks.settle_days.call() == [day.isoformat()]
        queued = DBTaskResult.objects.filter(task_path="leagues.tasks.score_day")
        assert [task.args_kwargs["args"] for task in queued.order_by("enqueued_at")][-1] == [
            day.isoformat()
        ]
        clock.set(now + dt.timedelta(seconds=30))
        # Two workers: one runs the day's task, the other the periodic duty, at once.
        wrote, (caught_up, closed) = both_at_once(
            lambda: league_tasks.score_day.call(day.isoformat()),  # noqa: B023
            the_duty,
        )
        scored[day] += int(wrote) + caught_up.count(day)
        assert set(caught_up) <= {day}
        closes.append((clock.now, closed))

    # Sunday settled: the week closes (in Sunday's round, or here); both workers run the duty.
    clock.set(day_end(SUNDAY) + SETTLE + dt.timedelta(minutes=5))
    first, second = both_at_once(the_duty, the_duty)
    closes += [(clock.now, first[1]), (clock.now, second[1])]
    assert first[0] == second[0] == []

    # Each day was scored once, from its settlement.
    assert scored == {day: 1 for day in DAYS}
    settled = dict(DailyDeal.objects.filter(date__in=DAYS).values_list("date", "settled_at"))
    assert dict(ScoredDay.objects.values_list("day", "settled_at")) == settled
    # Its points: 10 + 90 × the percentile, for each member and day played.
    assert day_points(MONDAY) == {
        (name, day): points
        for day, line in zip(DAYS, RESULTS, strict=True)
        for name, points in expected_points(line).items()
    }
    # The week was closed once, by one call of one worker.
    closers = [(at_, weeks) for at_, weeks in closes if weeks]
    assert [weeks for _at, weeks in closers] == [[MONDAY]]
    assert Week.objects.get(monday=MONDAY).closed_at == closers[0][0]

    # Every member in division 1 of the tier they started in, with the week the rules give.
    week = expected_week()
    # (By hand: Tuesday is a day of 5, seth 2nd: 10 + 90 × 3/4 = 77.5, rounded up; gus and sid
    # tie 3rd. The ties at the zones' edges, as the module docstring tells them.)
    assert expected_points(RESULTS[1]) == {"sara": 100, "seth": 78, "gus": 55, "sid": 55, "sky": 10}
    assert [week[name][1:5] for name in ("gil", "glen", "sara", "seth")] == [
        (158, 5, 55, 4),
        (158, 3, 60, 5),
        (292, 4, 100, 2),
        (292, 4, 100, 3),
    ]
    assert week_rows(MONDAY) == sorted(
        (name, tier, 1, points, days, best, place, movement, after)
        for name, (tier, points, days, best, place, movement, after) in week.items()
    )
    # Exactly these moved (worked out above; written out as the docs would).
    moved = {
        name: movement
        for name, movement in Membership.objects.filter(week_id=MONDAY).values_list(
            "player__username", "movement"
        )
        if movement != Movement.STAY
    }
    assert moved == {
        "gail": Movement.UP,
        "gus": Movement.UP,
        "glen": Movement.DOWN,
        "greg": Movement.DOWN,
        "sam": Movement.UP,
        "sara": Movement.UP,
        "sky": Movement.DOWN,
        "suzy": Movement.DOWN,
        "ben": Movement.UP,
    }
    assert moved == {name: row[5] for name, row in week.items() if row[5] != Movement.STAY}
    # The players' tiers for next week: moved once; ivy, who did not play, keeps Silver.
    assert dict(Standing.objects.values_list("player__username", "tier")) == {
        **{name: row[6] for name, row in week.items()},
        IDLE: Tier.SILVER,
    }
    assert services.tier_at(users["glen"], NEXT) == Tier.SILVER
    assert services.tier_at(users["seth"], NEXT) == Tier.SILVER
    assert services.tier_at(users["ben"], NEXT) == Tier.SILVER
    assert services.tier_at(users[IDLE], NEXT) == Tier.SILVER
    assert sorted(Milestone.objects.values_list("user__username", "kind", "day")) == sorted(
        (name, Milestone.Kind.PROMOTION.value, SUNDAY)
        for name, movement in moved.items()
        if movement == Movement.UP
    )

    # A second run of the duties, by both workers at once, changes nothing.
    before = snapshot()
    clock.set(day_end(SUNDAY) + dt.timedelta(hours=6))

    def every_duty() -> tuple[list[bool], tuple[list[dt.date], list[dt.date]]]:
        return [league_tasks.score_day.call(day.isoformat()) for day in DAYS], the_duty()

    again = both_at_once(every_duty, every_duty)

    assert again == (([False] * 7, ([], [])), ([False] * 7, ([], [])))
    assert snapshot() == before
