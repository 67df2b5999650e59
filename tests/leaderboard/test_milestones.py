"""Milestones (leaderboard.milestones): the first win and streaks of 7, 30 and 100 days, earned
once as the settled days are added to the standings; award() for the leagues; GET
/api/players/<name>/milestones/."""

from __future__ import annotations

import datetime as dt

import pytest

from games.models import Game
from leaderboard import milestones, periods, tasks
from leaderboard.models import DailyDeal, Milestone
from tests.leaderboard.test_periods import D1, D2, D3, daily, play_example, user
from tests.leaderboard.test_periods import _today as _today  # (2030-07-20, autouse)

pytestmark = pytest.mark.usefixtures("only_our_days")

START = dt.date(2030, 3, 1)


def earned(name: str) -> dict[str, dt.date]:
    return dict(Milestone.objects.filter(user__username=name).values_list("kind", "day"))


def play_days(name: str, first: dt.date, count: int, skip: frozenset[int] = frozenset()) -> None:
    """``name`` plays ``count`` days from ``first`` (resigned with 10 cards), but the days
    numbered in ``skip`` (from 0)."""
    for k in range(count):
        if k not in skip:
            daily(name, first + dt.timedelta(days=k), 10)


def mark_settled(first: dt.date, count: int) -> None:
    """Mark ``count`` days from ``first`` settled, in one statement: the standings read a day's
    attempts and its ``settled_at``, never its final ranks (tests/leaderboard/test_periods.py
    settles its days whole)."""
    last = first + dt.timedelta(days=count - 1)
    DailyDeal.objects.bulk_create(
        [DailyDeal(date=first + dt.timedelta(days=k)) for k in range(count)], ignore_conflicts=True
    )
    DailyDeal.objects.filter(date__range=(first, last)).update(
        settled_at=dt.datetime.combine(last + dt.timedelta(days=1), dt.time(1), tzinfo=dt.UTC)
    )


def test_the_first_win_is_earned_on_its_day_once():
    play_example()

    periods.count_pending()

    assert earned("ann") == {"first_win": D1}
    assert earned("bob") == {"first_win": D2}
    assert earned("cat") == {}  # never won
    assert earned("dan") == {}  # his only win was disqualified
    assert tasks.count_standings.call(D3.isoformat(), True) == [D3.isoformat()]
    assert periods.rebuild() == 4
    assert Milestone.objects.count() == 2


def test_a_practice_win_earns_nothing():
    Game.objects.create(
        owner=user("ann"), code="CF1-D3-AAAAACL", status=Game.Status.WON, ply=200,
        foundation_cards=52,
    )  # fmt: skip
    play_days("ann", START, 1)
    mark_settled(START, 1)

    periods.count_pending()

    assert earned("ann") == {}


def test_streaks_of_7_and_30_days_are_earned_on_the_day_they_are_reached():
    play_days("ann", START, 30)
    play_days("bob", START, 9, skip=frozenset({6}))  # 6 days, a gap, 2 days: no streak
    mark_settled(START, 30)

    assert len(periods.count_pending()) == 30

    assert earned("ann") == {
        "streak_7": START + dt.timedelta(days=6),
        "streak_30": dt.date(2030, 3, 30),
    }
    assert earned("bob") == {}
    assert periods.count_pending() == []  # (each day once)
    assert Milestone.objects.count() == 2


def test_a_streak_of_100_days_is_earned_by_a_rebuild_too():
    play_days("ann", START, 100)
    mark_settled(START, 100)

    assert periods.rebuild() == 100

    assert earned("ann") == {
        "streak_7": dt.date(2030, 3, 7),
        "streak_30": dt.date(2030, 3, 30),
        "streak_100": dt.date(2030, 6, 8),
    }
    assert periods.table("all", START)["results"][0] == {
        "place": 1, "player": "ann", "days": 100, "wins": 0,
        "average_percentile": 100.0, "longest_streak": 100,
    }  # fmt: skip


def test_award_is_idempotent_and_keeps_the_first_day():
    ann = user("ann")

    assert milestones.award(ann.pk, "promotion", D2) is True
    assert milestones.award(ann.pk, "promotion", D1) is False
    assert milestones.award(ann.pk, "top_tier", D3) is True

    assert earned("ann") == {"promotion": D2, "top_tier": D3}
    with pytest.raises(ValueError, match="unknown milestone kind 'best_score'"):
        milestones.award(ann.pk, "best_score", D1)
    assert Milestone.objects.count() == 2


def test_the_api_lists_a_players_milestones_oldest_first(api):
    ann = user("ann")
    milestones.award(ann.pk, "top_tier", D3)
    milestones.award(ann.pk, "promotion", D3)
    milestones.award(ann.pk, "first_win", D1)

    found = api.get("/api/players/ann/milestones/")

    assert found.status_code == 200
    assert found.json() == {
        "player": "ann",
        "milestones": [
            {"kind": "first_win", "title": "First win", "day": "2030-06-28"},
            {"kind": "promotion", "title": "Promoted", "day": "2030-06-30"},
            {"kind": "top_tier", "title": "Top tier", "day": "2030-06-30"},
        ],
    }


def test_the_api_answers_no_milestones_and_refuses_an_unknown_player(api):
    user("bob")

    assert api.get("/api/players/BOB/milestones/").json() == {"player": "bob", "milestones": []}
    found = api.get("/api/players/nobody/milestones/")
    assert found.status_code == 404
    assert found.json() == {"code": "not_found", "message": "No such player."}
