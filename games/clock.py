"""The server's clock: days are UTC days, and a daily deal's day ends at midnight UTC."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone


def utc_today(now: dt.datetime | None = None) -> dt.date:
    """The current UTC date (of ``now``, when given)."""
    return (now or timezone.now()).astimezone(dt.UTC).date()


def day_end(day: dt.date) -> dt.datetime:
    """The instant a UTC day ends: midnight UTC at the start of the next day."""
    return dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC)
