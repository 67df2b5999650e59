"""What the leaderboard stores of its own: one row per UTC day that has a daily deal in play.

The attempts themselves are ``games.models.Game`` rows (``kind="daily"``); the board is ranked
straight from them. ``DailyDeal`` only holds what has no other home:

- ``seq``: the number of the latest message of that day's live stream (``/ws/daily/<date>/``).
  Every broadcast takes the next number, in the database, so that it grows monotonically whichever
  Daphne process sends it;
- ``players`` / ``winners``: the day's final counts, written once the day is over (they can no
  longer change then), so that the list of past days never re-counts a day's attempts.

The deal itself is not stored: it is computed from the date and ``settings.DAILY_DEAL_SECRET``
(``leaderboard.services.daily_deal``).
"""

from __future__ import annotations

from django.db import models


class DailyDeal(models.Model):
    date = models.DateField(primary_key=True, help_text="The UTC day")
    seq = models.PositiveBigIntegerField(
        default=0, help_text="Sequence number of the latest live-board message of the day"
    )
    players = models.PositiveIntegerField(
        null=True, blank=True, help_text="Attempts played (one action or more); set once over"
    )
    winners = models.PositiveIntegerField(
        null=True, blank=True, help_text="Attempts won; set once the day is over"
    )

    class Meta:
        ordering = ["-date"]

    def __str__(self) -> str:
        return f"Daily deal of {self.date.isoformat()} (seq {self.seq})"
