"""What ``games`` does itself when one of its games changes, listening to its own announcement
(``games.signals.standing_changed``, sent once the change has committed) as the other apps do:
connected in ``GamesConfig.ready()``; and to Django's ``request_started``, to start its solver pool.

- A practice game that has just ended (won or resigned: over, and its code is public,
  ``games.records.is_final``) has its records built and kept by the worker tier (the task
  ``games.tasks.keep_records``), so that its readers find them kept, and its analysis asked for
  (``games.tasks.request_analysis``: where the win slipped away, a task of the worker tier; a won
  game's is stored at once). A daily attempt's code stays hidden until its day is over, so
  nothing is built when it ends, nor when it is closed at its day's end: its first reader after
  the day builds its record (``games.records.record_of``), and its analysis is asked for by the
  worker tier's sweep of the days over (``games.tasks.analyse_past_days``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from games import pool, records, tasks
from games.clock import utc_today
from games.models import Game


def request_started(sender: Any, **kwargs: Any) -> None:
    """A process's first request starts its solver pool's workers (``SOLVER_PRESTART``), so that
    its first hint does not wait for them: at a request, not at import (a web process starts
    nothing of its own as it loads)."""
    if settings.SOLVER_PRESTART:
        pool.prestart()


def standing_changed(sender: Any, game: Game, **kwargs: Any) -> None:
    if not game.is_daily and records.is_final(game, utc_today()):
        tasks.keep_records.enqueue(game.pk)
        tasks.request_analysis(game)
