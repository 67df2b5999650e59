"""The order of a day's board, defined once: which attempts are ranked, and the standing key.

**Which attempts are ranked** (:data:`RANKED`): daily attempts that have had their first action
(``ply > 0``; their clock starts then). An attempt created and never played has no time and no
standing: it is off the board and out of its counts until it starts. Every reader of "ranked"
derives from this one table — the boards' SQL filter (:func:`ranked_filters`), the test of an
attempt in memory (:func:`is_ranked`), the Redis sets (an attempt that stops being ranked leaves
them), the final ranks a settled day stores and the players' stats. A condition added here (say a
``disqualified`` flag) takes an attempt off all of them at once.

**The standing key** (:class:`Standing`), compared part by part (:data:`PARTS`):

1. won before not won (in progress, resigned and closed attempts are all "not won");
2. more cards on the foundations;
3. fewer actions (every logged action, undos included);
4. less time: from the first action to ``finished_at``, or, for an attempt still open, to its
   day's *clock* — now, or the day's end once the day is over (never below 0);
5. who finished first: the earlier end (``finished_at``; an open attempt's end is the clock);
6. the earlier attempt (lower game id), so that no two attempts tie.

Times are whole microseconds, as both databases keep them. The score is shown beside each row and
is never part of the key: a take-back from a foundation and placing the card again earns 5 points,
and adds two actions and no card.

From :data:`PARTS` come, mechanically:

- the SQL order (:data:`SQL_ORDER`, over the annotations of ``sql.ranked``) and the SQL
  comparisons of a key's static prefix (:func:`from_prefix`, :func:`until_prefix`);
- the Redis member (:meth:`Standing.member`): fixed-width decimal digits whose byte order is the
  key's order (a descending part is written as its nines' complement);
- the member of an attempt still open (:class:`OpenStanding`): its static parts, then its start
  *descending* (less time at any clock), then its id — an order that no longer depends on the
  clock — and the full member it has at a given clock (:meth:`OpenStanding.at`);
- the Lua that builds that full member inside Redis (:func:`lua_full_member`), its offsets taken
  from the same layout.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from django.db.models import BooleanField, Q
from django.db.models.expressions import RawSQL

from games.clock import day_end
from games.models import Game

# --- which attempts are ranked --------------------------------------------------------------


@dataclass(frozen=True)
class Condition:
    """``<field> <lookup> <value>`` over a ``Game``. ``literal``: spelt as an SQL literal rather
    than a bound parameter (``kind = 'daily'``, as in the WHERE clause of the partial index
    games_daily_board: given a parameter instead, SQLite reads every row to check it)."""

    field: str
    lookup: Literal["exact", "gt"]
    value: str | int | bool
    literal: bool = False

    def sql(self) -> Q | RawSQL:
        if self.literal:
            assert isinstance(self.value, str) and "'" not in self.value
            text = f'"games_game"."{self.field}" = \'{self.value}\''
            assert self.lookup == "exact"
            return RawSQL(text, (), output_field=BooleanField())
        return Q(**{f"{self.field}__{self.lookup}": self.value})

    def holds(self, game: Game) -> bool:
        found = getattr(game, self.field)
        if self.lookup == "exact":
            return bool(found == self.value)
        return bool(found > self.value)


#: The attempts on the boards: all conditions hold.
RANKED: tuple[Condition, ...] = (
    Condition("kind", "exact", Game.Kind.DAILY.value, literal=True),
    Condition("ply", "gt", 0),
    # Staff took it off the board (leaderboard.review): off every board, rank and stat.
    Condition("disqualified", "exact", False),
)


def ranked_filters() -> list[Any]:
    """``Game.objects.filter(*ranked_filters())``: the ranked attempts, in SQL."""
    return [condition.sql() for condition in RANKED]


def is_ranked(game: Game) -> bool:
    """Whether ``game`` is ranked on its day's board (the same test, in memory)."""
    return game.daily_date is not None and all(c.holds(game) for c in RANKED)


# --- the key ---------------------------------------------------------------------------------

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
MICROSECOND = dt.timedelta(microseconds=1)


def micros(moment: dt.datetime) -> int:
    """Microseconds since the epoch, exactly."""
    return (moment - EPOCH) // MICROSECOND


@dataclass(frozen=True)
class Part:
    """One part of the key: the :class:`Standing` field it reads, its direction, its width in a
    Redis member, and what SQL orders by (a column of ``Game``, or an annotation of
    ``sql.ranked``). ``static``: stored columns, known without a clock (the SQL board counts
    its groups by them)."""

    name: str
    descending: bool
    digits: int
    sql: str
    static: bool
    largest: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "largest", int(10**self.digits) - 1)

    def write(self, value: int) -> str:
        """``value`` as this part's digits in a member: byte order is board order."""
        if not 0 <= value <= self.largest:
            raise ValueError(f"{self.name} {value} does not fit {self.digits} digits")
        return f"{self.largest - value if self.descending else value:0{self.digits}d}"

    def read(self, digits: str) -> int:
        value: int = int(digits)
        return self.largest - value if self.descending else value


#: The key, part by part, best first. Widths: actions up to 10^10, times in µs (elapsed up to
#: 11 days; ends up to the year 5138), ids up to 10^19.
PARTS: tuple[Part, ...] = (
    Part("won", True, 1, "won_first", static=True),
    Part("cards", True, 2, "foundation_cards", static=True),
    Part("actions", False, 10, "ply", static=True),
    Part("elapsed", False, 12, "elapsed", static=False),
    Part("end", False, 17, "end_at", static=False),
    Part("game_id", False, 19, "id", static=False),
)
PART = {part.name: part for part in PARTS}
#: The static prefix of the key: (won, cards, actions).
STATIC = tuple(part for part in PARTS if part.static)
#: The full order, as ``order_by`` arguments over the annotations of ``sql.ranked``.
SQL_ORDER = tuple(f"{'-' if part.descending else ''}{part.sql}" for part in PARTS)
#: Where each part's digits are in a member: (start, stop), 0-based.
SPANS: dict[str, tuple[int, int]] = {}
_at = 0
for _part in PARTS:
    SPANS[_part.name] = (_at, _at + _part.digits)
    _at += _part.digits


@dataclass(frozen=True)
class Standing:
    """An attempt's key on its day's board at a given clock (ints: µs for times)."""

    won: int
    cards: int
    actions: int
    elapsed: int
    end: int
    game_id: int

    def parts(self) -> tuple[int, ...]:
        return tuple(getattr(self, part.name) for part in PARTS)

    def sort_key(self) -> tuple[int, ...]:
        """A tuple that sorts in board order (the definition the member and SQL must match)."""
        values = zip(PARTS, self.parts(), strict=True)
        return tuple(-v if part.descending else v for part, v in values)

    def member(self) -> str:
        """This key as a Redis member: members sort byte-wise in board order."""
        return "".join(part.write(v) for part, v in zip(PARTS, self.parts(), strict=True))

    @classmethod
    def from_member(cls, member: str) -> Standing:
        values = {part.name: part.read(member[slice(*SPANS[part.name])]) for part in PARTS}
        return cls(**values)

    @classmethod
    def of(cls, game: Game, now: dt.datetime) -> Standing | None:
        """``game``'s key on its day's board at ``now``, or ``None`` if it is not ranked. An
        attempt still open once its day is over stands as it stood at the day's end."""
        if not is_ranked(game) or game.started_at is None:
            return None
        end = end_of(game, now)
        return cls(
            won=int(game.status == Game.Status.WON),
            cards=game.foundation_cards,
            actions=game.ply,
            elapsed=max(0, micros(end) - micros(game.started_at)),
            end=micros(end),
            game_id=game.pk,
        )


def clock_end(day: dt.date, now: dt.datetime) -> dt.datetime:
    """Where the clock of an attempt still open stops: now, or its day's end if that is
    earlier."""
    return min(now, day_end(day))


def end_of(game: Game, now: dt.datetime) -> dt.datetime:
    """Where ``game``'s clock stops, seen at ``now``: when it finished; for a daily attempt still
    open, its day's clock (:func:`clock_end`); for a practice game still open, now."""
    if game.finished_at is not None:
        return game.finished_at
    if game.daily_date is not None:
        return clock_end(game.daily_date, now)
    return now


def elapsed_of(game: Game, now: dt.datetime) -> dt.timedelta | None:
    """``game``'s time at ``now``, from its first action (``None`` before it), as the key has it
    (:func:`elapsed_between`)."""
    if game.started_at is None:
        return None
    return elapsed_between(game.started_at, end_of(game, now))


def elapsed_between(started: dt.datetime | None, end: dt.datetime) -> dt.timedelta | None:
    """The time from an attempt's first action ``started`` (``None``: none yet) to where its
    clock stops, ``end``: never below 0 (an attempt whose recorded end comes before its first
    action has taken none)."""
    if started is None:
        return None
    return max(end - started, dt.timedelta(0))


# --- open attempts -----------------------------------------------------------------------------

#: An open attempt's member: its static parts but "won" (an open attempt has not won), its start
#: descending (later start, less time at any clock) as wide as an end, then the parts after the
#: clock's (the id).
OPEN_LEADING = tuple(part for part in STATIC if part.name != "won")
STARTED = Part("started", True, PART["end"].digits, "started_at", static=False)
_clocked = [PART["elapsed"], PART["end"]]
OPEN_TRAILING = tuple(p for p in PARTS if not p.static and p not in _clocked)
OPEN_PARTS = (*OPEN_LEADING, STARTED, *OPEN_TRAILING)
OPEN_SPANS: dict[str, tuple[int, int]] = {}
_at = 0
for _part in OPEN_PARTS:
    OPEN_SPANS[_part.name] = (_at, _at + _part.digits)
    _at += _part.digits


@dataclass(frozen=True)
class OpenStanding:
    """An attempt still open: its key without the clock, in an order the clock never changes."""

    cards: int
    actions: int
    started: int
    game_id: int

    def member(self) -> str:
        return "".join(part.write(getattr(self, part.name)) for part in OPEN_PARTS)

    @classmethod
    def from_member(cls, member: str) -> OpenStanding:
        return cls(
            **{part.name: part.read(member[slice(*OPEN_SPANS[part.name])]) for part in OPEN_PARTS}
        )

    def at(self, clock: int) -> Standing:
        """Its key at ``clock`` (µs): its time runs from its start to the clock, where it ends."""
        return Standing(0, self.cards, self.actions, clock - self.started, clock, self.game_id)

    @classmethod
    def of(cls, game: Game) -> OpenStanding | None:
        """The open key of a ranked attempt in progress in the database, else ``None``."""
        if not is_ranked(game) or game.started_at is None or game.finished_at is not None:
            return None
        if game.status != Game.Status.IN_PROGRESS:
            return None
        return cls(game.foundation_cards, game.ply, micros(game.started_at), game.pk)


def lua_full_member(open_member: str, clock: str) -> str:
    """A Lua expression: the full member (:meth:`OpenStanding.at`) of the open member held in the
    Lua variable ``open_member`` at the clock in the variable ``clock`` (µs, a number). The start
    is read as the nines' complement of its digits, digit by digit (Lua's doubles would round
    arithmetic on numbers past 2^53); every other number is below 2^53."""

    def sub(span: tuple[int, int]) -> str:
        return f"string.sub({open_member}, {span[0] + 1}, {span[1]})"

    lead = (OPEN_SPANS[OPEN_LEADING[0].name][0], OPEN_SPANS[OPEN_LEADING[-1].name][1])
    trail = (OPEN_SPANS[OPEN_TRAILING[0].name][0], OPEN_SPANS[OPEN_TRAILING[-1].name][1])
    started = f"tonumber((string.gsub({sub(OPEN_SPANS['started'])}, '%d', complement)))"
    elapsed, end = PART["elapsed"], PART["end"]
    return (
        f"'{PART['won'].write(0)}' .. {sub(lead)}"
        f" .. string.format('%0{elapsed.digits}d', {clock} - {started})"
        f" .. string.format('%0{end.digits}d', {clock}) .. {sub(trail)}"
    )


def full_member(open_member: str, clock: int) -> str:
    """:func:`lua_full_member` in Python: the full member of an open member at ``clock`` (µs),
    by slicing, as the Lua builds it (:meth:`OpenStanding.at` with fewer steps: a page merges up
    to a hundred of them)."""
    started = STARTED.read(open_member[_STARTED[0] : _STARTED[1]])
    return (
        _WON_NOT
        + open_member[_LEAD[0] : _LEAD[1]]
        + f"{clock - started:0{_ELAPSED_DIGITS}d}{clock:0{_END_DIGITS}d}"
        + open_member[_TRAIL[0] : _TRAIL[1]]
    )


_LEAD = (OPEN_SPANS[OPEN_LEADING[0].name][0], OPEN_SPANS[OPEN_LEADING[-1].name][1])
_TRAIL = (OPEN_SPANS[OPEN_TRAILING[0].name][0], OPEN_SPANS[OPEN_TRAILING[-1].name][1])
_STARTED = OPEN_SPANS["started"]
_WON_NOT = PART["won"].write(0)
_ELAPSED_DIGITS, _END_DIGITS = PART["elapsed"].digits, PART["end"].digits
assert [p.name for p in PARTS] == ["won", *[p.name for p in OPEN_LEADING], "elapsed", "end"] + [
    p.name for p in OPEN_TRAILING
], "the full member is the open member's parts around the clock's"


def id_of(member: str) -> int:
    """The game id of a full member."""
    start, stop = SPANS["game_id"]
    return int(member[start:stop])


#: The Lua function ``complement`` that :func:`lua_full_member` uses.
LUA_COMPLEMENT = "local function complement(digit) return tostring(9 - tonumber(digit)) end"


# --- SQL comparisons of a static prefix -------------------------------------------------------

WON = Game.Status.WON
NOT_WON = (Game.Status.IN_PROGRESS, Game.Status.RESIGNED)
Prefix = tuple[int, int, int]


def won_is(won: int) -> Q:
    """Attempts won (1) or not won (0), by their status: a range of the board's index."""
    return Q(status=WON) if won else Q(status__in=NOT_WON)


_NOTHING = Q(pk__in=[])


def _compare(part: Part, op: Literal["exact", "after", "before"], value: int) -> Q:
    """Attempts whose ``part`` is equal to ``value``, or comes after / before it in board
    order, by its stored column ("won" by the status)."""
    if part.name == "won":
        if op == "exact":
            return won_is(value)
        later = 0 if part.descending else 1  # the value that comes after the other
        wanted = later if op == "after" else 1 - later
        return won_is(wanted) if value != wanted else _NOTHING
    column = {"cards": "foundation_cards", "actions": "ply"}[part.name]
    if op == "exact":
        return Q(**{column: value})
    smaller = (op == "after") == part.descending
    return Q(**{f"{column}__{'lt' if smaller else 'gt'}": value})


def _lexicographic(prefix: Sequence[int], op: Literal["after", "before"]) -> Q:
    """Attempts whose static prefix is ``prefix`` or comes ``op`` it."""
    found = _NOTHING
    same = Q()
    for part, value in zip(STATIC, prefix, strict=True):
        found |= same & _compare(part, op, value)
        same &= _compare(part, "exact", value)
    return found | same


def at_prefix(prefix: Prefix) -> Q:
    """Attempts whose static prefix is ``prefix``: one range of the board's index."""
    found = Q()
    for part, value in zip(STATIC, prefix, strict=True):
        found &= _compare(part, "exact", value)
    return found


def from_prefix(prefix: Prefix) -> Q:
    """Attempts at the static prefix ``prefix`` or after it in board order."""
    return _lexicographic(prefix, "after")


def until_prefix(prefix: Prefix) -> Q:
    """Attempts at the static prefix ``prefix`` or before it in board order."""
    return _lexicographic(prefix, "before")


def won_of(status: str) -> int:
    return int(status == WON)
