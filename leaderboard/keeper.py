"""Days dealt ahead, with no scheduler: each web process keeps today's and tomorrow's deals dealt.

:func:`start` (called once the ASGI application is built, so at every server start, ``make run``
included) starts one daemon thread per process. It warms the solver pool up, then every
``CHECK_EVERY`` seconds, and just after each UTC midnight, makes sure today and tomorrow are
dealt: a day without a stored deal is claimed and certified in the pool (``leaderboard.deals``,
single-flight across processes: a day another process is dealing is left to it), and a day dealt
before days had a difficulty has its difficulty measured. Tomorrow is dealt
before it begins, so the first player of a day never waits for the solver; a day that could not be
dealt is tried again at the next check. The thread only waits (for the pool, for the database):
the search runs in a worker process.

``DEAL_AHEAD`` (on by default) turns it off, e.g. for a process that only runs the periodic
commands (``manage.py prepare_daily_deals``).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from typing import Final

from django.conf import settings
from django.db import connections
from django.utils import timezone

from games import pool
from games.clock import day_end, utc_today
from leaderboard import deals

log = logging.getLogger(__name__)

#: Seconds between two checks of the days ahead.
CHECK_EVERY: Final = 60.0
#: Days kept dealt: today and tomorrow.
AHEAD: Final = 2

_started = threading.Event()


def days_ahead(now: dt.datetime | None = None) -> list[dt.date]:
    today = utc_today(now)
    return [today + dt.timedelta(days=k) for k in range(AHEAD)]


def keep_dealt(now: dt.datetime | None = None) -> list[dt.date]:
    """One check: deal each of the days ahead that has no deal and that nobody else is dealing.
    Returns the days dealt here."""
    dealt = []
    for day in days_ahead(now):
        try:
            if deals.stored(day) is None and deals.claim(day):
                row = deals.deal(day)
                dealt.append(day)
                log.info("dealt %s: n=%s, par %s", day, row.n, row.par)
            else:
                deals.measure(day)
        except Exception:
            log.exception("the deal of %s could not be certified; trying again later", day)
        finally:
            connections.close_all()  # (this thread's connections, back to the pool)
    return dealt


def _until_next_check() -> float:
    now = timezone.now()
    midnight = (day_end(utc_today(now)) - now).total_seconds() + 0.5
    return max(0.5, min(CHECK_EVERY, midnight))


def _run() -> None:
    pool.warm_up()
    while True:
        keep_dealt()
        time.sleep(_until_next_check())


def start() -> bool:
    """Start this process's keeper (once; not at all with ``DEAL_AHEAD`` off). Returns whether
    it started now."""
    if not settings.DEAL_AHEAD or _started.is_set():
        return False
    _started.set()
    threading.Thread(target=_run, name="daily-deal-keeper", daemon=True).start()
    return True
