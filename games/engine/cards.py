"""Cards as small integers, and their text form.

A card is an ``int`` from 0 to 51: ``suit * 13 + rank`` with ranks A=0 … K=12 and suits
S=0, H=1, D=2, C=3. Small ints keep the move generator's tables flat and fast; the text form
(``"7H"``, ``"TC"``, ``"AS"``) is what crosses every boundary.
"""

from __future__ import annotations

from typing import TypeAlias

from .errors import NotationError

Card: TypeAlias = int
Suit: TypeAlias = int
Rank: TypeAlias = int

RANKS = "A23456789TJQK"
SUITS = "SHDC"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES = (
    "ace", "two", "three", "four", "five", "six", "seven",
    "eight", "nine", "ten", "jack", "queen", "king",
)  # fmt: skip

#: Every card, in index order.
ALL_CARDS: tuple[Card, ...] = tuple(range(52))

RANK_OF: tuple[Rank, ...] = tuple(c % 13 for c in ALL_CARDS)
SUIT_OF: tuple[Suit, ...] = tuple(c // 13 for c in ALL_CARDS)
#: True for hearts and diamonds.
RED: tuple[bool, ...] = tuple(SUIT_OF[c] in (1, 2) for c in ALL_CARDS)

#: ``FITS_ON[c][t]``: card ``c`` may be built on card ``t`` in a column — opposite colour and
#: exactly one rank lower, with the wrap (a K goes on an A).
FITS_ON: tuple[tuple[bool, ...], ...] = tuple(
    tuple(RED[c] != RED[t] and (RANK_OF[c] + 1) % 13 == RANK_OF[t] for t in ALL_CARDS)
    for c in ALL_CARDS
)

CARD_TEXT: tuple[str, ...] = tuple(RANKS[RANK_OF[c]] + SUITS[SUIT_OF[c]] for c in ALL_CARDS)
_CARD_BY_TEXT: dict[str, Card] = {text: c for c, text in enumerate(CARD_TEXT)}


def card(rank: Rank, suit: Suit) -> Card:
    return suit * 13 + rank


def card_str(c: Card) -> str:
    """``card_str(parse_card("7H")) == "7H"``."""
    return CARD_TEXT[c]


def parse_card(text: str) -> Card:
    """Parse ``"7H"``; raises :class:`NotationError` for anything else."""
    try:
        return _CARD_BY_TEXT[text]
    except (KeyError, TypeError):
        raise NotationError(
            f"not a card: {text!r} (rank A23456789TJQK then suit SHDC, e.g. 7H)"
        ) from None


def card_name(c: Card) -> str:
    """``"seven of hearts"`` — for messages and accessible labels."""
    return f"{RANK_NAMES[RANK_OF[c]]} of {SUIT_NAMES[SUIT_OF[c]]}"
