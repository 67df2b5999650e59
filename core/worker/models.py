"""What the worker tier keeps in the database beside the tasks themselves (django-tasks-db's
``DBTaskResult``): each worker's beat, and each periodic duty's next run."""

from __future__ import annotations

from django.db import models


class WorkerBeat(models.Model):
    """A worker process that is alive, as it last said so (``seen``, every ``WORKER_BEAT``
    seconds), and the worker id of the task runner it runs now (``task_worker_id``: its child,
    django-tasks-db's ``db_worker``, whose id the results it runs name). A task still running on
    a runner that no live worker runs is lost, and run again (``core.worker.runner.recover``)."""

    worker_id = models.CharField(max_length=64, primary_key=True)
    task_worker_id = models.CharField(max_length=64, blank=True, default="")
    host = models.CharField(max_length=255)
    pid = models.PositiveIntegerField()
    started = models.DateTimeField()
    seen = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.worker_id} ({self.host}:{self.pid})"


class Duty(models.Model):
    """A periodic duty (a task registered with ``core.worker.schedule.periodic``) and
    when it is next due. Whoever moves ``next_run`` on by one conditional UPDATE enqueues that
    run: one run per period for the whole deployment, whatever the number of workers."""

    name = models.CharField(max_length=255, primary_key=True)
    next_run = models.DateTimeField()
    last_enqueued = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.name
