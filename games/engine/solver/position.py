"""Compact positions and their moves, for the solver.

A position is a flat tuple ``(scalar, talon, col0, col1, col2, col3)``:

- ``scalar`` packs the foundations (4 bits each: how many cards foundation F1..F4 holds — a
  foundation only ever holds its suit in order from the base rank, so a count says everything;
  a take-back just lowers it), the reserve (6 bits: how many cards it still holds — it only ever
  loses its top card, so the cards left are the first ``n`` of the reserve as the search found it),
  the talon pointer (6 bits, below) and, from bit 28 up, a set of cards (one bit per card; see
  rule 5 below).
- ``talon`` is the stock and the waste together, as bytes in dealing order: the waste bottom to
  top, then the stock in the order it will be drawn. No card ever enters the talon, and a recycle
  turns the waste over so that the next pass deals the same cards in the same order, so the talon
  is always an ordered subset of the talon at the start, and drawing or recycling only moves the
  pointer — how many talon cards lie on the waste.
- the four columns, as bytes bottom first, **sorted**: the columns are interchangeable (every rule
  treats them alike, the refill included), so two positions that differ only in the order of the
  columns have the same future, and sorting them makes them one key. Moves name columns by their
  place in the sorted order; :func:`real_actions` turns them back into the real columns.

The tuple is its own key: the transposition table is a dict of these tuples.

Moves are ``(source pile, destination pile, card count, talon pointer)`` with the notation's pile
numbers (columns as sorted). A waste move is a *macro*: the draws and recycles that bring the card
at talon pointer ``q`` to the top of the waste, then the move. Draws and recycles touch nothing but
the talon, and no other move's legality depends on the talon, so in any line they can be moved
forward to just before the next waste move without changing anything; the search therefore never
stores a position between two draws.

Pruning — every rule keeps at least one win when a win exists:

1. Transpositions: a position reached twice is searched once (a dict of keys), and the search
   expands every position it reaches, so it is exhaustive over what it may reach.
2. Column symmetry: columns sorted in the key (above).
3. The talon pointer: positions that differ only in the pointer are merged when each can reach the
   other by draws and recycles alone (the same cards can then be brought to the top of the waste,
   and draws cost no move): in draw 1 every pointer reaches every other, so the pointer is dropped;
   in draw 3 the pointers that are multiples of 3, and the end of the talon, all lead through a
   recycle to the same cycle as pointer 0, so they are stored as 0. See :func:`canonical_pointer`.
4. Empty columns: every empty column is alike (2.), so a card or run goes only to the first; a
   whole column moved into an empty one gives the same position (skipped).
5. Take-backs (app rules), a normal form. Lines are measured in moves (draws are free, above).
   Let ``f`` be taken back from a foundation in a shortest winning line, and call its *use* the
   first later move that either puts a card on ``f`` or takes back the card under ``f`` on its
   foundation. (a) A use comes before ``f`` returns to its foundation: otherwise delete the
   take-back, the return and any move of ``f`` alone, and drop ``f`` from the runs it tops;
   everything else stays legal (nothing was built on ``f``, its foundation was untouched, the card
   it covered was covered, a column it held alone is simply empty) and the line is shorter.
   (b) The take-back can be moved to just before its use, over every move between — by the same
   argument each stays legal — and the line is no longer. Doing so for any take-back with a move
   other than a take-back between it and its use strictly lowers the number of such (take-back,
   move) pairs, so some shortest win has none: between a take-back and its use lie only
   take-backs. A move that is not a take-back uses at most one card (the one it builds on), so in
   such a win, while taken-back cards are still unused, the only moves are take-backs and — when
   exactly one card waits — moves onto that card. The position carries the set of waiting cards (a
   card's use removes it) and generates only those moves. (Two take-backs can share one use:
   taking back ``AS`` onto ``2D`` uses both ``2D`` and the ``2S`` that was above ``AS``. So
   requiring each take-back to be used by the very next move would lose wins.)
6. Safe foundation moves (classic rules only): the argument is on :meth:`Rules._safe_move`. In the
   app's rules a card that is "safe" by any local test can still be needed where it is, because
   foundation cards can come back to be built on it (through a chain of take-backs, past the base
   rank by the wrap), so the app's rules get no such rule. In draw 3 a waste card is never forced
   either: taking it out of the talon regroups the later draws.
"""

from __future__ import annotations

from typing import Final, TypeAlias

from ..actions import DRAW, RECYCLE, Action
from ..cards import FITS_ON, RANK_OF, RED, SUIT_OF, card
from ..errors import EngineError
from ..game import Canfield

#: (scalar, talon, col0, col1, col2, col3); see the module notes.
State: TypeAlias = tuple[int, bytes, bytes, bytes, bytes, bytes]
#: (source pile, destination pile, card count, talon pointer of a waste move else 0).
Move: TypeAlias = tuple[int, int, int, int]

RESERVE_SHIFT: Final = 16
POINTER_SHIFT: Final = 22
WAITING_SHIFT: Final = 28
FOUNDATIONS_MASK: Final = 0xFFFF
#: All four foundations complete.
WON: Final = 13 * (1 + 16 + 256 + 4096)
#: FIT[t]: the two cards that may be built on ``t`` in a column.
FIT: Final = tuple(tuple(c for c in range(52) if FITS_ON[c][t]) for t in range(52))
#: Cards on the foundations, by the packed counts.
FOUNDATION_CARDS: Final = tuple(
    (fc & 15) + (fc >> 4 & 15) + (fc >> 8 & 15) + (fc >> 12 & 15) for fc in range(1 << 16)
)

Reach: TypeAlias = tuple[tuple[tuple[int, int, int], ...], dict[int, int]]
#: Talon states whose reachable cards are kept (about 1.5 KB each), so that memory stays bounded.
REACH_CACHE: Final = 100_000


def canonical_pointer(p: int, size: int, draw: int) -> int:
    """The pointer stored for ``p`` cards on the waste out of ``size`` talon cards.

    Draws go ``p → min(p + draw, size)`` and a recycle ``size → 0``, so from ``p`` the pointer
    runs forward to ``size``, then through ``0, draw, 2·draw, …`` back to ``size`` for ever. Every
    pointer that is a multiple of ``draw``, or ``size``, lies on that cycle and reaches all of it,
    and nothing else: they are stored as 0. Another pointer reaches the cycle but not back.
    """
    return 0 if p % draw == 0 or p == size else p


class InvalidPosition(EngineError):
    """A position no game can reach, which the solver cannot represent."""


class Rules:
    """The tables for one game's rules, base rank and reserve, and the move generator."""

    def __init__(self, game: Canfield, *, exact_pointer: bool = False) -> None:
        self.draw = game.draw
        self.classic = game.classic
        #: Keep the real talon pointer (for counting draws exactly) instead of merging.
        self.exact_pointer = exact_pointer
        base = game.base_rank
        suits = game.foundation_suits
        index = [0] * 4
        for i, suit in enumerate(suits):
            index[suit] = i
        self.shift = tuple(4 * index[SUIT_OF[c]] for c in range(52))
        self.inc = tuple(1 << s for s in self.shift)
        #: A card's place in its foundation: 0 for the base rank … 12.
        self.rel = tuple((RANK_OF[c] - base) % 13 for c in range(52))
        self.pile = tuple(2 + index[SUIT_OF[c]] for c in range(52))
        #: top[i][n]: the top card of foundation i when it holds n cards.
        self.top = tuple(
            (-1, *(suit * 13 + (base + n - 1) % 13 for n in range(1, 14))) for suit in suits
        )
        #: The two foundations of the other colour, as shifts.
        self.other_colour = tuple(
            tuple(4 * i for i, suit in enumerate(suits) if RED[suit * 13] != RED[c])
            for c in range(52)
        )
        #: How full both other-colour foundations must be for nothing to build on ``c`` again:
        #: the cards that fit on it are one rank lower, so place ``rel - 1`` — for the base rank
        #: that is place 12, by the wrap, and those are on the foundations only once complete.
        self.dead_at = tuple(r if r else 13 for r in self.rel)
        self.reserve = bytes(game.piles[0])
        self._reach: dict[tuple[bytes, int], Reach] = {}

    # -- positions -------------------------------------------------------------------------------

    def root(self, game: Canfield) -> State:
        """The position of ``game`` (which is only read). Raises :class:`InvalidPosition` for a
        position no game reaches: a foundation out of order, or cards missing or repeated."""
        piles = game.piles
        cards = [c for pile in piles for c in pile] + list(game.stock)
        if sorted(cards) != list(range(52)):
            raise InvalidPosition("the position does not hold each of the 52 cards once")
        for i, suit in enumerate(game.foundation_suits):
            expected = [card((game.base_rank + n) % 13, suit) for n in range(len(piles[2 + i]))]
            if piles[2 + i] != expected:
                raise InvalidPosition(f"foundation F{i + 1} is not in order from the base rank")
        fc = 0
        for i in range(4):
            fc |= len(piles[2 + i]) << (4 * i)
        talon = bytes(piles[1]) + bytes(reversed(game.stock))
        p = len(piles[1])
        if not self.exact_pointer:
            p = canonical_pointer(p, len(talon), self.draw)
        c = sorted(bytes(piles[6 + k]) for k in range(4))
        scalar = fc | len(piles[0]) << RESERVE_SHIFT | p << POINTER_SHIFT
        return (scalar, talon, c[0], c[1], c[2], c[3])

    def reach(self, talon: bytes, p: int) -> Reach:
        """The talon cards that draws and recycles alone bring to the top of the waste: a tuple of
        (pointer, draws and recycles needed, card), and a dict card → pointer. Cached: the talon
        changes only when one of its cards is played."""
        key = (talon, p)
        got = self._reach.get(key)
        if got is not None:
            return got
        size = len(talon)
        draw = self.draw
        out = []
        where = {}
        seen = set()
        q = p
        cost = 0
        while size and q not in seen:
            seen.add(q)
            if q:
                out.append((q, cost, talon[q - 1]))
                where[talon[q - 1]] = q
            q = min(q + draw, size) if q < size else 0
            cost += 1
        got = (tuple(out), where)
        if len(self._reach) >= REACH_CACHE:
            self._reach.clear()
        self._reach[key] = got
        return got

    # -- moves -----------------------------------------------------------------------------------

    def children(self, s: State) -> list[tuple[Move, State]]:
        """The positions one move away (a waste move with the draws before it)."""
        scalar, talon, c0, c1, c2, c3 = s
        cols = (c0, c1, c2, c3)
        fc = scalar & FOUNDATIONS_MASK
        res = (scalar >> RESERVE_SHIFT) & 63
        p = (scalar >> POINTER_SHIFT) & 63
        waiting = scalar >> WAITING_SHIFT
        exact = self.exact_pointer
        draw = 1 << 30 if exact else self.draw  # exact: no pointer but 0 is merged
        R = self.reserve
        shift = self.shift
        rel = self.rel
        inc = self.inc
        pile = self.pile
        classic = self.classic
        rtop = R[res - 1] if res else -1
        reach, where = self.reach(talon, p)
        last = -1 if exact else len(talon) - 1  # the talon's size once a card has left it
        kids: list[tuple[Move, State]] = []
        add = kids.append
        low = res << RESERVE_SHIFT | p << POINTER_SHIFT
        if not classic:
            self._take_backs(s, waiting, kids)
        if waiting:
            # Rule 5: while taken-back cards wait for their use, only take-backs (above) and,
            # when a single card waits, moves onto it.
            if waiting & (waiting - 1):
                return kids
            f = waiting.bit_length() - 1
            dests: tuple[int, ...] = tuple(k for k in range(4) if cols[k] and cols[k][-1] == f)
        else:
            dests = (0, 1, 2, 3)
            if classic:
                safe = self._safe_move(s, reach)
                if safe is not None:
                    return [safe]
            # Foundation moves: the reserve's top, the columns' last cards, the talon's cards.
            if res and (fc >> shift[rtop]) & 15 == rel[rtop]:
                nsc = fc + inc[rtop] | (res - 1) << RESERVE_SHIFT | p << POINTER_SHIFT
                add(((0, pile[rtop], 1, 0), (nsc, talon, c0, c1, c2, c3)))
            for j in range(4):
                col = cols[j]
                if col:
                    c = col[-1]
                    if (fc >> shift[c]) & 15 == rel[c]:
                        lst = [c0, c1, c2, c3]
                        rest = col[:-1]
                        if rest or not res:
                            lst[j] = rest
                            nsc = fc + inc[c] | low
                        else:  # emptied: the reserve's top fills it
                            lst[j] = R[res - 1 : res]
                            nsc = fc + inc[c] | (res - 1) << RESERVE_SHIFT | p << POINTER_SHIFT
                        lst.sort()
                        add(((6 + j, pile[c], 1, 0), (nsc, talon, lst[0], lst[1], lst[2], lst[3])))
            for q, _, c in reach:
                if (fc >> shift[c]) & 15 == rel[c]:
                    np = q - 1
                    if np % draw == 0 or np == last:
                        np = 0
                    nsc = fc + inc[c] | res << RESERVE_SHIFT | np << POINTER_SHIFT
                    add(((1, pile[c], 1, q), (nsc, talon[: q - 1] + talon[q:], c0, c1, c2, c3)))
        # Moves onto the columns' last cards (while a card waits: onto that card only).
        for k in dests:
            dest = cols[k]
            if not dest:
                continue
            for c in FIT[dest[-1]]:
                if c == rtop:
                    lst = [c0, c1, c2, c3]
                    lst[k] = dest + R[res - 1 : res]
                    lst.sort()
                    nsc = fc | (res - 1) << RESERVE_SHIFT | p << POINTER_SHIFT
                    add(((0, 6 + k, 1, 0), (nsc, talon, lst[0], lst[1], lst[2], lst[3])))
                    continue
                found = where.get(c)
                if found is not None:
                    q = found
                    np = q - 1
                    if np % draw == 0 or np == last:
                        np = 0
                    lst = [c0, c1, c2, c3]
                    lst[k] = dest + talon[q - 1 : q]
                    lst.sort()
                    nsc = fc | res << RESERVE_SHIFT | np << POINTER_SHIFT
                    nt = talon[: q - 1] + talon[q:]
                    add(((1, 6 + k, 1, q), (nsc, nt, lst[0], lst[1], lst[2], lst[3])))
                    continue
                if (fc >> shift[c]) & 15 > rel[c]:
                    continue  # on a foundation: take-backs come from _take_backs
                for j in range(4):
                    if j == k:
                        continue
                    src = cols[j]
                    i = src.find(c)
                    if i < 0:
                        continue
                    if i and classic:
                        break  # classic: a column moves only as a whole
                    lst = [c0, c1, c2, c3]
                    lst[k] = dest + src[i:]
                    if i:
                        lst[j] = src[:i]
                        nsc = fc | low
                    elif res:
                        lst[j] = R[res - 1 : res]
                        nsc = fc | (res - 1) << RESERVE_SHIFT | p << POINTER_SHIFT
                    else:
                        lst[j] = b""
                        nsc = fc | low
                    lst.sort()
                    add(
                        (
                            (6 + j, 6 + k, len(src) - i, 0),
                            (nsc, talon, lst[0], lst[1], lst[2], lst[3]),
                        )
                    )
                    break
        if not res and not waiting and not c0:
            # Into an empty column — the first one (rule 4; sorted, so it is column 0). Classic:
            # only from the waste. A whole column is never moved there (the same position).
            for q, _, _ in reach:
                np = q - 1
                if np % draw == 0 or np == last:
                    np = 0
                lst = [talon[q - 1 : q], c1, c2, c3]
                lst.sort()
                nsc = fc | np << POINTER_SHIFT
                nt = talon[: q - 1] + talon[q:]
                add(((1, 6, 1, q), (nsc, nt, lst[0], lst[1], lst[2], lst[3])))
            if not classic:
                for j in range(1, 4):
                    src = cols[j]
                    for i in range(1, len(src)):
                        lst = [src[i:], c1, c2, c3]
                        lst[j] = src[:i]
                        lst.sort()
                        add(
                            (
                                (6 + j, 6, len(src) - i, 0),
                                (fc | low, talon, lst[0], lst[1], lst[2], lst[3]),
                            )
                        )
        return kids

    def _take_backs(self, s: State, waiting: int, kids: list[tuple[Move, State]]) -> None:
        """Every take-back, each with the set of waiting cards after it (rule 5): the new card
        joins it; the card it is put on, and the card above it on its foundation (taken back
        before it), have had their use and leave it."""
        scalar, talon, c0, c1, c2, c3 = s
        cols = (c0, c1, c2, c3)
        fc = scalar & FOUNDATIONS_MASK
        low = scalar & ((1 << WAITING_SHIFT) - 1) & ~FOUNDATIONS_MASK
        top = self.top
        res = (scalar >> RESERVE_SHIFT) & 63
        for i in range(4):
            n = (fc >> (4 * i)) & 15
            if not n:
                continue
            g = top[i][n]
            after = waiting
            if n < 13:
                above = top[i][n + 1]
                if after >> above & 1:
                    after ^= 1 << above
            nfc = fc - (1 << (4 * i))
            for k in range(4):
                col = cols[k]
                if col and FITS_ON[g][col[-1]]:
                    w = (after & ~(1 << col[-1]) | 1 << g) << WAITING_SHIFT
                    lst = [c0, c1, c2, c3]
                    lst[k] = col + bytes((g,))
                    lst.sort()
                    kids.append(
                        (
                            (2 + i, 6 + k, 1, 0),
                            (nfc | low | w, talon, lst[0], lst[1], lst[2], lst[3]),
                        )
                    )
            if not res and not c0:
                w = (after | 1 << g) << WAITING_SHIFT
                lst = [bytes((g,)), c1, c2, c3]
                lst.sort()
                kids.append(
                    ((2 + i, 6, 1, 0), (nfc | low | w, talon, lst[0], lst[1], lst[2], lst[3]))
                )

    def _safe_move(
        self, s: State, reach: tuple[tuple[int, int, int], ...]
    ) -> tuple[Move, State] | None:
        """A foundation move that can be played at once, as the position's only move (classic).

        Rule 6. Card ``c`` is the last card of a column that keeps a card under it (or the reserve
        is empty), or any talon card in draw 1; its foundation wants it; and both cards that could
        be built on it are on foundations (classic has no take-backs, so they stay there). Then
        some shortest win starts by playing it: take a shortest win, leave out its move of ``c``
        to the foundation and every move of ``c`` alone, and drop ``c`` from the piles it tops.
        Nothing is ever built on ``c``, so every other move stays legal — the column under it
        keeps a card (no refill happens that would not have happened), a column holding only
        ``c`` is simply empty (which, the reserve being empty then, takes nothing away), and in
        draw 1 every talon card stays within reach — and the line is one move shorter. A card
        from the reserve is never forced (the next refill would bring a different card), nor a
        waste card in draw 3 (it would regroup later draws)."""
        scalar, talon, c0, c1, c2, c3 = s
        fc = scalar & FOUNDATIONS_MASK
        res = (scalar >> RESERVE_SHIFT) & 63
        shift = self.shift
        rel = self.rel
        other = self.other_colour
        dead = self.dead_at
        cols = (c0, c1, c2, c3)
        for j in range(4):
            col = cols[j]
            if col and (len(col) > 1 or not res):
                c = col[-1]
                if (fc >> shift[c]) & 15 == rel[c]:
                    o1, o2 = other[c]
                    th = dead[c]
                    if (fc >> o1) & 15 >= th and (fc >> o2) & 15 >= th:
                        lst = [c0, c1, c2, c3]
                        lst[j] = col[:-1]
                        lst.sort()
                        nsc = scalar + self.inc[c]
                        return (
                            (6 + j, self.pile[c], 1, 0),
                            (nsc, talon, lst[0], lst[1], lst[2], lst[3]),
                        )
        if self.draw == 1 and not self.exact_pointer:  # (exact: the line's draws matter)
            for q, _, c in reach:
                if (fc >> shift[c]) & 15 == rel[c]:
                    o1, o2 = other[c]
                    th = dead[c]
                    if (fc >> o1) & 15 >= th and (fc >> o2) & 15 >= th:
                        nsc = fc + self.inc[c] | res << RESERVE_SHIFT
                        return (
                            (1, self.pile[c], 1, q),
                            (nsc, talon[: q - 1] + talon[q:], c0, c1, c2, c3),
                        )
        return None

    def move_cost(self, s: State, move: Move) -> int:
        """Actions the move takes: 1, plus the draws and recycles before a waste move."""
        if move[0] != 1:
            return 1
        reach, _ = self.reach(s[1], (s[0] >> POINTER_SHIFT) & 63)
        for q, cost, _ in reach:
            if q == move[3]:
                return cost + 1
        raise ValueError("no such talon pointer")


def real_actions(game: Canfield, rules: Rules, moves: list[Move]) -> list[Action]:
    """The moves of a line found from ``game``'s position, as the engine's actions in real
    column numbers, with the draws and recycles before each waste move: played on a copy of
    ``game``, which checks each of them."""
    scratch = game.copy()
    piles = scratch.piles
    out: list[Action] = []

    def play(action: Action) -> None:
        scratch.push(action)
        out.append(action)

    for src, dst, n, q in moves:
        order = sorted(range(4), key=lambda k: bytes(piles[6 + k]))
        if src >= 6:
            src = 6 + order[src - 6]
        if dst >= 6:
            dst = 6 + order[dst - 6]
        if src == 1:
            while len(piles[1]) != q:  # the talon pointer: how many talon cards lie on the waste
                play(DRAW if scratch.stock else RECYCLE)
        play(Action.move(src, dst, n))
    return out
