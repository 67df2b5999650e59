"""Stored games and their move logs.

The truth about a game is its deal (``number``, ``draw``, ``variant``) plus its move log (the
``Move`` rows, one per logged action, undos included). Every other field of ``Game`` — the counters,
the status and the ``snapshot`` — is a cache of what the engine computes from that log. Only
``games.services`` writes them, always in the same transaction as the move that changed them, and
``manage.py verify_games`` re-plays every log to prove that they agree.

The snapshot is ``{"player": <engine player_view()>, "full": <engine full_view()>}`` for the current
position, so that reads never touch the engine. The full view holds hidden cards (stock order,
reserve below its top): it stays on the server until the game is over, see ``games.api``.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.engine import DealCode


class Game(models.Model):
    class Kind(models.TextChoices):
        PRACTICE = "practice"
        DAILY = "daily"

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", "in progress"
        WON = "won"
        RESIGNED = "resigned"

    class Variant(models.TextChoices):
        APP = "app"
        CLASSIC = "classic"

    class Draw(models.IntegerChoices):
        ONE = 1, "draw 1"
        THREE = 3, "draw 3"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="games"
    )
    # 26**7 deal numbers do not fit a 32-bit integer.
    number = models.PositiveBigIntegerField(help_text="Deal number, 0 to 26**7 - 1")
    draw = models.PositiveSmallIntegerField(choices=Draw.choices, default=Draw.THREE)
    variant = models.CharField(max_length=8, choices=Variant.choices, default=Variant.APP)
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.PRACTICE)
    daily_date = models.DateField(null=True, blank=True, help_text="The UTC day of a daily deal")

    status = models.CharField(max_length=12, choices=Status.choices, default=Status.IN_PROGRESS)
    day_over = models.BooleanField(
        default=False,
        help_text="Closed as it stood when its day ended (result 'closed')",
    )
    score = models.PositiveIntegerField(default=0)
    # `actions` and `ply` count the same thing — every logged action, undos included — under the
    # leaderboard's name and the move log's name.
    actions = models.PositiveIntegerField(default=0)
    ply = models.PositiveIntegerField(default=0)
    undos = models.PositiveIntegerField(default=0)
    foundation_cards = models.PositiveSmallIntegerField(default=1)

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True, help_text="Time of the first action")
    finished_at = models.DateTimeField(null=True, blank=True)

    snapshot = models.JSONField(default=dict, help_text="Cache: engine views of the position")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "daily_date"],
                condition=Q(kind="daily"),
                name="games_one_daily_attempt",
            ),
            models.CheckConstraint(
                condition=Q(kind="daily", daily_date__isnull=False)
                | Q(kind="practice", daily_date__isnull=True),
                name="games_daily_date_iff_daily",
            ),
            models.CheckConstraint(condition=Q(draw__in=[1, 3]), name="games_draw_1_or_3"),
        ]
        indexes = [
            # A day's board: every attempt of that day, ranked by status, cards, actions.
            models.Index(
                fields=["daily_date", "status", "-foundation_cards", "actions"],
                condition=Q(kind="daily"),
                name="games_daily_board",
            ),
            models.Index(fields=["owner", "-created_at"], name="games_owner_recent"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.deal_code} {self.owner} ({self.status})"

    @property
    def deal_code(self) -> DealCode:
        return DealCode(self.number, self.draw, self.variant)  # type: ignore[arg-type]

    @property
    def code(self) -> str:
        return str(self.deal_code)

    @property
    def is_in_progress(self) -> bool:
        return self.status == self.Status.IN_PROGRESS

    @property
    def is_daily(self) -> bool:
        return self.kind == self.Kind.DAILY

    @property
    def result(self) -> str:
        """As the engine's records say it: ``in_progress``, ``won``, ``resigned``, or ``closed``
        (a daily attempt closed as it stood when its day ended)."""
        return "closed" if self.day_over else str(self.status)

    def day_is_over(self, today: dt.date) -> bool:
        """For a daily game: has its UTC day ended? (``today`` is the current UTC date.)"""
        return self.is_daily and self.daily_date is not None and self.daily_date < today

    def code_is_public(self, today: dt.date) -> bool:
        """A practice code is always shown; a daily deal's code only once its day is over."""
        return not self.is_daily or self.day_is_over(today)


class Move(models.Model):
    """One logged action: ``token`` was played in position ``ply`` (0 = the deal)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    ply = models.PositiveIntegerField()
    token = models.CharField(max_length=16)
    score_after = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "ply"]
        constraints = [
            models.UniqueConstraint(fields=["game", "ply"], name="games_move_unique_ply"),
        ]

    def __str__(self) -> str:
        return f"{self.ply}: {self.token}"
