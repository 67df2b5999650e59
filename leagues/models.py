"""The leagues' rows: a player's tier, and each ISO week's divisions, memberships and points.

Everything here is computed from settled days (``leaderboard.standings.percentiles``) by the
worker tier (``leagues.services``), and can be computed again from them
(``manage.py rebuild_leagues``): a week is its :class:`Week` row, its :class:`Division` rows (a
tier's divisions numbered 1..n), a :class:`Membership` per player placed that week, and a
:class:`DayPoints` row per member and ranked day. :class:`ScoredDay` records which settlement of a
day the points were written from, so that a day settled afresh is scored afresh. A player's
:class:`Standing` is the tier they play in next, kept for reading; the truth is the memberships
(:func:`leagues.services.tier_at`).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Tier(models.IntegerChoices):
    """The six tiers, lowest first: a newcomer starts in the lowest."""

    BRONZE = 0, _("Bronze")
    SILVER = 1, _("Silver")
    GOLD = 2, _("Gold")
    SAPPHIRE = 3, _("Sapphire")
    RUBY = 4, _("Ruby")
    DIAMOND = 5, _("Diamond")


LOWEST = Tier.BRONZE
HIGHEST = Tier.DIAMOND


class Movement(models.IntegerChoices):
    """Where a member goes when their week closes."""

    DOWN = -1, _("Down")
    STAY = 0, _("Stay")
    UP = 1, _("Up")


class Standing(models.Model):
    """A player's tier for their next week: created at their first placement, moved when a week
    of theirs closes."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="league_standing",
    )
    tier = models.PositiveSmallIntegerField(choices=Tier.choices, default=LOWEST)

    def __str__(self) -> str:
        return f"{self.player_id}: {Tier(self.tier).label}"


class Week(models.Model):
    """An ISO week of the leagues, from its Monday (UTC); ``closed_at`` is set once, when its
    places and movements were written (the claim that makes closing happen once)."""

    monday = models.DateField(primary_key=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        year, week, _day = self.monday.isocalendar()
        return f"{year}-W{week:02d}"


class Division(models.Model):
    """One division of a tier in a week: at most ``rules.DIVISION_SIZE`` members."""

    week = models.ForeignKey(Week, on_delete=models.CASCADE, related_name="divisions")
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    number = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["week", "tier", "number"], name="leagues_division_number"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.week_id} {Tier(self.tier).label} {self.number}"


class Membership(models.Model):
    """A player's place in a week: their division, and, written when the week closes, their
    points (the sum of their :class:`DayPoints`), the days they played, their best day, their
    final place, movement and the tier that follows (while the week is open, the API sums the
    day rows of the one division it shows). ``week`` repeats the division's, so that a
    player has one membership a week (a constraint) and a week's rows are read by one index."""

    # (week and player: indexed by the constraint and the index below, which lead with them)
    week = models.ForeignKey(
        Week, on_delete=models.CASCADE, related_name="memberships", db_index=False
    )
    division = models.ForeignKey(Division, on_delete=models.CASCADE, related_name="members")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="league_memberships",
        db_index=False,
    )
    points = models.PositiveIntegerField(default=0)
    days = models.PositiveSmallIntegerField(default=0)
    best = models.PositiveSmallIntegerField(default=0)
    place = models.PositiveIntegerField(null=True, blank=True)
    movement = models.SmallIntegerField(choices=Movement.choices, null=True, blank=True)
    tier_after = models.PositiveSmallIntegerField(choices=Tier.choices, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["week", "player"], name="leagues_one_membership"),
        ]
        indexes = [
            # The tier a player starts a week in: their latest closed week before it.
            models.Index(fields=["player", "week"], name="leagues_member_player_week"),
        ]

    def __str__(self) -> str:
        return f"{self.week_id} {self.player_id}: {self.points}"


class DayPoints(models.Model):
    """A member's points of one settled day on which they had a ranked attempt."""

    # (indexed by the constraint, which leads with it)
    membership = models.ForeignKey(
        Membership, on_delete=models.CASCADE, related_name="day_points", db_index=False
    )
    day = models.DateField()
    points = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["membership", "day"], name="leagues_day_points_once"),
        ]
        indexes = [models.Index(fields=["day"], name="leagues_day_points_day")]

    def __str__(self) -> str:
        return f"{self.membership_id} {self.day}: {self.points}"


class ScoredDay(models.Model):
    """A day whose points were written, from its settlement of ``settled_at`` (its
    ``DailyDeal.settled_at``): a day settled again later is scored again."""

    day = models.DateField(primary_key=True)
    settled_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.day} ({self.settled_at})"
