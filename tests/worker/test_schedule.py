"""Periodic duties are enqueued once per period for the whole deployment, however many workers
beat (``core.worker.schedule``)."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.db import connections
from django.utils import timezone
from django.utils.module_loading import autodiscover_modules
from django_tasks_db.models import DBTaskResult

from core.worker import schedule
from core.worker.models import Duty

SETTLE = "leaderboard.tasks.settle_days"

autodiscover_modules("tasks")  # as the worker does as it starts: importing the tasks registers them


def enqueued(name: str) -> int:
    return DBTaskResult.objects.filter(task_path=name).count()


def test_every_app_s_duties_are_registered():
    assert {
        "games.tasks.close_daily_attempts",
        "games.tasks.analyse_past_days",
        "core.accounts.tasks.purge_guests",
        "leaderboard.tasks.deal_ahead",
        "leaderboard.tasks.settle_days",
        "leaderboard.tasks.rebuild_today",
        "leaderboard.tasks.purge_reviews",
        "core.worker.tasks.prune_task_results",
    } <= set(schedule.DUTIES)
    assert schedule.DUTIES[SETTLE].every == dt.timedelta(minutes=1)


@pytest.mark.django_db
def test_it_enqueues_a_duty_once_per_period():
    now = timezone.now()

    first = schedule.enqueue_due(now)
    again = schedule.enqueue_due(now + dt.timedelta(seconds=59))
    next_period = schedule.enqueue_due(now + dt.timedelta(seconds=60))

    assert SETTLE in first  # a new deployment: every duty at once
    assert again == []
    assert SETTLE in next_period
    assert enqueued(SETTLE) == 2
    assert Duty.objects.get(name=SETTLE).next_run == now + dt.timedelta(seconds=120)


@pytest.mark.django_db(transaction=True)
def test_workers_beating_at_once_enqueue_each_duty_once():
    now = timezone.now()
    barrier = threading.Barrier(6)
    results: list[list[str]] = []

    def beat() -> None:
        try:
            barrier.wait()
            results.append(schedule.enqueue_due(now))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=beat) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    claimed = [name for names in results for name in names]
    assert sorted(claimed) == sorted(schedule.DUTIES)  # each duty by exactly one of them
    assert {name: enqueued(name) for name in schedule.DUTIES} == dict.fromkeys(schedule.DUTIES, 1)


def test_a_duty_needs_a_positive_period():
    with pytest.raises(ValueError, match="positive period"):
        schedule.periodic(every=dt.timedelta(0))
