"""Stuck for good: can any line of moves that uses only the cards in sight still get somewhere?

The stuck notice (``finish.stuck``) asks it of every position the player reaches, daily or not,
and answers it from what the player sees and has seen (``finish``'s documentation says what
that is), so it is fair everywhere.

**Progress** is either of:

- *a new card comes into sight*: the reserve's top card leaves while the reserve holds more than
  one card (played, or filling an emptied column), or a draw while the stock holds cards the
  player has not seen in order (``finish.stock_is_known`` is false; drawing one at a time, the
  order would not matter, but a card never turned is new all the same);
- *a card is placed on a foundation* so that the foundations hold more cards than they do now.
  A card taken back and placed again is no progress: the count only returns to where it was.

Every other action is an ordinary **step**: a run from column to column, the waste's top card to
a column, a take-back, the reserve's last card to a column, drawing and recycling a stock the
player knows. :func:`look_ahead` searches the positions that steps reach and answers
``progress`` as soon as one of them offers a progressive move, ``no_progress`` when none does
(the position is stuck for good: back-and-forth moves may be left, nothing they lead to helps),
and ``unknown`` when the search reached its bound first; the notice shows only on a proof.

The search is given the visible position only (:class:`Sight`): the reserve's top card and its
count, the waste, the stock when its order is known, the foundations' counts and the columns. A
hidden card cannot change the answer, since no step brings one into sight: the search stops at
the first move that would.

The search, like the solver's (``solver/position.py``, whose notes give each argument):

- draws and recycles are not steps of their own: they touch only the stock and the waste, and no
  other move depends on those, so a line can always draw just before it plays from the waste.
  A position carries the talon (the waste bottom first, then the stock in the order it is drawn)
  and how many of its cards lie on the waste; a waste move is "draw or recycle until the card is
  on top, then play it", to any talon card that drawing reaches. Pointers that draws and recycles
  lead round to each other are one position (the solver's ``canonical_pointer``);
- the four columns are alike, so a position keeps them sorted, and a card goes only to the first
  empty column;
- take-backs (the app's rules) in the solver's normal form (its rule 5): while cards taken back
  wait for their use (a card built on them, or the card under them taken back too), the only
  moves are more take-backs and, when one card waits, moves onto it. The solver's argument holds
  for progress as for a win: leaving out a take-back that is never used, or playing it later,
  keeps every other move legal, turns no card up that was not turned up, and leaves at least as
  many cards on the foundations at every step, so a line to progress in that form exists when
  any does;
- a run moved off a card that then goes to its foundation, or takes the reserve's top card, is
  progress two moves away, answered at once rather than when the search comes back to that
  position (measured: a fifth fewer positions searched over the sample below);
- a position reached twice is searched once, and the search expands every position it reaches
  (depth first), so it is exhaustive within :data:`POSITIONS`.

``tests/engine/test_stuck.py`` checks the answers against a search of every line of the engine's
own actions, with nothing pruned.
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple, TypeAlias

from .cards import FITS_ON, RANK_OF, SUIT_OF, Card

Outcome: TypeAlias = Literal["progress", "no_progress", "unknown"]

#: The most positions one search reaches before it answers ``unknown`` (and the notice stays
#: away). Measured over 16,004 distinct positions proved stuck for good in simulated players'
#: games of 150 deals (both rule sets and draw modes): 99.5 % of the proofs take under 500
#: positions, 19 more than 2,000 (the largest 3,378). Over the 56,100 positions of 192 games
#: (simulated players and winning lines of 50 deals) 0.8 % reach the bound, all late in the
#: app's rules drawing three, the reserve used up; a search costs 1.3-2.3 µs a position, so
#: about 3-5 ms at the bound.
POSITIONS: Final = 2000

#: ``_PLACE[base][c]``: how many cards the foundation of ``c``'s suit holds when ``c`` is the
#: one it takes next, for foundations starting at rank ``base``.
_PLACE: Final = tuple(tuple((RANK_OF[c] - base) % 13 for c in range(52)) for base in range(13))
#: Bit offset of a suit's count in a position's foundation counts (4 bits a suit).
_SHIFT: Final = tuple(4 * SUIT_OF[c] for c in range(52))
#: ``_FITTING[t]``: the two cards that may be built on ``t`` in a column.
_FITTING: Final = tuple(tuple(c for c in range(52) if FITS_ON[c][t]) for t in range(52))
_RESERVE_SHIFT: Final = 16
_POINTER_SHIFT: Final = 22
_WAITING_SHIFT: Final = 28

#: (foundation counts | reserve count << 16 | talon pointer << 22, talon, four sorted columns).
_Position: TypeAlias = tuple[int, bytes, bytes, bytes, bytes, bytes]


class Search(NamedTuple):
    """What :func:`look_ahead` found, and how many positions it reached to find it."""

    outcome: Outcome
    positions: int


class Sight(NamedTuple):
    """A position as the player sees it, and nothing more: all that :func:`look_ahead` is given
    (``finish.sight`` takes it of a game)."""

    draw: int
    classic: bool
    base_rank: int
    #: The reserve's top card (-1: the reserve is empty) and how many cards it holds.
    reserve_top: Card
    reserve_count: int
    #: The waste bottom first, then the stock in the order it is drawn when the player knows that
    #: order (else the waste alone): the cards draws and recycles go through.
    talon: bytes
    on_waste: int
    #: The stock holds cards the player has not seen in order: the next draw turns them up.
    unseen_stock: bool
    #: Per suit (S H D C), the cards on its foundation.
    foundations: tuple[int, int, int, int]
    columns: tuple[bytes, bytes, bytes, bytes]


def look_ahead(sight: Sight, limit: int = POSITIONS) -> Search:
    """Whether some line of steps (the module's notes) from the position in ``sight`` reaches a
    progressive move: ``progress``, ``no_progress`` (proved), or ``unknown`` past ``limit``
    positions searched. The quick outs come first: a progressive move at hand."""
    if sight.unseen_stock or _progress_at_hand(sight):
        return Search("progress", 0)
    return _search(sight, limit)


def waste_tops(talon: bytes, p: int, draw: int) -> list[tuple[int, Card]]:
    """The talon cards that draws and recycles alone bring to the top of the waste, from ``p``
    cards on the waste: (cards on the waste then, the card), in the order drawing brings them."""
    size = len(talon)
    out = []
    seen = set()
    q = p
    while size and q not in seen:
        seen.add(q)
        if q:
            out.append((q, talon[q - 1]))
        q = min(q + draw, size) if q < size else 0
    return out


def _progress_at_hand(sight: Sight) -> bool:
    """A progressive move playable at once, or one that draws alone bring up."""
    base = sight.base_rank
    wanted = {
        suit * 13 + (base + n) % 13 for suit, n in enumerate(sight.foundations) if n < 13
    }  # (the card each foundation takes next)
    columns = [column for column in sight.columns if column]
    top = sight.reserve_top
    if top >= 0:
        if top in wanted:
            return True
        if sight.reserve_count > 1:
            fits = FITS_ON[top]
            for column in columns:
                if fits[column[-1]]:
                    return True
            for column in columns:  # a whole column onto another: the reserve refills it
                fits = FITS_ON[column[0]]
                if any(fits[other[-1]] for other in columns if other is not column):
                    return True
    for column in columns:
        if column[-1] in wanted:
            return True
    talon = sight.talon
    if not any(c in talon for c in wanted):
        return False
    return any(c in wanted for _, c in waste_tops(talon, sight.on_waste, sight.draw))


def _pointer(p: int, size: int, draw: int) -> int:
    """The talon pointer stored for ``p`` cards on the waste of ``size``: 0 for every pointer on
    the cycle that draws and recycles go round (as ``solver.position.canonical_pointer``)."""
    return 0 if p % draw == 0 or p == size else p


def _search(sight: Sight, limit: int) -> Search:
    """Depth first over the positions that steps reach from ``sight``, at most ``limit``."""
    draw = sight.draw
    classic = sight.classic
    base = sight.base_rank
    place = _PLACE[base]
    shift = _SHIFT
    fits_on = FITS_ON
    rt = sight.reserve_top
    rt_fits = FITS_ON[rt] if rt >= 0 else ()
    held = 0
    for suit, n in enumerate(sight.foundations):
        held |= n << (4 * suit)
    now = sum(sight.foundations)  # a placement from a position holding this many progresses
    talon = sight.talon
    cols = sorted(sight.columns)
    root: _Position = (
        held
        | sight.reserve_count << _RESERVE_SHIFT
        | _pointer(sight.on_waste, len(talon), draw) << _POINTER_SHIFT,
        talon,
        cols[0],
        cols[1],
        cols[2],
        cols[3],
    )
    seen = {root}
    todo = [root]
    reach: dict[tuple[bytes, int], dict[Card, int]] = {}

    def add(scalar: int, talon: bytes, columns: list[bytes]) -> None:
        columns.sort()
        key = (scalar, talon, columns[0], columns[1], columns[2], columns[3])
        if key not in seen:
            seen.add(key)
            todo.append(key)

    while todo:
        if len(seen) > limit:
            return Search("unknown", len(seen))
        scalar, talon, c0, c1, c2, c3 = todo.pop()
        columns = (c0, c1, c2, c3)
        fc = scalar & 0xFFFF
        res = (scalar >> _RESERVE_SHIFT) & 63
        p = (scalar >> _POINTER_SHIFT) & 63
        waiting = scalar >> _WAITING_SHIFT
        placing = (fc & 15) + (fc >> 4 & 15) + (fc >> 8 & 15) + (fc >> 12) >= now
        keep = res << _RESERVE_SHIFT | p << _POINTER_SHIFT  # (and no card waits)
        empty = not res and not c0  # (sorted: an empty column comes first)
        if not classic:
            # Take-backs: a foundation's top card onto a column. The card joins the waiting
            # cards; the card it goes on, and the one above it on its foundation (taken back
            # before it), have had their use and leave them.
            for suit in range(4):
                n = (fc >> (4 * suit)) & 15
                if not n:
                    continue
                g = suit * 13 + (base + n - 1) % 13
                after = waiting
                if n < 13:
                    after &= ~(1 << (suit * 13 + (base + n) % 13))
                lower = fc - (1 << (4 * suit)) | keep
                fits = fits_on[g]
                for k in range(4):
                    target = columns[k]
                    if target and fits[target[-1]]:
                        moved = list(columns)
                        moved[k] = target + bytes((g,))
                        w = after & ~(1 << target[-1]) | 1 << g
                        add(lower | w << _WAITING_SHIFT, talon, moved)
                if empty:
                    add(
                        lower | (after | 1 << g) << _WAITING_SHIFT, talon, [bytes((g,)), c1, c2, c3]
                    )
        if waiting:
            # While taken-back cards wait for their use, the only other moves are onto the
            # one card that waits (when only one does).
            if waiting & (waiting - 1):
                continue
            f = waiting.bit_length() - 1
            dests: tuple[int, ...] = tuple(k for k in range(4) if columns[k][-1:] == bytes((f,)))
            empty = False
        else:
            dests = (0, 1, 2, 3)
        # The reserve: its top card leaving reveals the next one; its last card is a step.
        if res:
            if not waiting and (fc >> shift[rt]) & 15 == place[rt]:
                if res > 1 or placing:
                    return Search("progress", len(seen))
                add(fc + (1 << shift[rt]) | p << _POINTER_SHIFT, talon, list(columns))
            for k in dests:
                if columns[k] and rt_fits[columns[k][-1]]:
                    if res > 1:
                        return Search("progress", len(seen))
                    moved = list(columns)
                    moved[k] += bytes((rt,))
                    add(fc | p << _POINTER_SHIFT, talon, moved)
        # The waste: the talon cards that draws bring to the top.
        where = reach.get((talon, p))
        if where is None:
            where = reach[talon, p] = {c: q for q, c in waste_tops(talon, p, draw)}
        if where:
            if not waiting:
                for suit in range(4):
                    n = (fc >> (4 * suit)) & 15
                    q = where.get(suit * 13 + (base + n) % 13, 0) if n < 13 else 0
                    if q:
                        if placing:
                            return Search("progress", len(seen))
                        rest = talon[: q - 1] + talon[q:]
                        after = _pointer(q - 1, len(rest), draw) << _POINTER_SHIFT
                        add(
                            fc + (1 << (4 * suit)) | after | res << _RESERVE_SHIFT,
                            rest,
                            list(columns),
                        )
            for k in dests:
                target = columns[k]
                if not target:
                    continue
                for c in _FITTING[target[-1]]:
                    q = where.get(c, 0)
                    if q:
                        rest = talon[: q - 1] + talon[q:]
                        after = _pointer(q - 1, len(rest), draw) << _POINTER_SHIFT
                        moved = list(columns)
                        moved[k] = target + bytes((c,))
                        add(fc | after | res << _RESERVE_SHIFT, rest, moved)
            if empty:
                for c, q in where.items():
                    rest = talon[: q - 1] + talon[q:]
                    after = _pointer(q - 1, len(rest), draw) << _POINTER_SHIFT
                    add(fc | after, rest, [bytes((c,)), c1, c2, c3])
        if not waiting:
            # The columns' last cards to their foundations.
            for j in range(4):
                column = columns[j]
                if not column:
                    continue
                last = column[-1]
                if (fc >> shift[last]) & 15 == place[last]:
                    if placing or (res > 1 and len(column) == 1):
                        return Search("progress", len(seen))
                    moved = list(columns)
                    if len(column) > 1 or not res:
                        moved[j] = column[:-1]
                        add(fc + (1 << shift[last]) | keep, talon, moved)
                    else:  # its last card: the reserve's last card fills the column
                        moved[j] = bytes((rt,))
                        add(fc + (1 << shift[last]) | p << _POINTER_SHIFT, talon, moved)
            if empty and not classic:
                # Part of a column into the first empty one (a whole column: the same position).
                for j in range(1, 4):
                    column = columns[j]
                    for i in range(1, len(column)):
                        c = column[i - 1]
                        if placing and (fc >> shift[c]) & 15 == place[c]:
                            return Search("progress", len(seen))  # it uncovers a card to place
                        moved = [column[i:], c1, c2, c3]
                        moved[j] = column[:i]
                        add(fc | keep, talon, moved)
        # Runs onto the columns' last cards: the two cards that fit there, wherever they lie.
        for k in dests:
            target = columns[k]
            if not target:
                continue
            for c in _FITTING[target[-1]]:
                for j in range(4):
                    column = columns[j]
                    i = column.find(c) if j != k else -1
                    if i < 0:
                        continue
                    if i and classic:
                        break  # the classic rules: a column moves only as a whole
                    moved = list(columns)
                    moved[k] = target + column[i:]
                    if i:
                        c = column[i - 1]
                        if (placing and (fc >> shift[c]) & 15 == place[c]) or (
                            res > 1 and rt_fits[c]
                        ):
                            return Search("progress", len(seen))  # it uncovers a card to play
                        moved[j] = column[:i]
                        add(fc | keep, talon, moved)
                    elif res > 1:
                        return Search("progress", len(seen))  # the reserve refills the column
                    elif res:
                        moved[j] = bytes((rt,))
                        add(fc | p << _POINTER_SHIFT, talon, moved)
                    else:
                        moved[j] = b""
                        add(fc | keep, talon, moved)
                    break
    return Search("no_progress", len(seen))
