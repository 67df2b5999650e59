"""The games' background duties, run by the worker tier (``manage.py worker``), never by a web
process, and how they are asked for. Each is idempotent: run twice, it does its work once.

Periodic (``core.worker.schedule``: once per period for the whole deployment):

- :func:`close_daily_attempts` (every minute): write the closing of the daily attempts still open
  after their UTC day ended (every read already shows them closed).
- :func:`analyse_past_days` (every minute): ask for the analyses of the daily attempts of the
  days over (:func:`sweep_analyses`, a few at a time).
- :func:`fill_winnable_pool` (every minute): keep the pools of deals proved winnable full
  (``games.winnable.fill``), so that a new random practice game is dealt one at once.

On demand:

- :func:`keep_records`: build and keep a finished game's records once its code is public
  (``games.records``; enqueued by ``games.receivers`` when a game ends).
- :func:`analyse_game`: where a finished game's win slipped away (``games.analysis``), solved
  here, in the worker's own process; asked for by :func:`request_analysis` when a practice game
  ends, by the sweep, or by a reader of its analysis.
- :func:`improve_hint`: a shorter winning line than the one a hint's search found first (a hint
  answers with the first line proved), kept for the later hints (``games.services``); asked for
  by every search that finds a winning line (:func:`line_found`).

This module imports the modules whose work it runs (``games.analysis``, ``games.records``,
``games.services``, ``games.winnable``); none of them imports it.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django_tasks import TaskResultStatus, task
from django_tasks.exceptions import TaskResultDoesNotExist

from core.worker.schedule import periodic
from games import analysis, pool_jobs, records, services, winnable
from games.clock import utc_today
from games.models import Game, GameAnalysis

log = logging.getLogger(__name__)

#: The priority of a hint's improvement (django-tasks: higher first; the duties have 0): behind
#: the duties waiting, ahead of the swept analyses.
PRIORITY_IMPROVE = -2


@periodic(every=dt.timedelta(minutes=1))
@task()
def close_daily_attempts() -> dict[str, int]:
    """Close the daily attempts left open after their day; returns how many, by day."""
    closed = services.close_daily_attempts()
    return {day.isoformat(): count for day, count in closed.items()}


@task()
def keep_records(game_id: int) -> int:
    """Build and keep the records of game ``game_id`` (with and without its states) if it is over
    and its code public, here in the worker (``games.records.keep``); returns how many were built
    (0: kept already, or not final)."""
    return records.keep(game_id)


@periodic(every=dt.timedelta(minutes=1))
@task()
def analyse_past_days() -> int:
    """Ask for the analyses of the past days' daily attempts that have none, a few at a time
    (:func:`sweep_analyses`); returns how many were asked for."""
    return sweep_analyses()


@task()
def analyse_game(game_id: int) -> str:
    """Where game ``game_id``'s win slipped away, computed and stored here
    (``games.analysis.analyse``); returns the analysis' status, or ``not_analysable``."""
    return analysis.analyse(game_id)


@periodic(every=dt.timedelta(minutes=1))
@task()
def fill_winnable_pool() -> dict[str, int]:
    """Top up the pools of deals proved winnable (``games.winnable.fill``), solved here, in the
    worker's own process; returns how many deals were added, by mode."""
    return winnable.fill()


@task()
def improve_hint(
    game_id: int, code: str, state: str, line: list[str], positions: int | None = None
) -> int:
    """Search, here in the worker's own process, a winning line shorter than ``line`` (the one a
    hint's search of game ``game_id`` found first from the position stored as ``state``) within
    ``HINT_SECONDS`` (the time the hint's own search gave it before; and ``positions``, if
    given), and keep its steps for the later hints (``services.keep_better_line``); returns how
    many steps were kept (0: none shorter found)."""
    steps = pool_jobs.better_line(code, state, line, settings.HINT_SECONDS, positions)
    return services.keep_better_line(game_id, steps)


def line_found(game: Game, state: str, line: tuple[str, ...]) -> None:
    """A hint's search found ``line``, the first winning line it proved: ask the worker tier
    for a shorter one (:func:`improve_hint`), once the search's steps are committed."""
    game_id, code = game.pk, game.code
    transaction.on_commit(
        lambda: improve_hint.using(priority=PRIORITY_IMPROVE).enqueue(
            game_id, code, state, list(line)
        )
    )


services.on_line_found(line_found)


# --- asking for an analysis ---------------------------------------------------------------------

_ALIVE = (TaskResultStatus.READY, TaskResultStatus.RUNNING)


def _waiting_task(row: GameAnalysis) -> tuple[str, int] | None:
    """The status and priority of the task ``row`` waits for, if it is still waiting or running
    (read through the Tasks API)."""
    if not row.task_id:
        return None
    try:
        result = analyse_game.get_result(row.task_id)
    except TaskResultDoesNotExist:
        return None
    if result.status not in _ALIVE:
        return None
    return str(result.status), int(result.task.priority)


def request_analysis(game: Game, priority: int = analysis.PRIORITY_REQUESTED) -> GameAnalysis:
    """The analysis of ``game`` (analysable: the caller's check) as it stands: a current answer,
    or a pending row whose task is waiting or running. Enqueues :func:`analyse_game` when there
    is neither — one task per game at a time, under parallel requests too (the row is locked
    while it is decided; on SQLite every write transaction is exclusive). A reader asking for an
    analysis the sweep enqueued behind everything else gets a task of their own priority, which
    the row then waits for (the first one to run stores the answer; the other finds it current
    and does nothing). A won game is stored at once (``analysis.store_won``), without a task."""
    if game.status == Game.Status.WON:
        row = GameAnalysis.objects.filter(game=game).first()
        return row if row is not None and analysis.is_current(row) else analysis.store_won(game)
    with transaction.atomic():
        row, created = GameAnalysis.objects.select_for_update().get_or_create(
            game=game,
            defaults={
                "status": GameAnalysis.Status.PENDING,
                "version": analysis.ANALYSIS_VERSION,
            },
        )
        if not created and analysis.is_current(row):
            return row
        if not created and row.status == GameAnalysis.Status.PENDING:
            waiting = _waiting_task(row)
            if waiting is not None:
                status, queued_at = waiting
                if not (priority > queued_at and status == TaskResultStatus.READY):
                    return row
        result = analyse_game.using(priority=priority).enqueue(game.pk)
        row.status = GameAnalysis.Status.PENDING
        row.version = analysis.ANALYSIS_VERSION
        row.task_id = str(result.id)
        row.save(update_fields=["status", "version", "task_id"])
    log.info("analysis of game %s enqueued (task %s)", game.pk, row.task_id)
    return row


def sweep_analyses(today: dt.date | None = None, batch: int | None = None) -> int:
    """Ask for the analyses of the daily attempts of the days over (the last
    ``analysis.SWEEP_DAYS``), newest day first, that have none of this version: at most
    ``batch`` (``ANALYSIS_BATCH``) analyses waiting at once, so that a run adds only what the
    worker tier is ready to take. Their tasks wait behind every other duty and behind any
    reader's (``analysis.PRIORITY_SWEPT``). Returns how many were asked for (won ones stored at
    once included)."""
    today = today or utc_today()
    batch = settings.ANALYSIS_BATCH if batch is None else batch
    waiting = GameAnalysis.objects.filter(status=GameAnalysis.Status.PENDING).count()
    room = batch - waiting
    if room <= 0:
        return 0
    candidates = (
        Game.objects.filter(
            kind=Game.Kind.DAILY,
            daily_date__lt=today,
            daily_date__gte=today - dt.timedelta(days=analysis.SWEEP_DAYS),
            ply__gt=0,
        )
        .filter(Q(analysis__isnull=True) | ~Q(analysis__version=analysis.ANALYSIS_VERSION))
        .order_by("-daily_date", "pk")[:room]
    )
    asked = 0
    for game in candidates:
        if analysis.analysable(game, today):
            request_analysis(game, priority=analysis.PRIORITY_SWEPT)
            asked += 1
    return asked
