"""Stored games and their logs.

The truth about a game is its deal code (``code``: a CF1 or CF2 code, which also names the draw
mode and the rules) plus its log (the ``LoggedAction`` rows, one per action, undos included).
Every other field of ``Game`` — the counters, the status and the cached ``views`` — is what the
engine computes from that log. Only ``games.services`` writes them, always in the same
transaction as the action that changed them, and ``manage.py verify_games`` re-plays every log to
prove that they agree.

``views`` is ``{"player": <engine player_view()>, "full": <engine full_view()>}`` of the current
position, so that reads never touch the engine; ``views_version`` says which shape of the engine's
views it holds (:data:`VIEWS_VERSION`). Views of an older version are never served: they are
rebuilt from the log when read (``games.services.views_of``) and stored again at the next write.
The full view holds hidden cards (stock order, reserve below its top): it stays on the server until
the game is over, see ``games.payloads``.

``engine_state`` caches the engine itself (``games.engine.state``: the position with what its
undo needs, as compact text carrying its own version and ply), so that an action restores the
engine instead of replaying the whole log. A state that is missing, of another version, or of
another ply than the row's is never used: the engine is rebuilt from the log and the state
stored again with the action (``games.services.engine_of``). Like the views it never leaves the
server (it holds the hidden cards), and ``verify_games`` proves it equals a replay of the log.

A daily attempt still in progress when its UTC day ends is *closed*: it stands as it was, with
status ``resigned``, ``day_over`` set and its clock stopped at the day's end. That is decided in
one place, :meth:`Game.apply_day_end`: reads apply it to the row in memory, and only the code
that holds the row locked (playing, resigning) and the periodic ``close_daily_attempts`` command
write it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from functools import cached_property

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.clock import day_end
from games.engine import Card, DealCode

#: The shape of the engine views stored in ``Game.views``. Raise it whenever the engine's
#: ``player_view()`` or ``full_view()`` changes shape; stored views of another version are
#: rebuilt from the log.
VIEWS_VERSION = 3


class GameQuerySet(models.QuerySet["Game"]):
    def with_status(self, status: str, today: dt.date) -> GameQuerySet:
        """Games whose status, with their day's end applied (:meth:`Game.apply_day_end`), is
        ``status``: a daily attempt still open in the database after its day counts as resigned."""
        expired = Q(kind=Game.Kind.DAILY, status=Game.Status.IN_PROGRESS, daily_date__lt=today)
        if status == Game.Status.IN_PROGRESS:
            return self.filter(status=status).exclude(expired)
        if status == Game.Status.RESIGNED:
            return self.filter(Q(status=status) | expired)
        return self.filter(status=status)

    def open_after_day_end(self, today: dt.date) -> GameQuerySet:
        """Daily attempts still in progress in the database although their day is over."""
        return self.filter(
            kind=Game.Kind.DAILY, status=Game.Status.IN_PROGRESS, daily_date__lt=today
        )


class Game(models.Model):
    class Kind(models.TextChoices):
        PRACTICE = "practice"
        DAILY = "daily"

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", "in progress"
        WON = "won"
        RESIGNED = "resigned"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="games"
    )
    code = models.CharField(
        max_length=64, help_text="The deal code (CF1 or CF2), with its draw mode and rules"
    )
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.PRACTICE)
    daily_date = models.DateField(null=True, blank=True, help_text="The UTC day of a daily deal")

    status = models.CharField(max_length=12, choices=Status.choices, default=Status.IN_PROGRESS)
    day_over = models.BooleanField(
        default=False,
        help_text="Closed as it stood when its day ended (result 'closed')",
    )
    score = models.PositiveIntegerField(default=0)
    ply = models.PositiveIntegerField(default=0, help_text="Actions logged, undos included")
    undos = models.PositiveIntegerField(default=0)
    foundation_cards = models.PositiveSmallIntegerField(default=1)

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True, help_text="Time of the first action")
    finished_at = models.DateTimeField(null=True, blank=True)
    active_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When its last action was written (or it was finished or resigned): the "
        "games being played now, most recently active first (games.watch.playing)",
    )

    views = models.JSONField(default=dict, help_text="Cache: engine views of the position")
    views_version = models.PositiveSmallIntegerField(
        default=0, help_text="Shape of the cached views; another than the current is rebuilt"
    )

    disqualified = models.BooleanField(
        default=False,
        db_default=False,
        help_text="A daily attempt staff took off the board (leaderboard.review): never ranked",
    )
    board_revision = models.PositiveIntegerField(
        default=0,
        db_default=0,
        help_text="Raised each time staff take the attempt off its board or put it back: part of "
        "the version its board entries carry, so that a later change outranks an earlier one",
    )

    engine_state = models.TextField(
        blank=True,
        default="",
        help_text="Cache: the engine state (games.engine.state); rebuilt from the log",
    )

    objects = GameQuerySet.as_manager()

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
        ]
        indexes = [
            # A day's board: every attempt of that day, ranked by status, cards, actions.
            models.Index(
                fields=["daily_date", "status", "-foundation_cards", "ply"],
                condition=Q(kind="daily"),
                name="games_daily_board",
            ),
            models.Index(fields=["owner", "-created_at"], name="games_owner_recent"),
            # The games being played now, most recently active first (games.watch.playing).
            models.Index(fields=["-active_at"], name="games_active_recent"),
            # The games finished since a moment (the day's best, leaderboard.watching): finished
            # games only, so that an action on a game in progress adds no entry to it.
            models.Index(
                fields=["finished_at"],
                condition=Q(finished_at__isnull=False),
                name="games_finished",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.deal_code} {self.owner} ({self.status})"

    @cached_property
    def deal_code(self) -> DealCode:
        return DealCode.parse(self.code)

    @property
    def draw(self) -> int:
        return self.deal_code.draw

    @property
    def variant(self) -> str:
        return self.deal_code.variant

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

    def apply_day_end(self, today: dt.date) -> bool:
        """Close this daily attempt if it is still in progress and its day is over: it stands as
        it is, with status ``resigned``, ``day_over`` set and ``finished_at`` at the day's end (so
        its time runs to the end of its day, whenever the closing is seen). Changes this object
        only; returns whether it changed. The one definition of a day's end for an attempt."""
        if not self.is_in_progress or not self.day_is_over(today):
            return False
        assert self.daily_date is not None
        self.status = self.Status.RESIGNED
        self.day_over = True
        self.finished_at = day_end(self.daily_date)
        return True

    #: The fields :meth:`apply_day_end` changes, for ``save(update_fields=...)``.
    DAY_END_FIELDS = ("status", "day_over", "finished_at")

    def views_are_current(self) -> bool:
        return self.views_version == VIEWS_VERSION and bool(self.views)


class LoggedAction(models.Model):
    """One entry of a game's log: ``token`` was played in position ``ply`` (0 = the deal)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="log")
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


class HintStep(models.Model):
    """What the solver found for a position of a practice game (``services.hint``,
    ``services.verdict``): ``win``, with what its line plays there (``action``) and the line's
    length from there (``remaining``); ``no_win``, proved lost; or ``unknown``, with the best move
    the search found (not proved). One search stores a step for every position of its line, so
    that a player who follows the hints asks the solver once. A proved answer never changes: it
    is written once and kept with its game, and replaces an ``unknown`` one.

    A ``no_win`` step also keeps where undo leads back to a position that can still be won:
    ``undo_actions`` undos back (null: none found), for the way back ``undo_key``
    (``games.engine.solver.undo_key``) — the same position reached with another past has other
    positions behind it, and is walked back again."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="hint_steps")
    digest = models.CharField(max_length=64, help_text="The position's key (games.pool_jobs)")
    outcome = models.CharField(max_length=8)
    action = models.CharField(max_length=16, blank=True, default="")
    remaining = models.PositiveIntegerField(null=True, blank=True)
    undo_actions = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="no_win: undos back to the last position proved winnable (null: none)",
    )
    undo_key = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="no_win: the way back undo_actions holds for (solver.undo_key)",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "digest"], name="games_hint_step_unique"),
        ]
        # A position's proved answer found by any game (``services.hint``: a cache keyed by the
        # position, so that a position already solved is never searched again).
        indexes = [models.Index(fields=["digest"], name="games_hint_step_digest")]

    def __str__(self) -> str:
        return f"{self.digest[:8]}: {self.outcome} {self.action}"


class StoredRecord(models.Model):
    """A finished game's record, built once and served as it is: a record never changes once its
    game is over and its code is public (``games.records``). ``body`` is the record's JSON,
    gzip-compressed; ``etag`` its validator; ``states`` whether it holds every state; ``version``
    the shape of its JSON (``games.pool_jobs.RECORD_VERSION``): a record of another version is never
    served, it is built again and replaces this one."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="stored_records")
    states = models.BooleanField()
    body = models.BinaryField()
    etag = models.CharField(max_length=64)
    size = models.PositiveIntegerField(help_text="Bytes of the JSON before compression")
    version = models.PositiveSmallIntegerField(
        help_text="Shape of the JSON (games.pool_jobs.RECORD_VERSION); another is built again"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "states"], name="games_record_unique"),
        ]

    def __str__(self) -> str:
        return f"Record of #{self.game_id}{' with states' if self.states else ''}"


class GameAnalysis(models.Model):
    """Where a finished game's win slipped away (``games.analysis``): one row per game, written
    by the worker tier (``games.tasks.analyse_game``) — or at once for a won game — and read by
    ``GET /api/games/<id>/analysis/``. ``pending`` while its task (``task_id``) waits or runs;
    then ``ready`` (``won``, ``winnable``: the deal could be won from the start, and the slip:
    the action ``slip_ply`` played ``played`` where ``better`` began a winning line of ``line``
    actions), ``undecided`` (the solver could not decide a position it needed within the
    budget) or ``failed`` (the task raised: answered as undecided). ``version`` is the analysis'
    (``games.analysis.ANALYSIS_VERSION``): a row of another version is computed again."""

    class Status(models.TextChoices):
        PENDING = "pending"
        READY = "ready"
        UNDECIDED = "undecided"
        FAILED = "failed"

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    version = models.PositiveSmallIntegerField(
        help_text="games.analysis.ANALYSIS_VERSION; another is computed again"
    )
    task_id = models.CharField(
        max_length=64, blank=True, default="", help_text="The pending analysis' task"
    )
    won = models.BooleanField(default=False)
    winnable = models.BooleanField(
        null=True, help_text="Whether the deal could be won from the start (null: undecided)"
    )
    slip_ply = models.PositiveIntegerField(
        null=True, help_text="The action after which no win was left (1 = the first action)"
    )
    played = models.CharField(max_length=16, blank=True, default="", help_text="Its token")
    better = models.CharField(
        max_length=16, blank=True, default="", help_text="The first action of a winning line"
    )
    line = models.PositiveIntegerField(null=True, help_text="That winning line's length")
    solves = models.PositiveSmallIntegerField(default=0, help_text="Positions solved")
    positions = models.PositiveIntegerField(default=0, help_text="Positions the solver searched")
    requested_at = models.DateTimeField(auto_now_add=True)
    computed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "game analyses"

    def __str__(self) -> str:
        return f"Analysis of #{self.game_id}: {self.status}"


class DealtDeck(models.Model):
    """A deck the server dealt: the deck of a practice game started from a CF1 code or as a
    random deal. A practice game by a CF2 code plays only a deck recorded here or a published
    daily's (``games.services.dealt_game``), so that a random deal shared as its code — CF1, or
    its CF2 form, in any draw or rule set — plays for anyone, and a deck nobody was dealt here
    does not. Keyed by :meth:`fingerprint`; written once, never changed."""

    fingerprint = models.CharField(
        max_length=64, primary_key=True, help_text="SHA-256 of the deck's cards (DealtDeck)"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Deck {self.fingerprint[:12]}"

    @staticmethod
    def fingerprint_of(deck: Sequence[Card]) -> str:
        """The hexadecimal SHA-256 of the deck's 52 card indices (0-51), one byte each, in
        dealing order (docs/deal-format.md, Step 4)."""
        return hashlib.sha256(bytes(deck)).hexdigest()


class ProvedDeal(models.Model):
    """A random deal the solver decided from its start (``games.winnable``): ``win``, proved
    winnable — the pool of deals a new random practice game is dealt from, each dealt once
    (``dealt_at``: null while it waits) — or ``no_win``, proved lost, never dealt at random, and
    said to be lost when a game of its code starts. Filled ahead by the worker tier
    (``games.tasks.fill_winnable_pool``)."""

    class Outcome(models.TextChoices):
        WIN = "win"
        NO_WIN = "no_win"

    code = models.CharField(max_length=64, unique=True, help_text="The deal's code (CF1)")
    draw = models.PositiveSmallIntegerField()
    variant = models.CharField(max_length=8)
    outcome = models.CharField(max_length=8, choices=Outcome.choices)
    line = models.TextField(
        blank=True, default="", help_text="win: the winning line the solver found (tokens)"
    )
    proved_at = models.DateTimeField(auto_now_add=True)
    dealt_at = models.DateTimeField(
        null=True, blank=True, help_text="win: when a new game was dealt it (null: in the pool)"
    )

    class Meta:
        indexes = [
            # The pool: the deals of a draw and rules proved winnable and not dealt yet.
            models.Index(
                fields=["draw", "variant", "id"],
                condition=Q(outcome="win", dealt_at__isnull=True),
                name="games_proved_deal_pool",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.code}: {self.outcome}"
