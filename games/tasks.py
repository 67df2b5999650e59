"""The games' background duties, run by the worker tier (``manage.py worker``), never by a web
process. Each is idempotent: run twice, it does its work once.

Periodic (``canfield_site.worker.schedule``: once per period for the whole deployment):

- :func:`close_daily_attempts` (every minute): write the closing of the daily attempts still open
  after their UTC day ended (every read already shows them closed).
- :func:`analyse_past_days` (every minute): ask for the analyses of the daily attempts of the
  days over (``games.analysis.sweep``, a few at a time).

On demand:

- :func:`keep_records`: build and keep a finished game's records once its code is public
  (``games.records``; enqueued by ``games.receivers`` when a game ends).
- :func:`analyse_game`: where a finished game's win slipped away (``games.analysis``; enqueued
  when a practice game ends, by the sweep, or by a reader of its analysis), solved here, in the
  worker's own process.
"""

from __future__ import annotations

import datetime as dt

from django_tasks import task

from canfield_site.worker.schedule import periodic
from games import analysis, records, services


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
    (``games.analysis.sweep``); returns how many were asked for."""
    return analysis.sweep()


@task()
def analyse_game(game_id: int) -> str:
    """Where game ``game_id``'s win slipped away, computed and stored here
    (``games.analysis.analyse``); returns the analysis' status, or ``not_analysable``."""
    return analysis.analyse(game_id)
