"""The leaderboard listens to ``games``: a daily attempt that changed takes its new place in its
day's Redis sorted sets (when Redis is configured) and makes its day's live board dirty.

Connected in ``LeaderboardConfig.ready()``; ``games`` never imports the leaderboard.
"""

from __future__ import annotations

from typing import Any

from games.models import Game
from leaderboard import broadcast, redis_ranking
from leaderboard.models import DailyDeal


def standing_changed(sender: Any, game: Game, **kwargs: Any) -> None:
    if game.kind == Game.Kind.DAILY and game.daily_date is not None:
        if not game.is_in_progress:  # an attempt ended: its day is listed among the days
            DailyDeal.objects.get_or_create(date=game.daily_date)
        redis_ranking.record(game)  # (before the broadcast that reads it)
        broadcast.mark_dirty(game.daily_date)
