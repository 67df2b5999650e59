"""A day's board read from SQL, the truth every other board is built from.

How it stays fast with 100,000 attempts a day (docs/performance.md, "Leaderboard"): the static
parts of the key (won, cards, actions) are stored columns, and ``games_daily_board`` indexes
(daily_date, status, foundation cards, actions). :class:`SqlBoard` counts the day's attempts per
(won, cards) — at most 53 groups, from the index alone — then per actions within the one or two
groups where the requested rows begin and end, and fetches only the attempts between those two
prefixes, to sort them by the whole key (``order.SQL_ORDER``).

Those are several statements, and players move between them: an attempt may change its (won,
cards) group after the counts were read, so that the counts no longer add up to the rows they
describe. A read that finds so (:class:`BoardMoved`) reads the counts again; after
:data:`FAST_TRIES` such reads in a row (a board moving faster than it is read) it sorts the rows it
needs in one statement, which sees the board at one moment on every database: slower on a big
day, never wrong, never an error.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate

from django.db.models import (
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
from django.db.models.functions import Coalesce, Greatest

from games.models import Game
from leaderboard.standings.board import ROW_FIELDS
from leaderboard.standings.order import (
    EPOCH,
    MICROSECOND,
    PART,
    SQL_ORDER,
    WON,
    Prefix,
    Standing,
    at_prefix,
    clock_end,
    from_prefix,
    ranked_filters,
    until_prefix,
    won_is,
    won_of,
)


def attempts(day: dt.date) -> QuerySet[Game]:
    """The day's ranked attempts (``order.RANKED``), unordered."""
    return Game.objects.filter(*ranked_filters(), daily_date=day).order_by()


def ranked(day: dt.date, now: dt.datetime) -> QuerySet[Game]:
    """The day's board in rank order, each row annotated with what the key's parts that are no
    column read (``order.PARTS``' ``sql``): ``won_first`` (1 if won), ``end_at`` (when its
    clock stops) and ``elapsed`` (its time, a timedelta, never below 0). Sorting a whole big day
    this way is slow: :class:`SqlBoard` sorts only the rows it needs."""
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
            elapsed=Greatest(
                ExpressionWrapper(F("end_at") - F("started_at"), output_field=DurationField()),
                Value(dt.timedelta(0), output_field=DurationField()),
            ),
        )
        .order_by(*SQL_ORDER)
    )


#: How many times :meth:`SqlBoard.rows` reads the counts before it sorts in one statement.
FAST_TRIES = 3


class BoardMoved(Exception):
    """The counts read earlier no longer describe the board: an attempt moved meanwhile."""


def _in_order(value: int, name: str) -> int:
    return -value if PART[name].descending else value


@dataclass(frozen=True)
class Group:
    """The attempts of one (won, cards) pair: how many, and how many come before them."""

    won: int
    cards: int
    size: int
    before: int


class SqlBoard:
    """One day's board as it stands at ``now``, from SQL."""

    def __init__(self, day: dt.date, now: dt.datetime) -> None:
        self.day = day
        self.now = now
        self._in_group: dict[Group, list[tuple[int, int]]] = {}

    # -- counts -----------------------------------------------------------------------------------

    @cached_property
    def groups(self) -> list[Group]:
        """The (won, cards) groups in board order, with their sizes: from the index alone."""
        counted: dict[tuple[int, int], int] = {}
        for status, cards, n in (
            attempts(self.day)
            .values("status", "foundation_cards")
            .annotate(n=Count("*"))
            .values_list("status", "foundation_cards", "n")
        ):
            pair = (won_of(status), cards)
            counted[pair] = counted.get(pair, 0) + n
        pairs = sorted(counted, key=lambda p: (_in_order(p[0], "won"), _in_order(p[1], "cards")))
        before = [0, *accumulate(counted[p] for p in pairs)]
        return [Group(w, c, counted[(w, c)], before[i]) for i, (w, c) in enumerate(pairs)]

    @property
    def count(self) -> int:
        return sum(g.size for g in self.groups)

    def _group_at(self, position: int) -> Group:
        starts = [g.before for g in self.groups]
        return self.groups[bisect_right(starts, position) - 1]

    def _actions(self, group: Group) -> list[tuple[int, int]]:
        """(actions, how many) within ``group``, in board order."""
        if group not in self._in_group:
            actions = PART["actions"]
            self._in_group[group] = list(
                attempts(self.day)
                .filter(won_is(group.won), foundation_cards=group.cards)
                .values("ply")
                .annotate(n=Count("*"))
                .values_list("ply", "n")
                .order_by(f"{'-' if actions.descending else ''}ply")
            )
        return self._in_group[group]

    def _prefix_at(self, position: int) -> tuple[Prefix, int]:
        """The static prefix of the attempt at ``position`` (0-based) and how many attempts come
        before the first attempt with that prefix."""
        group = self._group_at(position)
        before = group.before
        for actions, n in self._actions(group):
            if position < before + n:
                return (group.won, group.cards, actions), before
            before += n
        raise BoardMoved(position)

    # -- rows ---------------------------------------------------------------------------------

    def between(self, first: Prefix, last: Prefix) -> QuerySet[Game]:
        """The attempts whose static prefixes lie from ``first`` to ``last``, in rank order."""
        span = from_prefix(first) & until_prefix(last)
        if first[0] == last[0]:  # the same side of "won": a range of the index, said plainly
            low, high = sorted((first[1], last[1]))
            span &= won_is(first[0]) & Q(foundation_cards__range=(low, high))
        return ranked(self.day, self.now).filter(span)

    def rows(self, start: int, stop: int) -> list[Game]:
        for _ in range(FAST_TRIES):
            end = min(stop, self.count)
            if start >= end:
                return []
            try:
                first, skipped = self._prefix_at(start)
                last, _ = self._prefix_at(end - 1)
            except BoardMoved:
                self._forget_counts()
                continue
            found = list(self.between(first, last))[start - skipped : end - skipped]
            if len(found) == end - start:
                return found
            self._forget_counts()  # the board moved between the counts and the fetch
        return list(ranked(self.day, self.now)[start:stop])

    def _forget_counts(self) -> None:
        self.__dict__.pop("groups", None)
        self._in_group.clear()

    def rank_of(self, game: Game) -> int | None:
        if game.daily_date != self.day:
            return None
        key = Standing.of(game, self.now)
        if key is None:
            return None
        group = next((g for g in self.groups if (g.won, g.cards) == (key.won, key.cards)), None)
        if group is None:
            return None
        better = _in_order(key.actions, "actions")
        ahead = group.before + sum(
            n for a, n in self._actions(group) if _in_order(a, "actions") < better
        )
        elapsed = key.elapsed * MICROSECOND
        end = EPOCH + key.end * MICROSECOND
        same = ranked(self.day, self.now).filter(at_prefix((key.won, key.cards, key.actions)))
        # The parts after the static ones, compared as order.PARTS has them (all ascending).
        assert not any(PART[n].descending for n in ("elapsed", "end", "game_id"))
        ahead += same.filter(
            Q(elapsed__lt=elapsed)
            | Q(elapsed=elapsed, end_at__lt=end)
            | Q(elapsed=elapsed, end_at=end, pk__lt=key.game_id)
        ).count()
        return ahead + 1
