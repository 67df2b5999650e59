"""Actions and their notation: one whitespace-free token per action.

=========  =====================================================
token      action
=========  =====================================================
``D``      draw from the stock to the waste
``C``      recycle: turn the waste over as the new stock
``U``      undo the last action
``R-T2``   the reserve's top card onto column T2
``W-F3``   the waste's top card to foundation F3
``T1-F2``  column T1's last card to foundation F2
``T2:3-T4``  the last 3 cards of column T2 (a run) onto T4
``F2-T1``  take-back: foundation F2's top card onto column T1
=========  =====================================================

A run of one card has no count; ``:N`` (N ≥ 2) appears only after a column. Parsing accepts
exactly the canonical form, so ``Action.parse(t).token() == t`` for every token that parses.

:func:`notation` gives the notation as data — the piles, the one-letter tokens, a move's pattern,
how a move is written and which moves there are, all read from the definitions below — for a
client that reads and writes tokens (the pages' scripts) without a rule of its own.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias, TypedDict

from .errors import NotationError
from .reasons import Reason

Pile: TypeAlias = int

RESERVE: Final = 0
WASTE: Final = 1
FOUNDATIONS: Final = (2, 3, 4, 5)
COLUMNS: Final = (6, 7, 8, 9)
#: The first foundation and the first column: piles below FIRST_COLUMN give one card at a time,
#: piles from FIRST_FOUNDATION on take cards.
FIRST_FOUNDATION: Final = FOUNDATIONS[0]
FIRST_COLUMN: Final = COLUMNS[0]
PILE_NAMES: Final = ("R", "W", "F1", "F2", "F3", "F4", "T1", "T2", "T3", "T4")
PILE_BY_NAME: Final = {name: i for i, name in enumerate(PILE_NAMES)}
MAX_RUN = 52

Kind: TypeAlias = Literal["move", "draw", "recycle", "undo"]

#: A move's token, whole: its groups are the source pile, the count (absent for one card) and the
#: destination pile.
_MOVE_RE = re.compile(r"(R|W|F[1-4]|T[1-4])(?::([1-9][0-9]?))?-(F[1-4]|T[1-4])")
#: How a move is written: one card, and a run of ``count`` cards from a column.
#: :meth:`Action.token` writes with these, and so do the pages' scripts (:func:`notation`).
ONE_CARD: Final = "{src}-{dst}"
RUN: Final = "{src}:{count}-{dst}"


@dataclass(frozen=True, slots=True)
class Action:
    """One player action. Moves carry source pile, destination pile and card count."""

    kind: Kind
    src: Pile = -1
    dst: Pile = -1
    count: int = 1

    @staticmethod
    def move(src: Pile | str, dst: Pile | str, count: int = 1) -> Action:
        try:
            s = PILE_BY_NAME[src] if isinstance(src, str) else src
            d = PILE_BY_NAME[dst] if isinstance(dst, str) else dst
        except KeyError as exc:
            raise NotationError(f"no pile {exc.args[0]!r}: use R, W, F1-F4 or T1-T4") from None
        return _move(s, d, count)

    @staticmethod
    def parse(token: str) -> Action:
        """Parse a canonical token; raises :class:`NotationError` with the reason."""
        if not isinstance(token, str):
            raise NotationError(Reason("action_not_text", text=type(token).__name__))
        simple = _SIMPLE.get(token)
        if simple is not None:
            return simple
        m = _MOVE_RE.fullmatch(token)
        if m is None:
            raise NotationError(Reason("not_an_action", text=repr(token)))
        src_name, count_text, dst_name = m.groups()
        if count_text is not None:
            if not src_name.startswith("T"):
                raise NotationError(
                    Reason("count_not_from_column", text=repr(token), pile=src_name)
                )
            count = int(count_text)
            if count < 2 or count > MAX_RUN or count_text.startswith("0"):
                raise NotationError(Reason("bad_run_count", text=repr(token), count=MAX_RUN))
        else:
            count = 1
        if src_name == dst_name:
            raise NotationError(Reason("same_pile", text=repr(token)))
        if src_name.startswith("F") and dst_name.startswith("F"):
            raise NotationError(Reason("foundation_to_foundation", text=repr(token)))
        if count > 1 and dst_name.startswith("F"):
            raise NotationError(Reason("one_card_to_foundation", text=repr(token)))
        return _move(PILE_BY_NAME[src_name], PILE_BY_NAME[dst_name], count)

    def token(self) -> str:
        if self.kind == "move":
            written = RUN if self.count > 1 else ONE_CARD
            return written.format(
                src=PILE_NAMES[self.src], count=self.count, dst=PILE_NAMES[self.dst]
            )
        return _SIMPLE_TOKEN[self.kind]

    @property
    def src_name(self) -> str:
        return PILE_NAMES[self.src] if self.src >= 0 else ""

    @property
    def dst_name(self) -> str:
        return PILE_NAMES[self.dst] if self.dst >= 0 else ""

    def __str__(self) -> str:
        return self.token()

    def __repr__(self) -> str:
        return f"Action.parse({self.token()!r})"


DRAW: Final = Action("draw")
RECYCLE: Final = Action("recycle")
UNDO: Final = Action("undo")
_SIMPLE: Final = {"D": DRAW, "C": RECYCLE, "U": UNDO}
_SIMPLE_TOKEN: Final = {"draw": "D", "recycle": "C", "undo": "U"}

#: Every move the notation can name, built once: ``MOVES[src][dst][count - 1]``. The move generator
#: hands out these shared objects instead of allocating, which keeps legal-move generation cheap
#: (a nested tuple indexes faster than a dict keyed by a tuple). A pair of piles no move joins
#: (a pile onto itself, anything onto the reserve or the waste) has no entries: indexing it raises.
MOVES: Final[tuple[tuple[tuple[Action, ...], ...], ...]] = tuple(
    tuple(
        tuple(Action("move", src, dst, n) for n in range(1, MAX_RUN + 1))
        if src != dst and dst >= FIRST_FOUNDATION
        else ()
        for dst in range(len(PILE_NAMES))
    )
    for src in range(len(PILE_NAMES))
)


def _move(src: Pile, dst: Pile, count: int) -> Action:
    if not (
        0 <= src < len(PILE_NAMES)
        and FIRST_FOUNDATION <= dst < len(PILE_NAMES)
        and src != dst
        and 1 <= count <= MAX_RUN
    ):
        raise NotationError(f"no such move: from pile {src} to pile {dst}, {count} cards")
    return MOVES[src][dst][count - 1]


def parse_tokens(text: str) -> list[Action]:
    """Parse whitespace-separated tokens; the error names the position of a bad token."""
    actions = []
    for i, token in enumerate(text.split(), start=1):
        try:
            actions.append(Action.parse(token))
        except NotationError as exc:
            raise NotationError(f"token {i}: {exc}", reason=exc.reason) from None
    return actions


class NotationDict(TypedDict):
    """The notation as data (:func:`notation`): all a client needs to read and write tokens as
    :meth:`Action.parse` and :meth:`Action.token` do."""

    #: The foundations and the columns, in order (``F1``–``F4``, ``T1``–``T4``).
    foundations: list[str]
    columns: list[str]
    #: The one-letter tokens and what each does: ``{"D": "draw", "C": "recycle", "U": "undo"}``.
    actions: dict[str, Kind]
    #: A move's token as a regular expression, to match whole; its groups are the source, the
    #: count (absent for one card) and the destination.
    pattern: str
    #: How a move is written, ``{src}``, ``{count}`` and ``{dst}`` filled in: one card, a run.
    one_card: str
    run: str
    #: For each source pile, each pile a move from it may go to, and the most cards one such
    #: move carries (1: one card at a time; every count from 1 to it is a move). A pair of piles
    #: that no token joins (a pile and itself, two foundations, anything onto the reserve or
    #: the waste) is absent.
    moves: dict[str, dict[str, int]]


def notation() -> NotationDict:
    """The notation as data, for clients that read and write tokens (the pages' scripts: a token
    they build or read is one :meth:`Action.parse` reads alike, and no other). The table of moves
    is read from :meth:`Action.parse` itself: each move of :data:`MOVES` whose token parses back
    to it."""
    return {
        "foundations": [PILE_NAMES[p] for p in FOUNDATIONS],
        "columns": [PILE_NAMES[p] for p in COLUMNS],
        "actions": {token: action.kind for token, action in _SIMPLE.items()},
        "pattern": _MOVE_RE.pattern,
        "one_card": ONE_CARD,
        "run": RUN,
        "moves": {
            PILE_NAMES[src]: {PILE_NAMES[dst]: longest for dst, longest in pairs}
            for src, pairs in enumerate(_longest_moves())
            if pairs
        },
    }


@functools.cache
def _longest_moves() -> tuple[tuple[tuple[Pile, int], ...], ...]:
    """For each source pile, ``(destination, most cards)`` of each pile a token moves cards to."""
    table = []
    for by_dst in MOVES:
        pairs = []
        for dst, moves in enumerate(by_dst):
            counts = [move.count for move in moves if _written(move)]
            if counts != list(range(1, len(counts) + 1)):
                raise AssertionError(f"the counts of a move to {PILE_NAMES[dst]} have a gap")
            if counts:
                pairs.append((dst, len(counts)))
        table.append(tuple(pairs))
    return tuple(table)


def _written(move: Action) -> bool:
    """Whether the notation writes ``move``: its token parses back to it."""
    try:
        return Action.parse(move.token()) == move
    except NotationError:
        return False
