"""The accounts' duty in the worker tier: idle guests are purged."""

from __future__ import annotations

import datetime as dt

from django_tasks import task

from core.accounts import guests
from core.worker.schedule import periodic


@periodic(every=dt.timedelta(hours=1))
@task()
def purge_guests() -> int:
    """Delete the guests idle for ``GUEST_IDLE_DAYS`` with their games, ``guests.PURGE_BATCH``
    at most; returns how many."""
    return guests.purge()
