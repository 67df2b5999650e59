"""The leaderboard listens to ``games``: a daily attempt that changed makes its day's board dirty.

Connected in ``LeaderboardConfig.ready()``; ``games`` never imports the leaderboard.
"""

from __future__ import annotations

from typing import Any

from games.models import Game
from leaderboard import broadcast
from leaderboard.models import DailyDeal


def standing_changed(sender: Any, game: Game, **kwargs: Any) -> None:
    if game.kind == Game.Kind.DAILY and game.daily_date is not None:
        if not game.is_in_progress:  # an attempt ended: its day is listed among the days
            DailyDeal.objects.get_or_create(date=game.daily_date)
        broadcast.mark_dirty(game.daily_date)
