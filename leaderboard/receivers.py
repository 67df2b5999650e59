"""The leaderboard listens to ``games``: a daily attempt that changed takes its new place in its
day's Redis sorted sets (when Redis is configured; if Redis refuses, the worker tier records it
again later: ``broadcast.record_later``) and makes its day's live board dirty; an attempt that
has ended is handed to the worker tier to be judged for fair play (``tasks.judge_attempt``).

Connected in ``LeaderboardConfig.ready()``; ``games`` never imports the leaderboard. It listens
to the leaderboard's own ``board_changed`` and ``day_settled`` too (``leaderboard.signals``): a
settled day is added to the standings over time by the worker tier (``tasks.count_standings``).

The signal comes after the game's change has committed, so nothing here may fail the request
that made it: when Redis (the shared cache that coalesces the broadcasts) cannot be reached, the
live update is skipped with a warning — watchers resync from the database when Redis is back.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from redis.exceptions import RedisError

from games.models import Game
from leaderboard import tasks
from leaderboard.live import broadcast
from leaderboard.models import DailyDeal
from leaderboard.standings import sets

log = logging.getLogger(__name__)


def standing_changed(sender: Any, game: Game, **kwargs: Any) -> None:
    if game.kind == Game.Kind.DAILY and game.daily_date is not None:
        if not game.is_in_progress:  # an attempt ended: its day is listed among the days
            DailyDeal.objects.get_or_create(date=game.daily_date)
            # A row lost since the day was dealt gets its deal back from the attempt (without
            # the solver's line: as a legacy deal).
            DailyDeal.objects.filter(date=game.daily_date, code="").update(
                code=game.code, outcome=DailyDeal.Outcome.LEGACY
            )
            if game.ply > 0:  # judged for fair play in the worker tier (a win, the top)
                tasks.request_judgement(game.pk)
        if not sets.record(game):  # (before the broadcast that reads it)
            broadcast.record_later(game.daily_date, game.pk)
        try:
            broadcast.mark_dirty(game.daily_date)
        except (RedisError, OSError) as exc:
            log.warning(
                "leaderboard: no live update of %s, Redis is away (%s)", game.daily_date, exc
            )


def board_changed(sender: Any, day: dt.date, **kwargs: Any) -> None:
    """``day``'s board changed (``leaderboard.signals.board_changed``): its watchers are sent it."""
    broadcast.mark_dirty(day)


def day_settled(sender: Any, day: dt.date, again: bool = False, **kwargs: Any) -> None:
    """``day`` was settled (``leaderboard.signals.day_settled``, after the commit): the worker
    tier adds it to the standings over time (``tasks.count_standings``). Never fails the
    settling: a task that cannot be enqueued is left to the periodic sweep
    (``tasks.count_settled_days``; a day settled again then waits for ``manage.py
    rebuild_standings``)."""
    try:
        tasks.count_standings.enqueue(day.isoformat(), again)
    except Exception:
        log.exception("standings: %s is left to the sweep", day)
