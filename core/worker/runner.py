"""A worker of the worker tier: a supervisor process running django-tasks-db's own worker as its
child, with a beat beside it.

``manage.py worker`` runs a :class:`Supervisor`, which does two things:

- It runs django-tasks-db's worker — the library's public ``db_worker`` management command, in a
  child process (``manage.py db_worker --worker-id ... --queue-name ... --interval ...
  --no-reload --no-startup-delay``): claim the next ready task with a row lock, run it, record
  its result. The child runs at the lower scheduling priority ``WORKER_NICE`` and ends with the
  supervisor, even one killed with ``kill -9`` (it is started through ``core.lifeline``, which
  asks the kernel for ``SIGKILL`` when its parent ends). It is in a process group of its own, so
  a Ctrl-C in a terminal reaches the supervisor only.
- A :class:`Beat` thread that, every ``WORKER_BEAT`` seconds, says this worker is alive (its
  :class:`~core.worker.models.WorkerBeat` row, naming the child's worker id), enqueues the
  periodic duties that are due (``core.worker.schedule``: each once for the whole deployment),
  and runs again the tasks of lost workers (:func:`recover`).

**A bounded stop, without raising into a task.** On SIGTERM or SIGINT the supervisor sends the
child one SIGTERM — the library's graceful stop: it finishes the task it is running and takes no
other —, waits at most ``WORKER_STOP_GRACE`` seconds, then kills the child's process group
(SIGKILL). Work is bounded by ending the process that does it, never by raising an exception
into its code (which could land inside a transaction or a ``finally``). The child gets one
signal only: a second one would make the library raise ``SystemExit`` inside the task.

**A child that dies is started again.** Killed, crashed, or its database gone: the supervisor
runs again at once the task it was running (:func:`recover_worker`: the child is known to be
dead), then starts a new child after a backoff (``RESTART_DELAYS``), under a new worker id
(``<worker id>/<n>``), so that a result names the child that ran it.

**A lost task is run again through the Tasks API.** A task is lost when the process running it
ended before it finished: its child died (above), or its whole worker did (``kill -9``, its
machine gone), which the other workers' beats notice once it has been silent for
``WORKER_LOST`` seconds. Its result is read through the API (``get_result(id)`` of its backend:
a ``TaskResult`` with its ``task``, ``args`` and ``kwargs``); the task is enqueued again with
``task.enqueue(*args, **kwargs)`` — a new result, in the same queue, with the same priority —
and the lost result is closed with the library model's own ``DBTaskResult.set_failed`` (a
:class:`WorkerLost` error naming the new result), in one transaction that first locks the lost
row and checks it is still running, so that two workers noticing the same loss enqueue it once
(``SELECT ... FOR UPDATE`` on PostgreSQL; on SQLite every transaction takes the write lock as it
begins, ``transaction_mode`` IMMEDIATE). Every task of the service is idempotent (a day is
dealt once, a record built once), so running one again is always safe.

Why this way: django-tasks 0.12 has no public call to run a result again (Django's
``TaskResult`` is read-only; retrying is left to the backend), and django-tasks-db 0.13 offers
no command for it either; its model's public methods are ``claim``, ``set_successful`` and
``set_failed``. A new result by ``enqueue`` and the lost one closed by ``set_failed`` uses only
those, writes no row of the library by hand, and keeps the history honest: the failed result
says why and where its task went. The worker itself is the library's command, unchanged: what
it does with a signal is its documented graceful stop.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.core.management import call_command
from django.db import close_old_connections, connections, transaction
from django.utils import timezone
from django_tasks import TaskResultStatus, task_backends
from django_tasks_db.models import DBTaskResult

from core.worker import schedule
from core.worker.models import WorkerBeat

log = logging.getLogger(__name__)

#: Seconds before a child that ended is started again: the first restart, then each following
#: one, doubling up to the last; back to the first once a child has run ``RESTART_STEADY``.
RESTART_DELAYS = (1.0, 2.0, 4.0, 8.0, 16.0, 30.0)
RESTART_STEADY = 60.0
#: Seconds between two looks at the child and at a stop being asked for.
POLL = 0.2
#: Seconds a child killed with SIGKILL has to be gone (the kernel's time, not the task's).
KILL_WAIT = 10.0
#: The longest ``--worker-id`` (a child's id adds ``/<n>``; the library allows 64 characters).
WORKER_ID_MAX = 48


class WorkerLost(Exception):  # noqa: N818  (recorded as the lost result's error, never raised)
    """The error a lost task's result is closed with: the process running it ended before the
    task did (killed, crashed, or stopped past its grace)."""


def task_worker_id(worker_id: str, generation: int) -> str:
    """The worker id of the ``generation``-th child of worker ``worker_id``."""
    return f"{worker_id}/{generation}"


def run_again(result_id: str, why: str) -> str | None:
    """Enqueue again the task of result ``result_id`` if it is still marked running, and close
    that result as failed (module docstring); returns the new result's id, or None when there
    was nothing to do (it finished, or another worker ran it again first)."""
    with transaction.atomic():
        row = (
            DBTaskResult.objects.select_for_update()
            .filter(pk=result_id, status=TaskResultStatus.RUNNING)
            .first()
        )
        if row is None:
            return None
        try:
            lost = task_backends[row.backend_name].get_result(result_id)
        except (ImportError, SuspiciousOperation) as error:  # its task is gone from the code
            row.set_failed(WorkerLost(f"{why}; not run again: {error}"))
            log.error("task %s (%s): %s; not run again: %s", result_id, row.task_path, why, error)
            return None
        again = lost.task.enqueue(*lost.args, **lost.kwargs)
        row.set_failed(WorkerLost(f"{why}; run again as task {again.id}"))
    log.warning("task %s (%s): %s; run again as task %s", result_id, row.task_path, why, again.id)
    return str(again.id)


def _last_worker(worker_ids: Sequence[str]) -> str | None:
    return worker_ids[-1] if worker_ids else None


def recover_worker(worker_id: str) -> list[str]:
    """Run again the tasks still marked running on ``worker_id``, a child known to be dead;
    returns the new results' ids."""
    running = DBTaskResult.objects.running().only("pk", "worker_ids")
    lost = [str(row.pk) for row in running if _last_worker(row.worker_ids) == worker_id]
    again = [run_again(pk, f"the task runner running it ({worker_id}) ended") for pk in lost]
    return [pk for pk in again if pk is not None]


def recover(now: dt.datetime | None = None) -> list[str]:
    """Run again every task of a lost worker: still marked running, started ``WORKER_LOST``
    seconds ago or more, on a child that no worker alive (a beat within ``WORKER_LOST`` seconds)
    runs now. Forget the lost workers' beats. Returns the new results' ids."""
    now = now or timezone.now()
    lost_before = now - dt.timedelta(seconds=settings.WORKER_LOST)
    alive = set(
        WorkerBeat.objects.filter(seen__gte=lost_before).values_list("task_worker_id", flat=True)
    )
    running = DBTaskResult.objects.running().filter(started_at__lt=lost_before)
    lost = [
        (str(row.pk), _last_worker(row.worker_ids))
        for row in running.only("pk", "worker_ids")
        if _last_worker(row.worker_ids) not in alive
    ]
    again = [run_again(pk, f"the worker running it ({worker}) was lost") for pk, worker in lost]
    gone = WorkerBeat.objects.filter(seen__lt=lost_before)
    if gone.exists():  # (a read first: a beat takes no write lock it does not need)
        gone.delete()
    return [pk for pk in again if pk is not None]


class Beat(threading.Thread):
    """The worker's beat: alive, periodic duties, lost workers' tasks (module docstring).
    ``task_worker_id`` is the worker id of the child running now (set by the supervisor)."""

    def __init__(self, worker_id: str, every: float) -> None:
        super().__init__(name="worker-beat", daemon=True)
        self.worker_id = worker_id
        self.task_worker_id = ""
        self.every = every
        self.stopped = threading.Event()
        self.started_at = timezone.now()

    def beat(self) -> None:
        close_old_connections()
        now = timezone.now()
        with transaction.atomic():
            WorkerBeat.objects.update_or_create(
                worker_id=self.worker_id,
                defaults={
                    "task_worker_id": self.task_worker_id,
                    "host": socket.gethostname()[:255],
                    "pid": os.getpid(),
                    "started": self.started_at,
                    "seen": now,
                },
            )
        due = schedule.enqueue_due(now)
        if due:
            log.info("worker %s enqueued %s", self.worker_id, ", ".join(due))
        recover(now)

    def run(self) -> None:
        while not self.stopped.is_set():
            try:
                self.beat()
            except Exception:  # the database away: try again at the next beat
                log.exception("worker %s: its beat failed", self.worker_id)
            finally:
                connections.close_all()
            self.stopped.wait(self.every)

    def stop(self) -> None:
        self.stopped.set()
        if self.is_alive():
            self.join(timeout=max(self.every, 1.0) + 30)  # (a beat's statements are bounded)
        try:
            WorkerBeat.objects.filter(worker_id=self.worker_id).delete()
        except Exception:
            log.warning("worker %s: its beat row stays until it is lost", self.worker_id)
        finally:
            connections.close_all()


class Supervisor:
    """One worker: django-tasks-db's ``db_worker`` in a child process, started again if it dies,
    stopped within ``grace`` seconds, and a :class:`Beat` (module docstring).

    ``worker_args`` are the options given to ``db_worker`` besides its worker id."""

    def __init__(
        self,
        worker_id: str,
        worker_args: Sequence[str],
        *,
        grace: float,
        nice: int,
        beat_every: float,
    ) -> None:
        self.worker_id = worker_id
        self.worker_args = list(worker_args)
        self.grace = grace
        self.nice = nice
        self.beat = Beat(worker_id, beat_every)
        self.stopping = False
        self.child: subprocess.Popen[bytes] | None = None

    def command(self, task_worker: str) -> list[str]:
        """The child's command line: ``db_worker`` under ``core.lifeline`` (module docstring)."""
        manage = str(settings.BASE_DIR / "manage.py")
        return [
            sys.executable, "-m", "core.lifeline", "--parent", str(os.getpid()),
            "--signal", "KILL", "--nice", str(self.nice), "--",
            sys.executable, manage, "db_worker", "--worker-id", task_worker, *self.worker_args,
        ]  # fmt: skip

    def ask_to_stop(self, signum: int, frame: FrameType | None) -> None:
        """The handler of SIGTERM and SIGINT: the main loop stops the child (once)."""
        if not self.stopping:
            log.warning("worker %s: %s, stopping", self.worker_id, signal.strsignal(signum))
        self.stopping = True

    def run(self) -> None:
        signal.signal(signal.SIGTERM, self.ask_to_stop)
        signal.signal(signal.SIGINT, self.ask_to_stop)
        generation = 1
        restarts = 0
        self.beat.task_worker_id = task_worker_id(self.worker_id, generation)
        self.beat.start()
        try:
            while not self.stopping:
                task_worker = task_worker_id(self.worker_id, generation)
                self.beat.task_worker_id = task_worker
                began = time.monotonic()
                self.child = subprocess.Popen(
                    self.command(task_worker), cwd=settings.BASE_DIR, process_group=0
                )
                log.info("worker %s: task runner %s started", self.worker_id, task_worker)
                self.watch(self.child)
                self.end(self.child)
                self.recover_child(task_worker)
                if self.stopping:
                    break
                if time.monotonic() - began >= RESTART_STEADY:
                    restarts = 0
                delay = RESTART_DELAYS[min(restarts, len(RESTART_DELAYS) - 1)]
                restarts += 1
                log.warning(
                    "worker %s: task runner %s ended (status %s); started again in %.0f s",
                    self.worker_id,
                    task_worker,
                    self.child.returncode,
                    delay,
                )
                self.pause(delay)
                generation += 1
        finally:
            self.beat.stop()

    def watch(self, child: subprocess.Popen[bytes]) -> None:
        """Until the child ends or a stop is asked for."""
        while not self.stopping:
            try:
                child.wait(POLL)
                return
            except subprocess.TimeoutExpired:
                continue

    def end(self, child: subprocess.Popen[bytes]) -> None:
        """A running child: SIGTERM (it finishes its task), then, after ``grace`` seconds, its
        process group killed."""
        if child.poll() is not None:
            return
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(self.grace)
            return
        except subprocess.TimeoutExpired:
            pass
        log.warning(
            "worker %s: its task runner did not end within %.1f s: killed",
            self.worker_id,
            self.grace,
        )
        os.killpg(child.pid, signal.SIGKILL)  # (its group: the child and what it started)
        child.wait(KILL_WAIT)

    def recover_child(self, task_worker: str) -> None:
        """The ended child's task, run again (else by any worker's beat, ``WORKER_LOST`` later:
        the child's id is no live worker's)."""
        try:
            close_old_connections()
            recover_worker(task_worker)
        except Exception:
            log.exception(
                "worker %s: the task of %s not recovered yet", self.worker_id, task_worker
            )
        finally:
            connections.close_all()

    def pause(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not self.stopping and time.monotonic() < deadline:
            time.sleep(min(POLL, max(0.0, deadline - time.monotonic())))


def run_ready(worker_args: Sequence[str]) -> None:
    """The tasks ready now, run in this process by django-tasks-db's ``db_worker --batch``,
    leaving this process's signal handlers as they were (the library's worker installs its own)."""
    handlers: dict[int, Any] = {
        signum: signal.getsignal(signum)
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)
    }
    try:
        call_command("db_worker", "--batch", *worker_args)
    finally:
        for signum, handler in handlers.items():
            if handler is not None:
                signal.signal(signum, handler)
