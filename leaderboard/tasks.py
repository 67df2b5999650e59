"""The leaderboard's background duties, run by the worker tier (``manage.py worker``), never by a
web process. Each is idempotent: run twice, or again after its worker was lost, it does its work
once (a day is dealt once, settled once).

Periodic (``core.worker.schedule``: once per period for the whole deployment):

- :func:`deal_ahead` (every minute): keep today's and tomorrow's deals dealt — a day with no deal
  is claimed and certified here, in the worker (single-flight across workers: ``deals.claim``);
  tomorrow is so dealt a day before it begins, and no player waits for the solver;
- :func:`settle_days` (every minute): the final ranks of the days that are over;
- :func:`rebuild_today` (every minute): today's Redis sorted sets, if they are missing;
- :func:`purge_reviews` (hourly): the fair-play reviews older than 30 days.

On demand:

- :func:`rebuild_board`: a day's Redis sets from SQL (the live board found them missing);
- :func:`record_again`: attempts whose change Redis refused, recorded again from SQL with a
  growing wait, then broadcast.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.utils import timezone
from django_tasks import task

from core.worker.schedule import periodic
from games.clock import day_end, utc_today
from games.models import Game
from leaderboard import deals, review, signals, standings
from leaderboard.standings import sets

log = logging.getLogger(__name__)

#: Days kept dealt: today and tomorrow.
AHEAD = 2
#: The first wait before recording again an attempt Redis refused, and the longest.
RECORD_RETRY_FIRST = 0.5
RECORD_RETRY_CAP = 30.0


def days_ahead(now: dt.datetime | None = None) -> list[dt.date]:
    today = utc_today(now)
    return [today + dt.timedelta(days=k) for k in range(AHEAD)]


def keep_dealt(now: dt.datetime | None = None) -> list[dt.date]:
    """Deal each of the days ahead that has no deal and that nobody else is dealing (a day dealt
    before days had a difficulty gets it measured); returns the days dealt here. A day that could
    not be dealt is logged and left to the next run (``deals.FAILED_BACKOFF``)."""
    dealt = []
    for day in days_ahead(now):
        try:
            if deals.stored(day) is None:
                if deals.claim(day):
                    row = deals.deal(day)
                    dealt.append(day)
                    log.info("dealt %s: n=%s, par %s", day, row.n, row.par)
            else:
                deals.measure(day)
        except Exception:
            log.exception("the deal of %s could not be certified; trying again later", day)
    return dealt


@periodic(every=dt.timedelta(minutes=1))
@task()
def deal_ahead() -> list[str]:
    """Keep today and tomorrow dealt (:func:`keep_dealt`); returns the days dealt."""
    return [day.isoformat() for day in keep_dealt()]


@periodic(every=dt.timedelta(minutes=1))
@task()
def settle_days() -> list[str]:
    """Write the final ranks of the days that are over (each day once); returns those settled."""
    return [day.isoformat() for day in standings.settle_due()]


@periodic(every=dt.timedelta(hours=1))
@task()
def purge_reviews() -> int:
    """Delete the fair-play reviews older than ``review.KEEP``; returns how many."""
    return review.purge()


@periodic(every=dt.timedelta(minutes=1))
@task()
def rebuild_today() -> bool:
    """Build today's Redis sets if they are missing (a quiet day too); returns whether it did."""
    return _rebuild(utc_today(), force=False)


@task()
def rebuild_board(day: str, force: bool = False) -> bool:
    """Build ``day``'s Redis sets from SQL if they are missing (``force``: drop and build them
    afresh); returns whether it built them. Its board is read from SQL meanwhile."""
    return _rebuild(dt.date.fromisoformat(day), force)


def _rebuild(day: dt.date, force: bool) -> bool:
    if not sets.enabled() or timezone.now() >= day_end(day):
        return False
    if force:
        sets.forget(day)
    elif not standings.needs_rebuild(day):
        return False
    built = sets.rebuild(day)
    if built:
        log.info("leaderboard: the Redis sets of %s were rebuilt", day)
    return built


@task()
def record_again(day: str, game_ids: list[int], attempt: int = 1) -> list[int]:
    """Record the attempts ``game_ids`` of ``day`` in its Redis sets again, as they stand in SQL,
    then broadcast the day. Those Redis refuses again are tried again later — waiting twice as
    long each time, up to ``RECORD_RETRY_CAP`` seconds — until the day is over (its board is then
    read from SQL and its final ranks). Returns the attempts still unrecorded."""
    date = dt.date.fromisoformat(day)
    failed = [
        game.pk
        for game in Game.objects.select_related("owner").filter(pk__in=game_ids)
        if not sets.record(game)
    ]
    if failed and timezone.now() < day_end(date):
        wait = min(RECORD_RETRY_CAP, RECORD_RETRY_FIRST * 2**attempt)
        record_again.using(run_after=timezone.now() + dt.timedelta(seconds=wait)).enqueue(
            day, failed, attempt + 1
        )
    elif not failed:
        signals.board_changed.send(sender=Game, day=date)
    return failed
