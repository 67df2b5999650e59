"""The leagues in the worker tier: a settled day enqueues its scoring (``leagues.tasks.score_day``,
once the settling committed); the periodic duty scores what was missed and closes the weeks that
can close; ``manage.py rebuild_leagues`` rebuilds a week."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import CommandError, call_command
from django_tasks_db.models import DBTaskResult

from core.worker.schedule import DUTIES
from games.clock import day_end
from leaderboard.standings import SETTLE, settle_day
from leagues import tasks
from leagues.models import Membership, Tier, Week
from tests.leaderboard.helpers import OPENING, player
from tests.leagues.helpers import MONDAY, at, day_points, played, week_rows

pytestmark = pytest.mark.django_db


def test_a_settled_day_enqueues_its_scoring_once_committed(
    clock, django_capture_on_commit_callbacks
):
    played(clock, player("ann"), OPENING, at(MONDAY))
    before = DBTaskResult.objects.filter(task_path="leagues.tasks.score_day").count()

    with django_capture_on_commit_callbacks(execute=True):
        assert settle_day(MONDAY, now=day_end(MONDAY) + SETTLE)

    queued = DBTaskResult.objects.filter(task_path="leagues.tasks.score_day")
    assert queued.count() == before + 1
    latest = queued.order_by("-enqueued_at").first()
    assert latest is not None
    assert latest.args_kwargs == {
        "args": ["2030-06-17"],
        "kwargs": {},
    }
    assert not Membership.objects.exists()  # nothing scored in the request's process

    clock.set(at(MONDAY + dt.timedelta(days=1)))
    assert tasks.score_day.call("2030-06-17")  # as a worker runs it
    assert day_points(MONDAY) == {("ann", MONDAY): 100}


def test_the_duty_scores_missed_days_then_closes_the_week(clock):
    assert "leagues.tasks.close_weeks" in DUTIES
    assert DUTIES["leagues.tasks.close_weeks"].every == dt.timedelta(minutes=5)
    played(clock, player("ann"), OPENING, at(MONDAY))
    played(clock, player("bob"), ["D"], at(MONDAY))
    for k in range(7):  # settled with no scoring task run (a worker lost them)
        day = MONDAY + dt.timedelta(days=k)
        settle_day(day, now=day_end(day) + SETTLE)
    clock.set(day_end(MONDAY + dt.timedelta(days=6)) + SETTLE)

    assert tasks.close_weeks.call() == ["2030-06-17"]

    assert week_rows(MONDAY) == [
        ("ann", Tier.BRONZE, 1, 100, 1, 100, 1, 0, Tier.BRONZE),
        ("bob", Tier.BRONZE, 1, 10, 1, 10, 2, 0, Tier.BRONZE),
    ]
    assert tasks.close_weeks.call() == []


def test_the_rebuild_command_rebuilds_a_week_and_refuses_a_bad_one(clock, capsys):
    played(clock, player("ann"), OPENING, at(MONDAY))
    settle_day(MONDAY, now=day_end(MONDAY) + SETTLE)
    clock.set(at(MONDAY + dt.timedelta(days=1)))
    assert not Week.objects.exists()

    call_command("rebuild_leagues", "--week", "2030-W25")

    assert "2030-W25: 1 players placed" in capsys.readouterr().out
    assert day_points(MONDAY) == {("ann", MONDAY): 100}
    call_command("rebuild_leagues")  # the current week: the same
    assert day_points(MONDAY) == {("ann", MONDAY): 100}
    with pytest.raises(CommandError, match="2030-W99"):
        call_command("rebuild_leagues", "--week", "2030-W99")
