"""One worker's processes, tried for real (``core.worker.runner.Supervisor``): its task runner
(django-tasks-db's ``db_worker``) runs at ``WORKER_NICE``, lets its task finish when stopped
within the grace, is started again when killed — its task run again at once, not after
``WORKER_LOST`` —, and ``core.lifeline`` starts a command tied to its parent."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import ROOT, Worker, alive, children_of, django_env, migrate
from tests.worker.tasks import go
from tests.worker.test_deployment import eventually, started_by


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    database = tmp_path_factory.mktemp("migrated") / "db.sqlite3"
    migrate(django_env(f"sqlite:///{database}"))
    return database


class One:
    """A worker on a fresh database of its own."""

    def __init__(self, migrated: Path, workdir: Path, **extra: str) -> None:
        self.database = workdir / "db.sqlite3"
        shutil.copyfile(migrated, self.database)
        self.env = django_env(f"sqlite:///{self.database}", **extra)
        self.log = workdir / "worker.log"
        self.worker = Worker(self.env, self.log)

    def query(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.database, timeout=20) as db:
            return db.execute(sql, args).fetchall()

    def statuses(self) -> list[str]:
        rows = self.query(
            "SELECT status FROM django_tasks_database_dbtaskresult"
            " WHERE task_path = 'tests.worker.tasks.hold' ORDER BY enqueued_at"
        )
        return [status for (status,) in rows]

    def hold(self, marks: Path) -> None:
        subprocess.run(
            [sys.executable, "manage.py", "shell", "-c"]
            + [f"from tests.worker.tasks import hold; hold.enqueue({str(marks)!r})"],
            cwd=ROOT,
            env=self.env,
            check=True,
            capture_output=True,
            timeout=60,
        )

    def runner(self) -> int:
        """The task runner's process id, once there is one."""
        found: set[int] = eventually(lambda: children_of(self.worker.pid), 30, "a task runner")
        [pid] = found
        return pid


@pytest.fixture
def start(migrated: Path, tmp_path: Path) -> Iterator[Callable[..., One]]:
    """``start(**settings)``: a worker with these settings, on a fresh database; stopped after
    the test."""
    started: list[One] = []

    def start(**extra: str) -> One:
        one = One(migrated, tmp_path, **extra)
        started.append(one)
        one.worker.start()
        return one

    yield start
    for one in started:
        one.worker.stop()


def nice_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[16])  # (field 19: nice)


def test_a_stopped_worker_lets_its_task_finish_and_takes_no_other(start, tmp_path):
    one = start(WORKER_STOP_GRACE="60", WORKER_NICE="5")
    marks = tmp_path / "marks"
    one.hold(marks)
    eventually(lambda: "start" in started_by(marks), 30, "the task started")
    runner = int(started_by(marks)[1])
    assert runner == one.runner()
    assert nice_of(runner) == min(19, nice_of(os.getpid()) + 5)
    assert nice_of(one.worker.pid) == nice_of(os.getpid())  # (the beat keeps its priority)

    os.kill(one.worker.pid, signal.SIGTERM)
    eventually(lambda: "shutting down gracefully" in one.log.read_text(), 30, "the runner told")
    one.hold(tmp_path / "another")  # enqueued while it stops: not taken
    go(marks).touch()

    assert one.worker.process is not None
    assert one.worker.process.wait(30) == 0
    assert started_by(marks) == ["start", str(runner), "done", str(runner)]
    assert one.statuses() == ["SUCCESSFUL", "READY"]
    assert not alive(runner)
    assert one.query("SELECT worker_id FROM worker_workerbeat") == []


def test_a_killed_task_runner_is_started_again_and_its_task_run_again_at_once(start, tmp_path):
    one = start(WORKER_LOST="600")
    marks = tmp_path / "marks"
    one.hold(marks)
    eventually(lambda: "start" in started_by(marks), 30, "the task started")
    first = one.runner()

    os.kill(first, signal.SIGKILL)
    eventually(lambda: not alive(first), 10, "the runner killed")
    go(marks).touch()

    # Run again long before WORKER_LOST: its worker knew its runner had died.
    eventually(lambda: "done" in started_by(marks), 60, "the task run again, to its end")
    again = one.runner()
    assert again != first
    assert started_by(marks) == ["start", str(first), "start", str(again), "done", str(again)]
    assert one.statuses() == ["FAILED", "SUCCESSFUL"]
    [(error,)] = one.query(
        "SELECT exception_class_path FROM django_tasks_database_dbtaskresult"
        " WHERE status = 'FAILED'"
    )
    assert error == "core.worker.runner.WorkerLost"


#: A parent for ``core.lifeline``: it starts its arguments (``PARENT``: its own process id),
#: then waits to be killed.
PARENT = (
    "import os, subprocess, sys, time; "
    "subprocess.Popen([a.replace('PARENT', str(os.getpid())) for a in sys.argv[1:]]); "
    "time.sleep(120)"
)


def test_a_command_started_by_lifeline_runs_at_its_priority_and_ends_with_its_parent(tmp_path):
    out = tmp_path / "nice"
    command = f"import os, time; open({str(out)!r}, 'w').write(str(os.nice(0))); time.sleep(120)"
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT]
        + [sys.executable, "-m", "core.lifeline", "--parent", "PARENT", "--nice", "3", "--"]
        + [sys.executable, "-c", command],
        cwd=ROOT,
    )
    try:
        eventually(lambda: out.exists() and out.read_text(), 30, "the command started")
        [child] = children_of(parent.pid)
        assert int(out.read_text()) == min(19, nice_of(os.getpid()) + 3)

        parent.kill()
        parent.wait(10)

        eventually(lambda: not alive(child), 10, "the command ended with its parent")
    finally:
        parent.kill()
        parent.wait(10)
        for pid in children_of(parent.pid):
            os.kill(pid, signal.SIGKILL)


def test_lifeline_runs_nothing_for_a_parent_already_gone_or_a_bad_priority(tmp_path):
    out = tmp_path / "ran"
    command = [sys.executable, "-c", f"open({str(out)!r}, 'w')"]
    lifeline = [sys.executable, "-m", "core.lifeline"]

    gone = subprocess.run(
        [*lifeline, "--parent", "1", "--", *command], cwd=ROOT, capture_output=True, timeout=30
    )
    bad = subprocess.run(
        [*lifeline, "--parent", str(os.getpid()), "--nice", "20", "--", *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )

    assert gone.returncode == 1
    assert bad.returncode == 2 and "--nice: expected 0 to 19, got 20" in bad.stderr
    assert not out.exists()
