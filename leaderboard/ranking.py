"""The order of a day's board, in one place.

An attempt is on its day's board once it has had its first action (``ply > 0``; its clock
starts then): an attempt that was created but never played has no time and no standing, so it is
left off the board and out of its counts until it starts. The order is, exactly:

1. won before not won (in progress, resigned and closed attempts are all "not won");
2. more cards on the foundations;
3. fewer actions (every logged action, undos included);
4. less time: from the first action to ``finished_at``, or, for an attempt still open, to now
   (to the day's end once the day is over);
5. who finished first: earlier ``finished_at`` (an attempt still open counts as finishing now,
   or at the day's end); then the earlier attempt (lower game id), so that no two rows tie.

The score is shown beside each row but is never part of the order: a take-back from a foundation
and placing the card again earns 5 points, and adds two actions and no card.

Ranks are positions in that order, 1 for the best. ``Game.views`` (the cached engine views,
which hold hidden cards) is never read here.

How it stays fast with 100,000 attempts a day (docs/performance.md, "Leaderboard"): the first three
keys are stored columns, and ``games_daily_board`` indexes (daily_date, status, foundation cards,
actions). A :class:`Board` counts the day's attempts per (won, cards) — at most 53 groups, from
the index alone — then per actions within the one or two groups where the requested rows begin
and end, and fetches only the attempts between those two keys, to sort them by all five keys.
A past day's counts never change again, so they are cached.

With Redis configured, :func:`standings` reads the board from Redis sorted sets instead
(``leaderboard.redis_ranking``: the same order, exactly, in a logarithm of the day's size); SQL
stays the truth those sets are rebuilt from.
"""

from __future__ import annotations

import datetime as dt
import logging
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate
from typing import TYPE_CHECKING

from django.core.cache import cache
from django.db.models import (
    BooleanField,
    Case,
    Count,
    DateTimeField,
    DurationField,
    ExpressionWrapper,
    F,
    IntegerField,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from redis.exceptions import RedisError

from games.clock import day_end
from games.models import Game

log = logging.getLogger(__name__)
if TYPE_CHECKING:
    from leaderboard.redis_ranking import RedisBoard

#: Rows per page of a board (and in a live snapshot or update).
PAGE_SIZE = 100

#: The columns a board row needs; nothing else of a Game is read (above all not its cached views).
ROW_FIELDS = (
    "id",
    "owner__username",
    "kind",
    "daily_date",
    "status",
    "day_over",
    "score",
    "ply",
    "foundation_cards",
    "started_at",
    "finished_at",
)

#: The full order, as ``order_by`` arguments over the annotations of :func:`ranked`.
ORDER = ("-won_first", "-foundation_cards", "ply", "elapsed", "end_at", "id")

WON = Game.Status.WON
NOT_WON = (Game.Status.IN_PROGRESS, Game.Status.RESIGNED)

#: ``kind = 'daily'`` spelt as a literal, as in the WHERE clause of the partial index
#: games_daily_board: given a bound parameter instead, SQLite reads every row to check it
#: (a count of 100,000 attempts takes 100 ms instead of 7).
DAILY = RawSQL('"games_game"."kind" = \'daily\'', (), output_field=BooleanField())

#: How long after its end a day's counts are taken as final and cached (an action sent in the
#: day's last instant may still be committing at midnight).
SETTLE = dt.timedelta(minutes=1)

#: A static key: (won 1 or 0, foundation cards, actions). Board order: won and cards descending,
#: actions ascending.
Key = tuple[int, int, int]


def attempts(day: dt.date) -> QuerySet[Game]:
    """The day's attempts that are on its board: daily games of that day with one action or more."""
    return Game.objects.filter(DAILY, daily_date=day, ply__gt=0).order_by()


def clock_end(day: dt.date, now: dt.datetime) -> dt.datetime:
    """Where the clock of an attempt still open stops: now, or the day's end if that is earlier."""
    return min(now, day_end(day))


def ranked(day: dt.date, now: dt.datetime) -> QuerySet[Game]:
    """The day's board in rank order, each row annotated with ``won_first`` (1 if won),
    ``end_at`` (when its clock stops) and ``elapsed`` (its time, a timedelta). Sorting the whole
    day this way is slow for a big day: :class:`Board` sorts only the rows it needs."""
    end = Value(clock_end(day, now), output_field=DateTimeField())
    return (
        attempts(day)
        .select_related("owner")
        .only(*ROW_FIELDS)
        .annotate(
            won_first=Case(
                When(status=WON, then=Value(1)), default=Value(0), output_field=IntegerField()
            ),
            end_at=Coalesce(F("finished_at"), end, output_field=DateTimeField()),
            elapsed=ExpressionWrapper(F("end_at") - F("started_at"), output_field=DurationField()),
        )
        .order_by(*ORDER)
    )


def _won(won: int) -> Q:
    return Q(status=WON) if won else Q(status__in=NOT_WON)


def _from(key: Key) -> Q:
    """Attempts at ``key`` or after it in board order."""
    won, cards, actions = key
    after = _won(0) if won else Q(pk__in=[])
    return (
        after
        | (_won(won) & Q(foundation_cards__lt=cards))
        | (_won(won) & Q(foundation_cards=cards, ply__gte=actions))
    )


def _until(key: Key) -> Q:
    """Attempts at ``key`` or before it in board order."""
    won, cards, actions = key
    before = Q(pk__in=[]) if won else _won(1)
    return (
        before
        | (_won(won) & Q(foundation_cards__gt=cards))
        | (_won(won) & Q(foundation_cards=cards, ply__lte=actions))
    )


@dataclass(frozen=True)
class Group:
    """The attempts of one (won, cards) pair: how many, and how many come before them."""

    won: int
    cards: int
    size: int
    before: int


class Board:
    """One day's board as it stands at ``now``: counts, pages and ranks."""

    def __init__(self, day: dt.date, now: dt.datetime) -> None:
        self.day = day
        self.now = now
        self.final = now >= day_end(day) + SETTLE
        self._in_group: dict[Group, list[tuple[int, int]]] = {}

    # -- counts -----------------------------------------------------------------------------------

    @cached_property
    def groups(self) -> list[Group]:
        """The (won, cards) groups in board order, with their sizes: from the index alone."""
        key = f"board-groups:{self.day.isoformat()}"
        sizes: list[tuple[int, int, int]] | None = None
        if self.final:
            try:
                sizes = cache.get(key)
            except (RedisError, OSError) as exc:  # Redis away: count from the database
                log.warning("board counts of %s not cached: %s", self.day, exc)
        if sizes is None:
            counted: dict[tuple[int, int], int] = {}
            for status, cards, n in (
                attempts(self.day)
                .values("status", "foundation_cards")
                .annotate(n=Count("*"))
                .values_list("status", "foundation_cards", "n")
            ):
                pair = (int(status == WON), cards)
                counted[pair] = counted.get(pair, 0) + n
            sizes = sorted(((w, c, n) for (w, c), n in counted.items()), reverse=True)
            if self.final:
                try:
                    cache.set(key, sizes, timeout=7 * 24 * 3600)
                except (RedisError, OSError) as exc:
                    log.warning("board counts of %s not cached: %s", self.day, exc)
        before = [0, *accumulate(n for _, _, n in sizes)]
        return [Group(w, c, n, before[i]) for i, (w, c, n) in enumerate(sizes)]

    @property
    def count(self) -> int:
        return sum(g.size for g in self.groups)

    def _group_at(self, position: int) -> Group:
        starts = [g.before for g in self.groups]
        return self.groups[bisect_right(starts, position) - 1]

    def _actions(self, group: Group) -> list[tuple[int, int]]:
        """(actions, how many) within ``group``, fewest actions first."""
        if group not in self._in_group:
            self._in_group[group] = self._count_actions(group)
        return self._in_group[group]

    def _count_actions(self, group: Group) -> list[tuple[int, int]]:
        return list(
            attempts(self.day)
            .filter(_won(group.won), foundation_cards=group.cards)
            .values("ply")
            .annotate(n=Count("*"))
            .values_list("ply", "n")
            .order_by("ply")
        )

    def _key_at(self, position: int) -> tuple[Key, int]:
        """The static key of the attempt at ``position`` (0-based) and how many attempts come
        before the first attempt with that key."""
        group = self._group_at(position)
        before = group.before
        for actions, n in self._actions(group):
            if position < before + n:
                return (group.won, group.cards, actions), before
            before += n
        raise AssertionError("the board changed while it was read")

    # -- rows ---------------------------------------------------------------------------------

    def between(self, first: Key, last: Key) -> QuerySet[Game]:
        """The attempts whose static keys lie from ``first`` to ``last``, in rank order."""
        span = _from(first) & _until(last)
        if first[0] == last[0]:  # the same side of "won": a range of the index, said plainly
            span &= _won(first[0]) & Q(foundation_cards__range=(last[1], first[1]))
        return ranked(self.day, self.now).filter(span)

    def rows(self, start: int, stop: int) -> list[Game]:
        """The attempts at positions ``start`` to ``stop - 1`` (0-based), in rank order."""
        stop = min(stop, self.count)
        if start >= stop:
            return []
        for _ in range(3):  # the board may move between the counts and the fetch: read again
            first, skipped = self._key_at(start)
            last, _ = self._key_at(stop - 1)
            found = list(self.between(first, last))[start - skipped : stop - skipped]
            if len(found) == stop - start:
                return found
            self.__dict__.pop("groups", None)
            self._in_group.clear()
            stop = min(stop, self.count)
        return found

    def page(self, page: int) -> list[Game]:
        """The attempts of page ``page`` (1-based), in rank order."""
        return self.rows((page - 1) * PAGE_SIZE, page * PAGE_SIZE)

    def rank_of(self, game: Game) -> int | None:
        """``game``'s rank on this board, or ``None`` if it is not on it (never started)."""
        if game.kind != Game.Kind.DAILY or game.daily_date != self.day or not game.ply:
            return None
        won, cards, actions = int(game.status == WON), game.foundation_cards, game.ply
        group = next((g for g in self.groups if (g.won, g.cards) == (won, cards)), None)
        if group is None:
            return None
        ahead = group.before + sum(n for a, n in self._actions(group) if a < actions)
        same = ranked(self.day, self.now).filter(_won(won), foundation_cards=cards, ply=actions)
        # (elapsed and end_at are annotations of ranked(), which the type plugin cannot follow)
        mine = same.filter(pk=game.pk).values("elapsed", "end_at").first()  # type: ignore[misc]
        if mine is None:
            return None
        elapsed, end = mine["elapsed"], mine["end_at"]
        ahead += same.filter(
            Q(elapsed__lt=elapsed)
            | Q(elapsed=elapsed, end_at__lt=end)
            | Q(elapsed=elapsed, end_at=end, pk__lt=game.pk)
        ).count()
        return ahead + 1


def standings(day: dt.date, now: dt.datetime) -> Board | RedisBoard:
    """The day's board at ``now``: from Redis sorted sets when Redis is configured
    (``leaderboard.redis_ranking``), else — or while they are being rebuilt, or for a past day
    whose sets have expired — from SQL (:class:`Board`). Both give the same counts, rows and
    ranks."""
    from leaderboard import redis_ranking  # (it builds on this module)

    return redis_ranking.standings(day, now) or Board(day, now)


def rank_of(game: Game, now: dt.datetime) -> int | None:
    """``game``'s rank on its day's board, or ``None`` if it is not on it."""
    if game.daily_date is None:
        return None
    return standings(game.daily_date, now).rank_of(game)


def elapsed_of(game: Game, now: dt.datetime) -> dt.timedelta | None:
    """The attempt's time, as :func:`ranked` computes it (``None`` before its first action)."""
    if game.started_at is None:
        return None
    if game.finished_at is not None:
        end = game.finished_at
    elif game.daily_date is not None:
        end = clock_end(game.daily_date, now)
    else:
        end = now
    return end - game.started_at
