"""The game's symmetries: decks that deal the same game under other names.

Two decks are the same game when one is the other with

- the suits renamed by a map that keeps the two colours apart: hearts and diamonds swapped,
  spades and clubs swapped, the colours exchanged (hearts and diamonds become spades and clubs),
  or any of these together — the 8 maps that keep "opposite colour" meaning the same (a column
  builds on the other colour; each foundation holds one suit, whichever it is);
- every rank moved by the same number of steps around the wrap (13 rotations): the base card
  sets the foundations' starting rank and a column builds down with a K on an A, so only the
  differences between ranks matter;
- the four column cards (deck positions 14–17) in another order: they are dealt side by side,
  and every move of one column has its image in another (only the tap's preference for the
  leftmost column tells them apart; the moves a position offers do not).

The reserve's order and the stock's order are not symmetries: they decide which card is played
when. Every image of a deal plays move for move like the deal itself, with the cards, the
foundations and the columns renamed; a winning line maps to a winning line of the same length
and score.

:func:`canonical` is one representative of all the images of a deck (the least, in card index
order), so that two decks are the same game exactly when their canonical forms are equal
(:func:`same_game`). The least image begins with the ace of spades, and exactly two of the
104 relabellings (8 suit maps × 13 rotations) send a given first card there: only those two are
built, with their columns sorted: about 10 µs a deck, where building all 104 took 190 µs
(measured).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import TypeAlias

from .cards import RANK_OF, RED, SUIT_OF, Card, card
from .deals import check_deck

Deck: TypeAlias = tuple[Card, ...]
#: A suit map: ``SuitMap[s]`` is the suit that suit ``s`` becomes (S=0, H=1, D=2, C=3).
SuitMap: TypeAlias = tuple[int, int, int, int]
#: A column order: ``ColumnOrder[i]`` is the column (0–3) where column T(i+1)'s card goes.
ColumnOrder: TypeAlias = tuple[int, int, int, int]

#: The deck positions of the four column cards, T1 to T4 (docs/deal-format.md, Step 4).
COLUMN_POSITIONS = (14, 15, 16, 17)
_FIRST_COLUMN, _PAST_COLUMNS = COLUMN_POSITIONS[0], COLUMN_POSITIONS[-1] + 1

_SUITS = (0, 1, 2, 3)
#: The 8 suit maps that keep the colours apart (each colour onto one colour), the identity first.
SUIT_MAPS: tuple[SuitMap, ...] = tuple(
    mapping  # type: ignore[misc]
    for mapping in permutations(_SUITS)
    if len({RED[card(0, s)] != RED[card(0, mapping[s])] for s in _SUITS}) == 1
)
#: The 24 orders of the four columns, the identity first.
COLUMN_ORDERS: tuple[ColumnOrder, ...] = tuple(permutations(range(4)))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Symmetry:
    """One symmetry of the game: rename the suits by ``suits``, add ``shift`` to every rank
    (mod 13), and move column T(i+1)'s card to column ``columns[i]`` + 1."""

    suits: SuitMap = (0, 1, 2, 3)
    shift: int = 0
    columns: ColumnOrder = (0, 1, 2, 3)

    def __post_init__(self) -> None:
        if self.suits not in SUIT_MAPS:
            raise ValueError(f"not a suit map that keeps the colours apart: {self.suits!r}")
        if not 0 <= self.shift < 13:
            raise ValueError(f"a rank shift is 0 to 12, not {self.shift!r}")
        if self.columns not in COLUMN_ORDERS:
            raise ValueError(f"not an order of the four columns: {self.columns!r}")

    def card(self, c: Card) -> Card:
        """The card that ``c`` becomes."""
        return card((RANK_OF[c] + self.shift) % 13, self.suits[SUIT_OF[c]])

    def apply(self, deck: Sequence[Card]) -> Deck:
        """The image of ``deck`` (52 cards in dealing order)."""
        image = [self.card(c) for c in check_deck(deck)]
        columns = image[_FIRST_COLUMN:_PAST_COLUMNS]
        for i, column in enumerate(self.columns):
            image[_FIRST_COLUMN + column] = columns[i]
        return tuple(image)


def symmetries() -> Iterator[Symmetry]:
    """Every symmetry: 8 suit maps × 13 rotations × 24 column orders, the identity first."""
    for suits in SUIT_MAPS:
        for shift in range(13):
            for columns in COLUMN_ORDERS:
                yield Symmetry(suits, shift, columns)


def _relabelling(suits: SuitMap, shift: int) -> tuple[Card, ...]:
    return tuple(card((RANK_OF[c] + shift) % 13, suits[SUIT_OF[c]]) for c in range(52))


#: For each card, the two relabellings (card tables) that turn it into the ace of spades.
_TO_ACE_OF_SPADES: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(
        _relabelling(suits, (13 - RANK_OF[first]) % 13)
        for suits in SUIT_MAPS
        if suits[SUIT_OF[first]] == 0
    )
    for first in range(52)
)


def canonical(deck: Sequence[Card]) -> Deck:
    """The least image of ``deck`` (card index order, position by position) under every
    symmetry: equal for two decks exactly when they are the same game. Raises ``InvalidCode``
    (a ``ValueError``) for anything but 52 different cards."""
    cards = check_deck(deck)
    least: Deck | None = None
    for table in _TO_ACE_OF_SPADES[cards[0]]:
        image = [table[c] for c in cards]
        image[_FIRST_COLUMN:_PAST_COLUMNS] = sorted(image[_FIRST_COLUMN:_PAST_COLUMNS])
        candidate = tuple(image)
        if least is None or candidate < least:
            least = candidate
    assert least is not None  # (every card has two)
    return least


def same_game(a: Sequence[Card], b: Sequence[Card]) -> bool:
    """Whether decks ``a`` and ``b`` deal the same game up to its symmetries."""
    return canonical(a) == canonical(b)
