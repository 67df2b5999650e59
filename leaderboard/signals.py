"""What the leaderboard's own parts announce to each other, so that the one that notices a change
need not import the one that shows it (``leaderboard.receivers`` connects them).

- ``board_changed(sender, day)``: ``day``'s board changed other than by a game's own announcement
  (``games.signals.standing_changed``): the worker tier recorded in the Redis sets attempts that
  Redis had refused (``leaderboard.tasks.record_again``). Its watchers are sent the board as it
  now stands (``live.broadcast.mark_dirty``).
- ``day_settled(sender, day, again)``: ``day``'s final ranks were written (``again``: written
  afresh, after a staff decision on one of its attempts), once the transaction that wrote them
  committed. Whatever is computed from settled days (a week's league points, the ratings, the
  standings over time) listens, in the apps above this one, and never is imported here.
"""

from django.dispatch import Signal

board_changed = Signal()
day_settled = Signal()
