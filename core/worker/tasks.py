"""The worker tier's own duty: finished tasks' rows are pruned (django-tasks-db's command)."""

from __future__ import annotations

import datetime as dt

from django.core.management import call_command
from django_tasks import task

from core.worker.schedule import periodic

#: Days a finished task's row is kept (a failed one: a week, to be looked at).
KEEP_DAYS = 2
KEEP_FAILED_DAYS = 7


@periodic(every=dt.timedelta(hours=1))
@task()
def prune_task_results() -> None:
    """Delete the rows of tasks finished ``KEEP_DAYS`` ago (failed ones: ``KEEP_FAILED_DAYS``)."""
    call_command(
        "prune_db_task_results",
        queue_name="*",
        min_age_days=KEEP_DAYS,
        failed_min_age_days=KEEP_FAILED_DAYS,
        verbosity=0,
    )
