"""What the leaderboard stores of its own: one row per UTC day that has a daily deal, and the
deployment's generated deal secret.

The attempts themselves are ``games.models.Game`` rows (``kind="daily"``); the board is ranked
straight from them. ``DailyDeal`` holds what has no other home:

- the day's deal: ``code`` (a CF2 code; a CF1 code for the days dealt before keyed deals), the
  candidate ``n`` it was shuffled as, the solver's winning ``line`` and its length ``par``, and
  the solver's figures. Written once, by compare-and-set (``leaderboard.deals.store``): a day's
  deal never changes once stored. ``code`` is empty while the day has no deal yet (the row may
  exist for the live stream first); ``dealing_until`` is the claim of the one process certifying
  it (``leaderboard.deals``: single-flight across processes);
- ``seq``: the number of the latest message of that day's live stream (``/ws/daily/<date>/``).
  Every broadcast takes the next number, in the database, so that it grows monotonically whichever
  Daphne process sends it;
- the deal's difficulty (``games.engine.difficulty``): the simulated casual player's share of
  wins and mean cards on the foundations, every level's results, and the band of the weekday
  it was picked in (empty for a day measured after it was dealt). Written with the deal, or once
  for a day dealt before difficulties (``leaderboard.deals.measure``); never a card;
- ``players`` / ``winners`` / ``settled_at``: the day's final counts, written with its final
  ranks (:class:`FinalRank`) when the day is settled, once it is over (they can no longer change
  then), so that neither the list of past days nor a player's history re-counts a day's attempts.

``FinalRank`` holds a settled day's ranks: one row per daily attempt of the day, its rank on the
day's board (``null`` for an attempt not ranked), written once by the job that settles the day
(``manage.py settle_days``, ``leaderboard.standings.settled``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from games.engine.difficulty import Difficulty, LevelResult
from games.engine.players import LEVELS


class DailyDeal(models.Model):
    class Outcome(models.TextChoices):
        WIN = "win", "certified winnable"
        LEGACY = "legacy", "dealt before certification (a CF1 deal, no solver line)"

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
    settled_at = models.DateTimeField(
        null=True, blank=True, help_text="When the day's final ranks were written"
    )
    code = models.CharField(
        max_length=64, blank=True, default="", help_text="The day's deal code; empty until dealt"
    )
    n = models.PositiveIntegerField(
        null=True, blank=True, help_text="The keyed candidate dealt (null for a legacy deal)"
    )
    line = models.JSONField(
        null=True, blank=True, help_text="The solver's winning line: action tokens"
    )
    par = models.PositiveIntegerField(
        null=True, blank=True, help_text="The solver's line length (not proved shortest)"
    )
    outcome = models.CharField(max_length=8, choices=Outcome.choices, blank=True, default="")
    positions = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="Positions the solver searched for the dealt candidate"
    )
    seconds = models.FloatField(
        null=True, blank=True, help_text="Seconds the solver took for the dealt candidate"
    )
    candidates_seconds = models.FloatField(
        null=True, blank=True, help_text="Seconds spent on all candidates, the dealt one included"
    )
    created = models.DateTimeField(null=True, blank=True, help_text="When the deal was stored")
    dealing_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="A process is certifying the day's deal until then (its claim, renewed while "
        "it works; after a failure, the day's back-off)",
    )
    dealing_error = models.CharField(
        max_length=200, blank=True, default="", help_text="Why the last certification failed"
    )

    difficulty_share = models.FloatField(
        null=True, blank=True, help_text="The simulated casual player's share of games won, 0-1"
    )
    difficulty_cards = models.FloatField(
        null=True, blank=True, help_text="The simulated casual player's mean foundation cards"
    )
    difficulty_games = models.PositiveIntegerField(
        null=True, blank=True, help_text="Simulated games played at each level"
    )
    difficulty_levels = models.JSONField(
        null=True,
        blank=True,
        help_text='Each level\'s results: {"novice": {"games", "wins", "cards"}, ...}',
    )
    difficulty_band = models.CharField(
        max_length=8,
        blank=True,
        default="",
        db_default="",  # (rows written by SQL alone, as the legacy days' migration did, get it)
        help_text="Band (per cent) it was picked in; empty if measured later",
    )

    class Meta:
        ordering = ["-date"]

    def __str__(self) -> str:
        return f"Daily deal of {self.date.isoformat()} (seq {self.seq})"

    def measured(self) -> Difficulty | None:
        """The deal's difficulty as measured, or ``None`` if it has none yet."""
        if self.difficulty_share is None or not self.difficulty_levels:
            return None
        stored = self.difficulty_levels  # (in the levels' order: PostgreSQL's jsonb keeps none)
        return Difficulty(
            tuple(
                LevelResult(
                    level.name, *(stored[level.name][k] for k in ("games", "wins", "cards"))
                )
                for level in LEVELS
                if level.name in stored
            )
        )

    @staticmethod
    def difficulty_fields(difficulty: Difficulty) -> dict[str, Any]:
        """The fields that store ``difficulty`` (for ``update()``)."""
        return {
            "difficulty_share": difficulty.share,
            "difficulty_cards": difficulty.cards,
            "difficulty_games": difficulty.middle.games,
            "difficulty_levels": {
                r.level: {"games": r.games, "wins": r.wins, "cards": r.cards}
                for r in difficulty.levels
            },
        }


class DealSecret(models.Model):
    """The deal secret generated on first use when ``DAILY_DEAL_SECRET`` is not set: one row
    (``id`` 1), created once under its primary key, so every process of a deployment agrees."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    secret = models.CharField(max_length=128, help_text="Hexadecimal, 32 random bytes")
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Generated deal secret ({self.created:%Y-%m-%d})"


class FinalRank(models.Model):
    """A settled day's rank of one of its daily attempts (``null``: not ranked)."""

    game = models.OneToOneField(
        "games.Game", on_delete=models.CASCADE, primary_key=True, related_name="final_rank"
    )
    day = models.DateField(help_text="The attempt's UTC day")
    rank = models.PositiveIntegerField(
        null=True, blank=True, help_text="1 for the best; null for an attempt not ranked"
    )

    class Meta:
        indexes = [models.Index(fields=["day", "rank"], name="leaderboard_final_day_rank")]

    def __str__(self) -> str:
        return f"Game {self.game_id} ranked {self.rank} on {self.day.isoformat()}"


class AttemptReview(models.Model):
    """What a fair-play reviewer needs of a daily attempt that nothing else keeps, recorded
    privately when it starts (``leaderboard.review``): the account's age then, and salted hashes
    of the client's network (its /24 or /64, never the address) and of its browser's device
    cookie (a random id the site gave it, ``core.devices``; an API client's device mark). Its
    actions, undos and time are the attempt's own. Once the attempt is over, the worker tier
    judges its choices (the clairvoyance test: ``leaderboard.review.judge``) and keeps the
    evidence here. Kept 30 days (``manage.py purge_reviews``; docs/privacy.md), never shown but
    to staff."""

    game = models.OneToOneField(
        "games.Game", on_delete=models.CASCADE, primary_key=True, related_name="review"
    )
    network = models.CharField(
        max_length=32, blank=True, help_text="Salted hash of the client's /24 (IPv4) or /64 (IPv6)"
    )
    device = models.CharField(
        max_length=32,
        blank=True,
        default="",
        help_text="Salted hash of the browser's device cookie (core.devices)",
    )
    account_age = models.DurationField(help_text="How old the account was when it started")
    created = models.DateTimeField(auto_now_add=True)
    evidence = models.FloatField(
        null=True,
        blank=True,
        help_text="The clairvoyance test's log likelihood ratio, clairvoyant to honest "
        "(games.engine.clairvoyance); null until judged",
    )
    forks = models.JSONField(
        default=list,
        blank=True,
        help_text="The forks weighed: the action's number, the move made, each legal move's "
        "share of the sampled deals, habit, honest chance and whether the true deck kept the "
        "win after it, the evidence",
    )
    judgement = models.JSONField(
        default=dict,
        blank=True,
        help_text="What its log showed (cards seen, most cards home, moves) and how it was "
        "judged: decisions looked at, solver positions, whether complete, the test's version",
    )
    judged_at = models.DateTimeField(null=True, blank=True)
    judge_task = models.CharField(
        max_length=64, blank=True, default="", help_text="The judging task waited for, if any"
    )

    class Meta:
        verbose_name = "fair-play review"

    def __str__(self) -> str:
        return f"Review of attempt #{self.game_id}"


class FairPlayDecision(models.Model):
    """A staff decision on a daily attempt, logged: disqualified (off the board) or reinstated,
    by whom and why. The attempt's state is ``Game.disqualified``; this is its history."""

    class Action(models.TextChoices):
        DISQUALIFY = "disqualify", "disqualified"
        REINSTATE = "reinstate", "reinstated"

    game = models.ForeignKey(
        "games.Game", on_delete=models.CASCADE, related_name="fair_play_decisions"
    )
    action = models.CharField(max_length=10, choices=Action.choices)
    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.TextField()
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"#{self.game_id} {self.get_action_display()} by {self.staff}: {self.reason}"


class PeriodStanding(models.Model):
    """A player's standing over a period — an ISO week, a calendar month or all time — added up
    from the settled days' ranked attempts (``leaderboard.periods``): days played, wins, the sum
    of the day's percentiles (in millionths, so that sums are exact and a rebuild gives the same
    rows), their average, and the streaks of consecutive UTC days played within the period.

    Precomputed by the worker tier as each day is settled, so that a table is read without
    aggregating or sorting anything per request. ``listed``: played at least the period's
    minimum of days (``periods.MINIMUM_DAYS``); ``place``: a listed row's position in the
    table's order (``periods.ORDER``), written for the whole period whenever its rows change
    (``periods.place``), so that any page is a range of the index ``leaderboard_standing_place``
    (period, start, place) — page 10,000 as cheap as the first, where an ``OFFSET`` reads and
    skips every row before it. ``run`` is the run of consecutive days ending on ``run_end``, the
    last day added, from which the next day's run continues."""

    class Period(models.TextChoices):
        WEEK = "week", "week"
        MONTH = "month", "month"
        ALL = "all", "all time"

    period = models.CharField(max_length=5, choices=Period.choices)
    start = models.DateField(help_text="The first day: an ISO Monday, a 1st, or the all-time start")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=150, help_text="The player's username (the last tie-break)")
    days = models.PositiveIntegerField(default=0, help_text="Days with a ranked attempt")
    wins = models.PositiveIntegerField(default=0)
    percentile_sum = models.PositiveBigIntegerField(
        default=0, help_text="Sum of the percentiles, in millionths (1,000,000: the best)"
    )
    average = models.FloatField(
        default=0.0, help_text="percentile_sum / days: the average percentile, in millionths"
    )
    longest_streak = models.PositiveIntegerField(default=0)
    run = models.PositiveIntegerField(default=0, help_text="Consecutive days ending on run_end")
    run_end = models.DateField(null=True, blank=True, help_text="The last day played")
    listed = models.BooleanField(default=False, help_text="days >= the period's minimum")
    place = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="1 for the first: the position in the period's table; null if not listed",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["period", "start", "user"], name="leaderboard_standing_player"
            )
        ]
        indexes = [
            models.Index(fields=["period", "start", "place"], name="leaderboard_standing_place")
        ]

    def __str__(self) -> str:
        return f"{self.name}: {self.period} of {self.start.isoformat()}, {self.days} day(s)"


class PeriodTable(models.Model):
    """A period's table as a whole: how many players it has and how many are listed, written
    with its rows, so that a page of the table counts nothing when it is read."""

    period = models.CharField(max_length=5, choices=PeriodStanding.Period.choices)
    start = models.DateField()
    players = models.PositiveIntegerField(default=0)
    listed = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["period", "start"], name="leaderboard_period_table")
        ]

    def __str__(self) -> str:
        return f"{self.period} of {self.start.isoformat()}: {self.listed} listed"


class StandingsDay(models.Model):
    """A settled day added to the standings over time: claimed in the transaction that adds it,
    so that each day is added once however many workers try."""

    day = models.DateField(primary_key=True)
    counted_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"Standings of {self.day.isoformat()} counted"


class Milestone(models.Model):
    """A milestone a player earned, once, with the day earned (``leaderboard.milestones``)."""

    class Kind(models.TextChoices):
        FIRST_WIN = "first_win", "first win"
        STREAK_7 = "streak_7", "7 days in a row"
        STREAK_30 = "streak_30", "30 days in a row"
        STREAK_100 = "streak_100", "100 days in a row"
        PROMOTION = "promotion", "promotion"
        TOP_TIER = "top_tier", "top tier"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="milestones"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    day = models.DateField(help_text="The UTC day it was earned")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="leaderboard_milestone_once")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.kind} on {self.day.isoformat()}"
