"""The CF1 deal format: game codes, the shuffle, and the layout it deals.

A code reads ``CF1-D3-AAAAACL``: format version ``CF1``; rules and draw mode (``D3``/``D1`` for the
app's rules drawing three or one card, ``H3``/``H1`` for the classic Hoyle rules); and the deal
number, 0 to 26**7 - 1, in base 26 with A = 0 … Z = 25, most significant letter first.

The deal depends only on the number. The number seeds SplitMix64; a Fisher–Yates shuffle driven by
it permutes :data:`CANONICAL_ORDER`; the shuffled deck is dealt to the reserve, the base card, the
four columns and the stock. ``docs/deal-format.md`` gives the algorithm step by step with test
vectors, so that any program can reproduce a deal. Nothing here may ever change: every code ever
given out must keep dealing the same cards.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, TypeAlias

from .cards import Card, parse_card
from .errors import InvalidCode

Variant: TypeAlias = Literal["app", "classic"]
DrawMode: TypeAlias = Literal[1, 3]

FORMAT = "CF1"
DEAL_LETTERS = 7
DEAL_COUNT = 26**DEAL_LETTERS

_MASK64 = (1 << 64) - 1

#: The deck before shuffling — a constant of the CF1 format. It was fixed once so that deal
#: ``AAAAACL`` (number 63) deals the position of the rules' worked example and its remaining cards
#: form a winnable game; any other order would have served every other deal equally well.
CANONICAL_TEXT = (
    "KS 7H 6S 2D TC QD 9H 5H 6C QC 7C 4D 6D "
    "2H 9S 3H AH 4C JC JH KD JD 3S TS 5S 2C "
    "QH JS 4S TH TD AS QS 4H 8H 9C 7D 8S 8C "
    "2S AC 9D 7S AD 6H KH 3D KC 5D 5C 8D 3C"
)
CANONICAL_ORDER: tuple[Card, ...] = tuple(parse_card(t) for t in CANONICAL_TEXT.split())

RESERVE_SIZE = 13
STOCK_SIZE = 34


def splitmix64(seed: int) -> Iterator[int]:
    """SplitMix64 (Steele, Lea and Flood, 2014): 64-bit outputs from a 64-bit state."""
    state = seed & _MASK64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        yield z ^ (z >> 31)


def shuffle_positions(number: int) -> list[int]:
    """Positions into :data:`CANONICAL_ORDER`, in dealing order, for deal ``number``.

    Fisher–Yates from the top: for ``i`` = 51 down to 1, ``j = next() % (i + 1)``,
    then swap positions ``i`` and ``j``.
    """
    deck = list(range(52))
    rng = splitmix64(number)
    for i in range(51, 0, -1):
        j = next(rng) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def shuffled_deck(number: int) -> list[Card]:
    """The 52 cards of deal ``number`` in dealing order."""
    if not 0 <= number < DEAL_COUNT:
        raise InvalidCode(f"deal number {number} is outside 0..{DEAL_COUNT - 1}")
    return [CANONICAL_ORDER[p] for p in shuffle_positions(number)]


@dataclass(frozen=True, slots=True)
class Layout:
    """The cards as dealt. Every pile is listed bottom first, so the last card is the top."""

    reserve: tuple[Card, ...]
    base: Card
    columns: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]


def deal(number: int) -> Layout:
    """Deal: 13 cards to the reserve (the 13th is its top), the base card, one card to each of
    T1..T4, and the other 34 to the stock (the last card dealt is its top, the first one drawn)."""
    deck = shuffled_deck(number)
    return Layout(
        reserve=tuple(deck[0:13]),
        base=deck[13],
        columns=tuple((c,) for c in deck[14:18]),
        stock=tuple(deck[18:52]),
    )


def number_to_letters(number: int) -> str:
    if not 0 <= number < DEAL_COUNT:
        raise InvalidCode(f"deal number {number} is outside 0..{DEAL_COUNT - 1}")
    letters = []
    for _ in range(DEAL_LETTERS):
        number, digit = divmod(number, 26)
        letters.append(chr(ord("A") + digit))
    return "".join(reversed(letters))


def letters_to_number(letters: str) -> int:
    number = 0
    for ch in letters:
        number = number * 26 + (ord(ch) - ord("A"))
    return number


_RULE_LETTER: dict[Variant, str] = {"app": "D", "classic": "H"}
_VARIANT_OF: dict[str, Variant] = {"D": "app", "H": "classic"}


@dataclass(frozen=True, slots=True)
class DealCode:
    """A game code: which deal, which draw mode, which rules. ``str(code)`` formats it."""

    number: int
    draw: DrawMode = 3
    variant: Variant = "app"

    def __post_init__(self) -> None:
        if isinstance(self.number, bool) or not isinstance(self.number, int):
            raise InvalidCode(f"deal number must be an integer, not {self.number!r}")
        if not 0 <= self.number < DEAL_COUNT:
            raise InvalidCode(f"deal number {self.number} is outside 0..{DEAL_COUNT - 1}")
        if self.draw not in (1, 3):
            raise InvalidCode(f"draw mode must be 1 or 3, not {self.draw!r}")
        if self.variant not in _RULE_LETTER:
            raise InvalidCode(f"variant must be 'app' or 'classic', not {self.variant!r}")

    @classmethod
    def parse(cls, text: str) -> DealCode:
        """Parse ``CF1-D3-AAAAACL``; raises :class:`InvalidCode` naming what is wrong."""
        if not isinstance(text, str):
            raise InvalidCode(f"a game code is text, not {type(text).__name__}")
        parts = text.split("-")
        if len(parts) != 3:
            raise InvalidCode(
                f"{text!r} is not a game code: expected three parts like CF1-D3-AAAAACL"
            )
        fmt, mode, letters = parts
        if fmt != FORMAT:
            raise InvalidCode(f"{text!r}: unknown deal format {fmt!r} (only CF1 exists)")
        if len(mode) != 2 or mode[0] not in _VARIANT_OF or mode[1] not in "13":
            raise InvalidCode(
                f"{text!r}: mode {mode!r} must be D3 or D1 (app rules) or H3 or H1 (classic rules)"
            )
        if len(letters) != DEAL_LETTERS or not all("A" <= ch <= "Z" for ch in letters):
            raise InvalidCode(
                f"{text!r}: the deal number must be {DEAL_LETTERS} capital letters A-Z"
            )
        draw: DrawMode = 3 if mode[1] == "3" else 1
        return cls(letters_to_number(letters), draw, _VARIANT_OF[mode[0]])

    @classmethod
    def random(cls, draw: DrawMode = 3, variant: Variant = "app") -> DealCode:
        return cls(secrets.randbelow(DEAL_COUNT), draw, variant)

    @property
    def letters(self) -> str:
        return number_to_letters(self.number)

    def __str__(self) -> str:
        return f"{FORMAT}-{_RULE_LETTER[self.variant]}{self.draw}-{self.letters}"

    def __repr__(self) -> str:
        return f"DealCode.parse({str(self)!r})"
