"""The worker tier as deployed: two web processes and two workers on one database, tried for
real — each day dealt once and settled once, hints answered while the workers deal, a killed
worker's task run again by the other, a worker stopped with SIGTERM ending (its task's runner
killed after the grace) and its task run again by the other, and nothing orphaned when ``make
run``'s supervisor is killed."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support import (
    ROOT,
    SERVE,
    Daphne,
    Worker,
    alive,
    children_of,
    django_env,
    free_port,
    get_json,
    migrate,
    post_json,
)
from tests.worker.tasks import go

PASSWORD = "felt-green-canfield-42"


def today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def eventually(check: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.1)


@dataclass
class Site:
    env: dict[str, str]
    database: Path
    workdir: Path
    webs: list[Daphne]
    workers: list[Worker]

    def query(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.database, timeout=20) as db:
            return db.execute(sql, args).fetchall()

    def results(self, task: str) -> list[Any]:
        """The return values of the finished runs of ``task``."""
        rows = self.query(
            "SELECT return_value FROM django_tasks_database_dbtaskresult"
            " WHERE task_path = ? AND status = 'SUCCESSFUL'",
            task,
        )
        return [json.loads(value) for (value,) in rows]

    def shell(self, code: str) -> None:
        subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", code],
            cwd=ROOT,
            env=self.env,
            check=True,
            capture_output=True,
            timeout=60,
        )

    def enqueue_hold(self, path: Path) -> None:
        self.shell(f"from tests.worker.tasks import hold; hold.enqueue({str(path)!r})")

    def running(self, runner: int) -> Worker:
        """The worker whose task runner is process ``runner``."""
        return next(w for w in self.workers if runner in children_of(w.pid))

    def holds(self) -> list[tuple[str, str, str, str]]:
        """Every result of ``hold``: its id, status, error class and traceback, oldest first."""
        return self.query(
            "SELECT id, status, exception_class_path, traceback"
            " FROM django_tasks_database_dbtaskresult"
            " WHERE task_path = 'tests.worker.tasks.hold' ORDER BY enqueued_at"
        )


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated database, copied by each test that needs a fresh one."""
    database = tmp_path_factory.mktemp("migrated") / "db.sqlite3"
    migrate(django_env(f"sqlite:///{database}"))
    return database


def fresh_database(migrated: Path, folder: Path) -> Path:
    database = folder / "db.sqlite3"
    shutil.copyfile(migrated, database)
    return database


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, migrated: Path) -> Iterator[Site]:
    workdir = tmp_path_factory.mktemp("deployment")
    database = fresh_database(migrated, workdir)
    env = django_env(
        f"sqlite:///{database}",
        DAILY_DEAL_SECRET="a test secret of the worker tier's days",
        DAILY_DEAL_SHORTEN_POSITIONS="0",
        SOLVER_PRESTART="on",  # as deployed
    )
    site = Site(env, database, workdir, [], [])
    # A day over and not settled yet, for the workers' duty to settle.
    yesterday = today() - dt.timedelta(days=1)
    site.shell(
        "import datetime as dt; from leaderboard.models import DailyDeal; "
        f"DailyDeal.objects.create(date=dt.date.fromisoformat({yesterday.isoformat()!r}))"
    )
    try:
        for n in (1, 2):
            site.webs.append(Daphne(env, workdir / f"web{n}.log").start())
        for n in (1, 2):
            site.workers.append(Worker(env, workdir / f"worker{n}.log").start())
        yield site
    finally:
        for worker in site.workers:
            worker.stop()
        for web in site.webs:
            web.stop()


def test_a_fresh_site_answers_hints_while_its_workers_deal(site):
    web = site.webs[0]
    assert web.process is not None
    pid = web.process.pid
    # Its first request (the health check it answered) started its solver pool's worker, before
    # anyone searched.
    eventually(lambda: children_of(pid), 10, "the pool's worker started")
    status, body = post_json(
        f"{site.webs[0].url}/api/auth/signup/", {"username": "early", "password": PASSWORD}
    )
    assert status == 201
    token = body["token"]
    status, game = post_json(
        f"{site.webs[0].url}/api/games/", {"code": "CF1-D3-AAAAACL"}, token=token
    )
    assert status == 201

    status, hint = get_json(f"{site.webs[0].url}/api/games/{game['id']}/hint/", token=token)

    assert status == 200, hint
    assert hint["outcome"] == "win" and hint["action"] == "R-T2"


def test_each_day_is_dealt_once_and_settled_once(site):
    days = [today().isoformat(), (today() + dt.timedelta(days=1)).isoformat()]

    def dealt() -> bool:
        rows = site.query("SELECT date FROM leaderboard_dailydeal WHERE code != '' ORDER BY date")
        return [str(day) for (day,) in rows] == days

    eventually(dealt, 120, "today and tomorrow dealt")
    dealt_by = sorted(day for run in site.results("leaderboard.tasks.deal_ahead") for day in run)
    assert dealt_by == days  # each by exactly one run of one worker
    yesterday = (today() - dt.timedelta(days=1)).isoformat()
    eventually(lambda: site.results("leaderboard.tasks.settle_days"), 30, "settle_days ran")
    settled = [day for run in site.results("leaderboard.tasks.settle_days") for day in run]
    assert settled == [yesterday]
    beats = site.query("SELECT pid FROM worker_workerbeat ORDER BY pid")
    assert sorted(pid for (pid,) in beats) == sorted(w.pid for w in site.workers)
    # Each periodic duty was enqueued once, whichever worker claimed it.
    counts = site.query(
        "SELECT task_path, COUNT(*) FROM django_tasks_database_dbtaskresult"
        " WHERE task_path LIKE '%.tasks.%' AND task_path NOT LIKE 'tests.%' GROUP BY task_path"
    )
    assert {count for _, count in counts} == {1}


def started_by(marks: Path) -> list[str]:
    return marks.read_text().split() if marks.exists() else []


def test_a_killed_worker_s_task_is_run_again_by_the_other(site):
    marks = site.workdir / "killed.marks"
    site.enqueue_hold(marks)
    eventually(lambda: "start" in started_by(marks), 20, "the task started")
    first = int(started_by(marks)[1])
    victim = site.running(first)
    other = next(w for w in site.workers if w is not victim)

    os.kill(victim.pid, signal.SIGKILL)
    assert victim.process is not None
    victim.process.wait(10)
    eventually(lambda: not alive(first), 10, "its task runner ended with it")
    go(marks).touch()

    # The other's beat finds the task's worker silent for WORKER_LOST seconds: run again there.
    eventually(lambda: "done" in started_by(marks), 60, "the task run again, to its end")
    again = int(started_by(marks)[3])
    assert again in children_of(other.pid)
    assert started_by(marks) == ["start", str(first), "start", str(again), "done", str(again)]
    site.workers.remove(victim)
    site.workers.append(Worker(site.env, site.workdir / "worker3.log").start())


def test_a_worker_stopped_during_a_long_task_ends_and_the_other_runs_it_again(site):
    marks = site.workdir / "stopped.marks"
    site.enqueue_hold(marks)  # (held until the test lets it go: longer than any grace)
    eventually(lambda: "start" in started_by(marks), 20, "the task started")
    first = int(started_by(marks)[1])
    stopping = site.running(first)
    other = next(w for w in site.workers if w is not stopping)

    os.kill(stopping.pid, signal.SIGTERM)
    assert stopping.process is not None
    assert stopping.process.wait(30) == 0  # (WORKER_STOP_GRACE, then its runner killed)
    assert not alive(first)

    # Its result closed, the task enqueued again: the other worker runs it at once.
    eventually(lambda: started_by(marks).count("start") == 2, 30, "the task started again")
    again = int(started_by(marks)[3])
    assert again in children_of(other.pid)
    go(marks).touch()
    eventually(lambda: "done" in started_by(marks), 30, "the task run again, to its end")
    assert started_by(marks) == ["start", str(first), "start", str(again), "done", str(again)]
    [lost, rerun] = site.holds()[-2:]
    assert lost[1:3] == ("FAILED", "core.worker.runner.WorkerLost")
    assert rerun[1] == "SUCCESSFUL" and rerun[0] in lost[3].replace("-", "")
    site.workers.remove(stopping)


def supervised(migrated: Path, tmp_path: Path) -> tuple[subprocess.Popen[bytes], set[int]]:
    """``make run``'s processes under their supervisor, on a fresh database, once the site
    answers: the supervisor, and its two children (Daphne and a worker) with the worker's task
    runner."""
    env = django_env(f"sqlite:///{fresh_database(migrated, tmp_path)}")
    # As `make run` starts them: no settings module named, each process takes the site's own.
    del env["DJANGO_SETTINGS_MODULE"]
    port = free_port()
    supervisor = subprocess.Popen(
        [sys.executable, "-m", "core.supervise"]
        + ["--", *SERVE, "-b", "127.0.0.1", "-p", str(port)]
        + ["--", sys.executable, "manage.py", "worker"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    eventually(lambda: answers(f"http://127.0.0.1:{port}/api/health/"), 30, "the site answered")
    eventually(lambda: len(children_of(supervisor.pid)) == 2, 10, "two children")
    children = children_of(supervisor.pid)
    # ... and the worker's task runner (django-tasks-db's db_worker), a grandchild.
    runners = eventually(lambda: set().union(*map(children_of, children)), 30, "a task runner")
    return supervisor, children | runners


def answers(url: str) -> bool:
    try:
        return get_json(url, timeout=2)[0] == 200
    except OSError:  # not listening yet
        return False


def test_nothing_is_left_running_when_make_run_s_supervisor_is_killed(migrated, tmp_path):
    supervisor, children = supervised(migrated, tmp_path)
    try:
        supervisor.kill()
        supervisor.wait(10)

        eventually(lambda: not any(alive(pid) for pid in children), 10, "the children ended")
    finally:
        for pid in children:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_make_run_s_supervisor_stops_both_on_sigterm(migrated, tmp_path):
    supervisor, children = supervised(migrated, tmp_path)

    supervisor.send_signal(signal.SIGTERM)
    status = supervisor.wait(30)

    assert status == 0
    assert not any(alive(pid) for pid in children)
