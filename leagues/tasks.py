"""The leagues' background duties, run by the worker tier (``manage.py worker``), never by a web
process. Each is idempotent: a day is scored once per settlement, a week closed once, under its
row's lock, however many workers run them.

- :func:`score_day` (on demand): a settled day's newcomers placed and its points written;
  enqueued by ``leagues.receivers`` when a day settles.
- :func:`close_weeks` (every five minutes): first the settled days whose points are missing or
  stale (a task lost), then every week that can close, closed.
"""

from __future__ import annotations

import datetime as dt

from django_tasks import task

from core.worker.schedule import periodic
from leagues import services


@task()
def score_day(day: str) -> bool:
    """Place ``day``'s newcomers and write its points (``services.score_day``); returns whether
    it wrote anything."""
    return services.score_day(dt.date.fromisoformat(day))


@periodic(every=dt.timedelta(minutes=5))
@task()
def close_weeks() -> list[str]:
    """Score what was missed, then close the weeks that can close; returns their Mondays."""
    services.catch_up()
    return [monday.isoformat() for monday in services.close_due()]
