"""A lost task is run again through the Tasks API, once, and its lost result closed as failed;
the beat says the worker is alive and enqueues the due duties; ``manage.py worker --batch`` runs
the ready tasks in this process (``core.worker.runner``). The worker's processes are tried for
real in ``test_supervisor.py`` and ``test_deployment.py``."""

from __future__ import annotations

import datetime as dt
import signal
import threading
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connections
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from core.worker import runner
from core.worker.models import WorkerBeat
from tests.worker.tasks import mark


def claimed(worker_id: str, path: Path) -> str:
    """A task of ``mark`` enqueued, and claimed by ``worker_id`` as a worker claims it."""
    result = mark.enqueue(str(path))
    DBTaskResult.objects.get(pk=result.id).claim(worker_id)
    return str(result.id)


def beat_of(worker_id: str, task_worker_id: str, seen: dt.datetime) -> WorkerBeat:
    return WorkerBeat.objects.create(
        worker_id=worker_id, task_worker_id=task_worker_id, host="h", pid=1, started=seen, seen=seen
    )


def mark_results() -> dict[str, tuple[str, list[Any]]]:
    """Every result of ``mark``: its status and its arguments, by id."""
    return {
        str(row.pk): (row.status, row.args_kwargs["args"])
        for row in DBTaskResult.objects.filter(task_path=mark.module_path)
    }


@pytest.mark.django_db
def test_a_lost_worker_s_task_is_enqueued_again_and_its_result_closed(settings, tmp_path):
    lost = claimed("gone:1:aaaaaa/1", tmp_path / "lost")
    busy = claimed("alive:2:bbbbbb/3", tmp_path / "busy")  # the runner of a live worker
    stale = claimed("alive:2:bbbbbb/2", tmp_path / "stale")  # its runner before: dead
    later = timezone.now() + dt.timedelta(seconds=settings.WORKER_LOST + 1)
    beat_of("alive:2:bbbbbb", "alive:2:bbbbbb/3", later - dt.timedelta(seconds=1))
    beat_of("gone:1:aaaaaa", "gone:1:aaaaaa/1", timezone.now() - dt.timedelta(days=1))

    assert runner.recover(timezone.now()) == []  # none has run WORKER_LOST seconds yet
    again = runner.recover(later)

    assert len(again) == 2
    results = mark_results()
    assert sorted(results[pk] for pk in again) == [
        (TaskResultStatus.READY, [str(tmp_path / "lost")]),
        (TaskResultStatus.READY, [str(tmp_path / "stale")]),
    ]
    assert results[busy][0] == TaskResultStatus.RUNNING
    for pk in (lost, stale):
        closed = mark.get_result(pk)
        assert closed.status == TaskResultStatus.FAILED
        assert closed.errors[0].exception_class_path == "core.worker.runner.WorkerLost"
        assert any(new in closed.errors[0].traceback for new in again)
    assert list(WorkerBeat.objects.values_list("worker_id", flat=True)) == ["alive:2:bbbbbb"]
    assert runner.recover(later) == []  # once


@pytest.mark.django_db
def test_a_dead_task_runner_s_task_is_enqueued_again_at_once(tmp_path):
    dead = claimed("w:1:cccccc/1", tmp_path / "dead")
    other = claimed("w:1:cccccc/2", tmp_path / "other")

    again = runner.recover_worker("w:1:cccccc/1")

    assert len(again) == 1
    results = mark_results()
    assert results[again[0]] == (TaskResultStatus.READY, [str(tmp_path / "dead")])
    assert results[dead][0] == TaskResultStatus.FAILED
    assert results[other][0] == TaskResultStatus.RUNNING
    assert runner.recover_worker("w:1:cccccc/1") == []


@pytest.mark.django_db(transaction=True)  # (the worker's loop closes connections between tasks)
def test_a_task_run_again_runs_to_its_end(tmp_path):
    claimed("w:1:dddddd/1", tmp_path / "marks")
    [again] = runner.recover_worker("w:1:dddddd/1")

    call_command("worker", "--batch")

    assert mark.get_result(again).status == TaskResultStatus.SUCCESSFUL
    assert (tmp_path / "marks").read_text().count("done") == 1


@pytest.mark.django_db(transaction=True)  # (two threads, two connections)
def test_two_workers_noticing_the_same_loss_enqueue_it_once(tmp_path):
    lost = claimed("w:1:eeeeee/1", tmp_path / "marks")
    barrier = threading.Barrier(2)
    found: list[str | None] = []

    def notice() -> None:
        try:
            barrier.wait()
            found.append(runner.run_again(lost, "lost"))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=notice) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert len(found) == 2 and found.count(None) == 1  # one enqueued it, the other found it done
    statuses = sorted(status for status, _ in mark_results().values())
    assert statuses == [TaskResultStatus.FAILED, TaskResultStatus.READY]


@pytest.mark.parametrize("task_path", ["tests.worker.tasks.go", "tests.worker.no_such_module.task"])
@pytest.mark.django_db
def test_a_lost_task_gone_from_the_code_is_closed_and_not_enqueued_again(task_path):
    row = DBTaskResult.objects.create(
        args_kwargs={"args": [], "kwargs": {}},
        task_path=task_path,  # (a result left by an older version of the code)
        backend_name="default",
        run_after=timezone.now(),
    )
    row.claim("w:1:ffffff/1")

    assert runner.recover_worker("w:1:ffffff/1") == []

    row.refresh_from_db()
    assert row.status == TaskResultStatus.FAILED
    assert "not run again" in row.traceback
    assert DBTaskResult.objects.count() == 1


@pytest.mark.django_db(transaction=True)  # (the beat closes its connections as it goes)
def test_the_beat_says_alive_enqueues_the_due_duties_and_leaves_no_row_when_stopped():
    beat = runner.Beat("beating", every=60)
    beat.task_worker_id = "beating/1"

    beat.beat()

    row = WorkerBeat.objects.get(worker_id="beating")
    assert row.task_worker_id == "beating/1"
    assert timezone.now() - row.seen < dt.timedelta(seconds=5)
    assert DBTaskResult.objects.filter(task_path="leaderboard.tasks.settle_days").count() == 1
    beat.stop()
    assert not WorkerBeat.objects.filter(worker_id="beating").exists()


@pytest.mark.django_db(transaction=True)
def test_a_batch_leaves_the_process_s_signal_handlers_as_they_were():
    def mine(signum: int, frame: FrameType | None) -> None:
        """A handler of the test's."""

    before = signal.signal(signal.SIGTERM, mine)
    try:
        call_command("worker", "--batch")

        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, before)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--interval", "0"], "--interval: expected 0 to 60 seconds, got 0.0"),
        (["--interval", "61"], "--interval: expected 0 to 60 seconds, got 61.0"),
        (["--queue-name", ","], "--queue-name: name at least one queue, or '*'"),
        (["--worker-id", "x" * 49], "--worker-id: 1 to 48 characters"),
    ],
)
def test_a_bad_option_is_refused_with_its_reason(args, message):
    with pytest.raises(CommandError, match="^" + message.replace("*", r"\*") + "$"):
        call_command("worker", *args)
