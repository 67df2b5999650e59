"""The leaderboard listens to ``games``: a daily attempt that changed makes its day's board dirty.

Connected in ``LeaderboardConfig.ready()``; ``games`` never imports the leaderboard.
"""

from __future__ import annotations

from typing import Any

from games.models import Game
from leaderboard import broadcast


def standing_changed(sender: Any, game: Game, **kwargs: Any) -> None:
    if game.kind == Game.Kind.DAILY and game.daily_date is not None:
        broadcast.mark_dirty(game.daily_date)
