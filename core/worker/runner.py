"""A worker process of the worker tier: django-tasks-db's worker, with a beat beside it.

``manage.py worker`` runs :class:`Worker` — django-tasks-db's own ``Worker`` (the loop its
``db_worker`` command runs: claim the next ready task with a row lock, run it, record its result)
with two changes, both through its overridable methods — and a :class:`Beat` thread that, every
``WORKER_BEAT`` seconds:

- says this worker is alive (its :class:`~core.worker.models.WorkerBeat` row);
- enqueues the periodic duties that are due (``core.worker.schedule``: each once for
  the whole deployment);
- runs again the tasks of lost workers (:func:`recover`): a task still marked running on a worker
  that has not beaten for ``WORKER_LOST`` seconds (killed with ``kill -9``, its machine gone) is
  made ready again, and the next free worker runs it. Every task of the service is idempotent (a
  day is dealt once, a record built once), so running one again is always safe.

The two changes to the library's loop: a stop is bounded — on SIGTERM or SIGINT a worker lets its
task run for ``WORKER_STOP_GRACE`` more seconds, then interrupts it (:class:`Interrupted`) and
makes it ready again, so a worker ends within a few seconds whatever it was doing (the library
waits for the task, however long) —; and a task interrupted so is run again rather than recorded
as failed.

Why django-tasks-db's worker rather than one of our own: it is the Tasks API's own database
backend, kept by Django's Tasks maintainer; its claim (``SELECT ... FOR UPDATE SKIP LOCKED`` on
PostgreSQL, an exclusive transaction on SQLite) already runs each task on one worker only. Its
``Worker`` class is not documented API: if the library changes it, ``tests/worker/test_runner.py``
fails first (it checks the attributes used here).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import signal
import socket
import threading
from types import FrameType
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connections, transaction
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.management.commands.db_worker import Worker as DatabaseWorker
from django_tasks_db.models import DBTaskResult

from core.worker import schedule
from core.worker.models import WorkerBeat

log = logging.getLogger(__name__)


class Interrupted(BaseException):  # noqa: N818  (not an error: the worker is stopping)
    """Raised inside a task that outlived its worker's stop grace."""


class Worker(DatabaseWorker):
    """django-tasks-db's worker loop, with a bounded stop (see the module's docstring)."""

    def __init__(self, *, grace: float, **options: Any) -> None:
        super().__init__(**options)
        self.grace = grace
        self.interrupted = False

    def shutdown(self, signum: int, frame: FrameType | None) -> None:
        if not self.running_task:
            super().shutdown(signum, frame)  # idle: exits at once
            return
        if not self.running:  # a second signal (Ctrl-C, then the supervisor's SIGTERM): now
            self._interrupt(signum, frame)
            return
        log.warning(
            "worker %s: %s, its task has %.1f s to end",
            self.worker_id,
            signal.strsignal(signum),
            self.grace,
        )
        self.running = False
        signal.signal(signal.SIGALRM, self._interrupt)
        signal.setitimer(signal.ITIMER_REAL, max(self.grace, 0.001))

    def _interrupt(self, signum: int, frame: FrameType | None) -> None:
        if self.running_task:
            self.interrupted = True
            raise Interrupted(f"worker {self.worker_id} stopped")

    def run_task(self, db_task_result: DBTaskResult[Any, Any]) -> None:
        super().run_task(db_task_result)
        signal.setitimer(signal.ITIMER_REAL, 0)
        if self.interrupted:
            self.interrupted = False
            if make_ready(db_task_result.pk, TaskResultStatus.FAILED):
                log.warning(
                    "worker %s: task %s (%s) interrupted, to be run again",
                    self.worker_id,
                    db_task_result.pk,
                    db_task_result.task_path,
                )


def make_ready(pk: Any, status: str) -> bool:
    """Make task ``pk`` ready to run again, if its status is still ``status``."""
    return (
        DBTaskResult.objects.filter(pk=pk, status=status).update(
            status=TaskResultStatus.READY,
            finished_at=None,
            exception_class_path="",
            traceback="",
        )
        == 1
    )


def recover(now: dt.datetime | None = None) -> list[str]:
    """Make ready again every task still running on a lost worker (no beat for ``WORKER_LOST``
    seconds); returns their ids."""
    now = now or timezone.now()
    lost_before = now - dt.timedelta(seconds=settings.WORKER_LOST)
    alive = set(
        WorkerBeat.objects.filter(seen__gte=lost_before).values_list("worker_id", flat=True)
    )
    recovered = []
    running = DBTaskResult.objects.filter(
        status=TaskResultStatus.RUNNING, started_at__lt=lost_before
    ).only("pk", "worker_ids", "task_path")
    for row in running:
        last = row.worker_ids[-1] if row.worker_ids else None
        if last in alive:
            continue
        if make_ready(row.pk, TaskResultStatus.RUNNING):
            log.warning("task %s (%s) of lost worker %s: run again", row.pk, row.task_path, last)
            recovered.append(str(row.pk))
    lost = WorkerBeat.objects.filter(seen__lt=lost_before)
    if lost.exists():  # (a read first: a beat takes no write lock it does not need)
        lost.delete()
    return recovered


class Beat(threading.Thread):
    """The worker's beat: alive, periodic duties, lost workers' tasks (module docstring)."""

    def __init__(self, worker_id: str, every: float) -> None:
        super().__init__(name="worker-beat", daemon=True)
        self.worker_id = worker_id
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
        try:
            WorkerBeat.objects.filter(worker_id=self.worker_id).delete()
        except Exception:
            log.warning("worker %s: its beat row stays until it is lost", self.worker_id)
        finally:
            connections.close_all()
