"""What the leaderboard's own parts announce to each other, so that the one that notices a change
need not import the one that shows it (``leaderboard.receivers`` connects them).

- ``board_changed(sender, day)``: ``day``'s board changed other than by a game's own announcement
  (``games.signals.standing_changed``): the worker tier recorded in the Redis sets attempts that
  Redis had refused (``leaderboard.tasks.record_again``). Its watchers are sent the board as it
  now stands (``live.broadcast.mark_dirty``).
"""

from django.dispatch import Signal

board_changed = Signal()
