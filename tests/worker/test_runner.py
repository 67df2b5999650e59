"""The worker's loop is django-tasks-db's own, with a bounded stop and a beat beside it
(``core.worker.runner``); a lost worker's task is made ready again."""

from __future__ import annotations

import datetime as dt
import inspect
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.management.commands.db_worker import Worker as DatabaseWorker
from django_tasks_db.models import DBTaskResult

from core.worker import runner
from core.worker.models import WorkerBeat
from tests.worker.tasks import mark


def test_the_library_s_worker_still_has_what_the_runner_uses():
    """``runner.Worker`` overrides ``shutdown`` and ``run_task`` of django-tasks-db's worker and
    reads its ``running``, ``running_task`` and ``worker_id``: this fails first if the library
    changes them."""
    parameters = set(inspect.signature(DatabaseWorker.__init__).parameters)
    assert {
        "queue_names",
        "interval",
        "batch",
        "backend_name",
        "startup_delay",
        "max_tasks",
        "worker_id",
        "excluded_queue_names",
    } <= parameters
    for method in ("shutdown", "run_task", "run", "configure_signals"):
        assert callable(getattr(DatabaseWorker, method))
    assert list(inspect.signature(DatabaseWorker.shutdown).parameters) == [
        "self",
        "signum",
        "frame",
    ]
    assert list(inspect.signature(DatabaseWorker.run_task).parameters) == [
        "self",
        "db_task_result",
    ]
    worker = runner.Worker(
        grace=1.0,
        queue_names=["default"],
        interval=1,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="check",
        excluded_queue_names=[],
    )
    assert (worker.running, worker.running_task, worker.worker_id) == (True, False, "check")


def running_on(worker_id: str, started: dt.datetime, tmp_path) -> DBTaskResult[Any, Any]:
    result = mark.enqueue(str(tmp_path / "marks"), 0)
    row = DBTaskResult.objects.get(pk=result.id)
    row.claim(worker_id)
    DBTaskResult.objects.filter(pk=row.pk).update(started_at=started)
    return row


@pytest.mark.django_db
def test_a_task_of_a_lost_worker_is_made_ready_again(settings, tmp_path):
    now = timezone.now()
    long_ago = now - dt.timedelta(seconds=settings.WORKER_LOST + 1)
    lost = running_on("lost", long_ago, tmp_path)
    WorkerBeat.objects.create(
        worker_id="alive", host="h", pid=1, started=long_ago, seen=now - dt.timedelta(seconds=1)
    )
    busy = running_on("alive", long_ago, tmp_path)  # a long task of a worker that beats
    fresh = running_on("new", now, tmp_path)  # just started: its worker may not have beaten yet

    assert runner.recover(now) == [str(lost.pk)]

    statuses = dict(DBTaskResult.objects.values_list("pk", "status"))
    assert statuses[lost.pk] == TaskResultStatus.READY
    assert statuses[busy.pk] == TaskResultStatus.RUNNING
    assert statuses[fresh.pk] == TaskResultStatus.RUNNING
    assert runner.recover(now) == []  # once


@pytest.mark.django_db(transaction=True)  # (the worker's loop closes connections between tasks)
def test_a_recovered_task_runs_again_to_its_end(settings, tmp_path):
    now = timezone.now()
    lost = running_on("lost", now - dt.timedelta(seconds=settings.WORKER_LOST + 1), tmp_path)
    runner.recover(now)

    call_command("worker", "--batch")

    row = DBTaskResult.objects.get(pk=lost.pk)
    assert row.status == TaskResultStatus.SUCCESSFUL
    assert row.worker_ids[0] == "lost" and len(row.worker_ids) == 2
    assert (tmp_path / "marks").read_text().count("done") == 1


@pytest.mark.django_db(transaction=True)  # (the beat closes its connections as it goes)
def test_the_beat_says_alive_enqueues_the_due_duties_and_leaves_no_row_when_stopped():
    beat = runner.Beat("beating", every=60)

    beat.beat()

    row = WorkerBeat.objects.get(worker_id="beating")
    assert timezone.now() - row.seen < dt.timedelta(seconds=5)
    assert DBTaskResult.objects.filter(task_path="leaderboard.tasks.settle_days").count() == 1
    beat.stop()
    assert not WorkerBeat.objects.filter(worker_id="beating").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--interval", "0"], "--interval: expected 0 to 60 seconds, got 0.0"),
        (["--interval", "61"], "--interval: expected 0 to 60 seconds, got 61.0"),
        (["--queue-name", ","], "--queue-name: name at least one queue, or '*'"),
        (["--worker-id", "x" * 65], "--worker-id: 1 to 64 characters"),
    ],
)
def test_a_bad_option_is_refused_with_its_reason(args, message):
    with pytest.raises(CommandError, match="^" + message.replace("*", r"\*") + "$"):
        call_command("worker", *args)
