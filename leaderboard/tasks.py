"""The leaderboard's background duties, run by the worker tier (``manage.py worker``), never by a
web process. Each is idempotent: run twice, or again after its worker was lost, it does its work
once (a day is dealt once, settled once).

Periodic (``core.worker.schedule``: once per period for the whole deployment):

- :func:`deal_ahead` (every minute): keep today's and tomorrow's deals dealt — a day with no deal
  is claimed and certified here, in the worker (single-flight across workers: ``deals.claim``);
  tomorrow is so dealt a day before it begins, and no player waits for the solver;
- :func:`settle_days` (every minute): the final ranks of the days that are over;
- :func:`rebuild_today` (every minute): today's Redis sorted sets, if they are missing;
- :func:`purge_reviews` (hourly): the fair-play reviews older than 30 days;
- :func:`judge_tops` (every five minutes): asks for the judgement of the wins and the top of
  today's and yesterday's boards that have none (:func:`sweep_judgements`), as the days settle.

On demand:

- :func:`rebuild_board`: a day's Redis sets from SQL (the live board found them missing);
- :func:`record_again`: attempts whose change Redis refused, recorded again from SQL with a
  growing wait, then broadcast;
- :func:`judge_attempt`: a daily attempt that is over, judged for fair play
  (``review.judge``: the cards it showed, and for a win or the top of the board the
  clairvoyance test, seconds to a minute of solver in the worker's own process); enqueued when
  an attempt ends (``leaderboard.receivers``) and by the sweep.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.utils import timezone
from django_tasks import TaskResultStatus, task
from django_tasks.exceptions import TaskResultDoesNotExist

from core.worker.schedule import periodic
from games.clock import day_end, utc_today
from games.models import Game
from leaderboard import deals, periods, review, signals, standings
from leaderboard.models import AttemptReview
from leaderboard.standings import sets

log = logging.getLogger(__name__)

#: Days kept dealt: today and tomorrow.
AHEAD = 2
#: The first wait before recording again an attempt Redis refused, and the longest.
RECORD_RETRY_FIRST = 0.5
RECORD_RETRY_CAP = 30.0
#: A judgement's task priority (django-tasks: higher first; the duties have 0): behind the
#: duties waiting, so that a day's judging never delays its dealing or settling.
PRIORITY_JUDGE = -5
#: The most judgements the sweep asks for in one run.
JUDGE_BATCH = 20


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


@task()
def judge_attempt(game_id: int) -> str:
    """Judge daily attempt ``game_id`` for fair play, here in the worker
    (``review.judge``); returns what it did ("judged", "counted", "kept", "not_over", "gone")."""
    return review.judge(game_id)


def _enqueue_judgement(game_id: int) -> None:
    """Enqueue :func:`judge_attempt` for ``game_id`` and note the task on its review, so that
    the sweep does not ask for it again while it waits."""
    result = judge_attempt.using(priority=PRIORITY_JUDGE).enqueue(game_id)
    AttemptReview.objects.filter(game_id=game_id).update(judge_task=str(result.id))


def request_judgement(game_id: int) -> None:
    """Have the worker tier judge attempt ``game_id``, which just ended (called once its change
    has committed). Never fails the request that ended it: if the task cannot be enqueued, the
    sweep (:func:`judge_tops`) asks for it later when the attempt is a win or in the top."""
    try:
        _enqueue_judgement(game_id)
    except Exception:  # the attempt's end is committed: never fail its request
        log.exception("fair play: the judgement of attempt %s is left to the sweep", game_id)


def _waiting(task_id: str) -> bool:
    """Whether the judging task ``task_id`` is still waiting or running (the Tasks API)."""
    if not task_id:
        return False
    try:
        result = judge_attempt.get_result(task_id)
    except TaskResultDoesNotExist:
        return False
    return result.status in (TaskResultStatus.READY, TaskResultStatus.RUNNING)


def sweep_judgements(now: dt.datetime | None = None, batch: int = JUDGE_BATCH) -> int:
    """Ask for the judgement of the attempts of today's and yesterday's boards that the
    clairvoyance test judges (every win, the top ``review.TOP``) and that are over without a
    judgement of this version or a task waiting for one: at most ``batch``, oldest first.
    Returns how many were asked for."""
    now = now or timezone.now()
    today = utc_today(now)
    judged = AttemptReview.objects.filter(judgement__version=review.JUDGE_VERSION)
    judged_ids = judged.values("game_id")
    asked = 0
    for day in (today, today - dt.timedelta(days=1)):
        wins = standings.attempts(day).filter(status=Game.Status.WON).exclude(pk__in=judged_ids)
        tops = Game.objects.filter(pk__in=review.top_of(day, now)).exclude(pk__in=judged_ids)
        wanted = (wins | tops).select_related("review").order_by("pk")
        for game in wanted.iterator(chunk_size=200):
            game.apply_day_end(today)
            found = getattr(game, "review", None)
            if game.is_in_progress or (found is not None and _waiting(found.judge_task)):
                continue
            if asked >= batch:
                return asked
            _enqueue_judgement(game.pk)
            asked += 1
    return asked


@periodic(every=dt.timedelta(minutes=5))
@task()
def judge_tops() -> int:
    """Ask for the judgements of the wins and tops of today and yesterday that have none
    (:func:`sweep_judgements`); returns how many were asked for."""
    return sweep_judgements()


# --- standings over time (leaderboard.periods) ---------------------------------------------------


@task()
def count_standings(day: str, again: bool = False) -> list[str]:
    """Add settled ``day`` to the standings over time — with every settled day before it not
    added yet, oldest first — or, ``again`` (the day was settled afresh), recompute its week,
    its month and all time. Enqueued when a day is settled (``leaderboard.receivers``); each day
    is added once however often it runs. Returns the days added or recomputed."""
    date = dt.date.fromisoformat(day)
    if again:
        periods.recount_day(date)
        return [day]
    return [added.isoformat() for added in periods.count_pending(until=date)]


@periodic(every=dt.timedelta(minutes=5))
@task()
def count_settled_days() -> list[str]:
    """Add to the standings over time the settled days not added yet (a task lost on its way,
    a deployment's first run); returns those added."""
    return [day.isoformat() for day in periods.count_pending()]
