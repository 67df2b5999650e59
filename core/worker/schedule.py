"""Periodic duties, scheduled once for the whole deployment.

A duty is a task of Django's Tasks API registered with :func:`periodic` in its app's
``tasks.py``::

    @periodic(every=dt.timedelta(minutes=1))
    @task()
    def settle_days() -> int: ...

Every worker process (``manage.py worker``) calls :func:`enqueue_due` at each of its beats. A
duty's row (:class:`~core.worker.models.Duty`) holds when it is next due; the worker
that moves ``next_run`` on, by one conditional ``UPDATE ... WHERE next_run <= now``, enqueues
that run, in the same transaction — so each run is enqueued exactly once however many workers
beat, none is lost if a worker dies between the two, and no worker has to be elected the
scheduler. A duty runs at once on a new deployment (its row is created due).

Why not a scheduler library: django-crontask, the cron for Django's task framework, needs
Django 6 and Python 3.12 (this service runs Django 5.2 LTS on Python 3.11), and it keeps one
scheduler process alive with a Redis lock; Celery beat would bring Celery. A row per duty in the
database the tasks already live in is the whole of what is needed (docs/architecture.md).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import IntegrityError, transaction
from django.utils import timezone
from django_tasks.base import Task

from core.worker.models import Duty

log = logging.getLogger(__name__)

TaskT = TypeVar("TaskT", bound=Task[Any, Any])


@dataclass(frozen=True)
class Periodic:
    task: Task[Any, Any]
    every: dt.timedelta

    @property
    def name(self) -> str:
        return self.task.module_path


#: Every periodic duty, by its task's dotted path.
DUTIES: dict[str, Periodic] = {}


def periodic(every: dt.timedelta) -> Callable[[TaskT], TaskT]:
    """Register a task (with no arguments) to run every ``every``, for the whole deployment."""
    if every <= dt.timedelta(0):
        raise ValueError("a periodic duty needs a positive period")

    def register(task: TaskT) -> TaskT:
        duty = Periodic(task, every)
        DUTIES[duty.name] = duty
        return task

    return register


def enqueue_due(now: dt.datetime | None = None) -> list[str]:
    """Enqueue each duty that is due and that no other worker enqueued for this period; returns
    their names."""
    now = now or timezone.now()
    # One read for all duties; only those due (or new) are claimed, each in a transaction.
    next_runs = dict(Duty.objects.filter(name__in=DUTIES).values_list("name", "next_run"))
    enqueued = []
    for name, duty in sorted(DUTIES.items()):
        due = next_runs.get(name)
        if (due is None or due <= now) and _claim(name, duty, now):
            enqueued.append(name)
    return enqueued


def _claim(name: str, duty: Periodic, now: dt.datetime) -> bool:
    try:
        with transaction.atomic():
            Duty.objects.get_or_create(name=name, defaults={"next_run": now})
            won = (
                Duty.objects.filter(name=name, next_run__lte=now).update(
                    next_run=now + duty.every, last_enqueued=now
                )
                == 1
            )
            if won:
                duty.task.enqueue()
            return won
    except IntegrityError:  # two workers created the row at once: the other one has it
        return False


def run_now(name: str) -> None:
    """Make the duty ``name`` due at once (an operator's command, a test)."""
    Duty.objects.update_or_create(name=name, defaults={"next_run": timezone.now()})
