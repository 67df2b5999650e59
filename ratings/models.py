"""What the ratings store: each player's current rating, its history, and which days are rated.

- :class:`Rating`: a player's current Weng-Lin rating (``mu``, ``sigma``), its conservative
  number ``ordinal`` (``mu - 3 sigma``, kept as a column so that the rating board is one range of
  an index), how many days rated it and the last of them. A player never rated has no row.
- :class:`RatingPoint`: the rating as it stood after each day that rated the player — the history
  that a player's chart reads, and the point a re-rating goes back to.
- :class:`RatedDay`: a settled day the ratings took in, once, in date order (``services.rate_due``).
- :class:`Rerate`: a settled day whose final ranks were written again (a staff decision) after the
  ratings may have taken it in: the worker rates again from that day on. Written by the
  ``day_settled`` receiver, which never waits for the worker's lock.
- :class:`RatingLock`: one row, locked by the worker while it changes the ratings, so that two
  workers never rate at once.

Every row is computed from the settled days: ``manage.py rebuild_ratings`` deletes them all and
rates every day again, to the same numbers.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

#: Days a rating takes before it is no longer provisional (and is listed on the rating board).
#: The rating board's partial index (``ratings_board``) is written with this number: changing it
#: needs a migration.
PROVISIONAL_DAYS = 5


class Rating(models.Model):
    """A player's current rating (Weng-Lin, Plackett-Luce)."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="rating"
    )
    mu = models.FloatField(help_text="The estimate of the player's skill")
    sigma = models.FloatField(help_text="Its uncertainty (a standard deviation)")
    ordinal = models.FloatField(help_text="mu - 3 sigma: the conservative number")
    days = models.PositiveIntegerField(help_text="Days that rated the player")
    last_day = models.DateField(help_text="The last of them")

    class Meta:
        indexes = [
            # The rating board: established players, best conservative number first.
            models.Index(
                fields=["-ordinal", "player"],
                condition=Q(days__gte=PROVISIONAL_DAYS),
                name="ratings_board",
            ),
        ]

    def __str__(self) -> str:
        return f"Rating of {self.player_id}: {self.mu:.3f} ± {self.sigma:.3f}"


class RatingPoint(models.Model):
    """A player's rating as it stood after one day that rated them."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_points"
    )
    day = models.DateField()
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(help_text="mu - 3 sigma")
    days = models.PositiveIntegerField(help_text="Days that had rated the player, this one too")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "day"], name="ratings_point_unique"),
        ]
        indexes = [
            # Rewinding from a day: every point on or after it.
            models.Index(fields=["day"], name="ratings_point_day"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} on {self.day.isoformat()}: {self.mu:.3f} ± {self.sigma:.3f}"


class RatedDay(models.Model):
    """A settled day the ratings took in (each day once, in date order)."""

    day = models.DateField(primary_key=True)
    rated_at = models.DateTimeField()
    players = models.PositiveIntegerField(help_text="Players the day rated")
    matches = models.PositiveIntegerField(help_text="Groups rated as one match each")

    def __str__(self) -> str:
        return f"{self.day.isoformat()}: {self.players} player(s) in {self.matches} match(es)"


class Rerate(models.Model):
    """A day to rate again, with every day after it (its final ranks were written afresh)."""

    day = models.DateField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Rate again from {self.day.isoformat()}"


class RatingLock(models.Model):
    """The one row a worker locks while it changes the ratings."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)

    def __str__(self) -> str:
        return "The ratings' lock"
