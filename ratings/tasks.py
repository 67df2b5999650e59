"""The ratings' background duty, run by the worker tier (``manage.py worker``), never by a web
process.

- :func:`rate_days` (every minute): rate the settled days not rated yet, in date order, each
  once, after going back to any day whose ranks were written again (``services.rate_due``).
  Idempotent: run twice, or by two workers at once (the second finds the lock taken), each day
  is rated once.
"""

from __future__ import annotations

import datetime as dt

from django_tasks import task

from core.worker.schedule import periodic
from ratings import services


@periodic(every=dt.timedelta(minutes=1))
@task()
def rate_days() -> list[str]:
    """Rate the settled days not rated yet, oldest first; returns the days rated."""
    return [day.isoformat() for day in services.rate_due()]
