"""What ``games`` announces; other apps (the leaderboard) listen. ``games`` never imports them.

Both signals are sent with ``sender=games.models.Game`` and one keyword argument, ``game`` (the
``Game`` row as just saved), after the transaction that changed the game has committed
(``transaction.on_commit``) — a receiver never sees a change that is later rolled back.

- ``standing_changed(sender, game)``: the game's standing may have changed — a new game was created,
  an action was applied (undos included), the game was won, resigned, or closed because its day
  ended. Sent for every kind of game; a daily leaderboard filters on ``game.kind == "daily"``.
- ``game_finished(sender, game)``: the game has just ended (won, resigned, or its day ended —
  ``game.result`` is ``"won"``, ``"resigned"`` or ``"closed"``). Sent after the
  ``standing_changed`` of the same change.
"""

from django.dispatch import Signal

standing_changed = Signal()
game_finished = Signal()
