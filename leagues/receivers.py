"""The leagues listen to the leaderboard: a day settled (or settled afresh) asks the worker tier
to score it (``leagues.tasks.score_day``). Connected by ``LeaguesConfig.ready``."""

from __future__ import annotations

import datetime as dt
from typing import Any

from leaderboard import signals


def day_settled(sender: Any, day: dt.date, again: bool = False, **kwargs: Any) -> None:
    """Enqueue the scoring of ``day``: a day settled afresh is scored afresh (its settlement is
    newer than the one its points were written from), so ``again`` needs nothing more."""
    from leagues.tasks import score_day

    score_day.enqueue(day.isoformat())


def connect() -> None:
    signals.day_settled.connect(day_settled, dispatch_uid="leagues.day_settled")
