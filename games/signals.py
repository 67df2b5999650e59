"""What ``games`` announces; other apps (the leaderboard) listen. ``games`` never imports them.

- ``standing_changed(sender, game)``: the game's standing may have changed — a new game was
  created, an action was applied (undos included), the game was won, resigned, or closed because
  its day ended. Sent with ``sender=games.models.Game`` and ``game``, the row as just saved, after
  the transaction that changed it has committed (``transaction.on_commit``): a receiver never sees
  a change that is later rolled back. Sent for every kind of game; a daily leaderboard filters on
  ``game.kind == "daily"``.
"""

from django.dispatch import Signal

standing_changed = Signal()
