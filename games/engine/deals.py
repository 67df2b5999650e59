"""The deal formats: game codes, the shuffle, and the layout they deal.

Two formats name a deal, both with the rules and draw mode (``D3``/``D1`` for the app's rules
drawing three or one card, ``H3``/``H1`` for the classic Hoyle rules):

- ``CF1-D3-AAAAACL``: the deal number, 0 to 26**7 - 1, in base 26 with A = 0 … Z = 25, most
  significant letter first. The number seeds SplitMix64; a Fisher–Yates shuffle driven by it
  permutes :data:`CANONICAL_ORDER`. Only 26**7 of the 52! orders have a CF1 code.
- ``CF2-D3-`` then 41 characters: any of the 52! orders, as its rank (:func:`rank_of_deck`, the
  Lehmer code) in 39 base58 characters, then 2 check characters that refuse a mistyped code.

Either way the deck, in dealing order, is dealt to the reserve, the base card, the four columns
and the stock (:class:`Layout`). ``docs/deal-format.md`` gives every step with test vectors, so
that any program can reproduce a deal. Nothing here may ever change: every code ever given out
must keep dealing the same cards.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from .cards import Card, parse_card
from .errors import InvalidCode
from .reasons import Reason

Variant: TypeAlias = Literal["app", "classic"]
DrawMode: TypeAlias = Literal[1, 3]
DealFormat: TypeAlias = Literal["CF1", "CF2"]

#: The deal formats.
FORMATS: tuple[DealFormat, ...] = ("CF1", "CF2")

DEAL_LETTERS = 7
DEAL_COUNT = 26**DEAL_LETTERS

#: How many orders of the 52 cards exist: the CF2 ranks are 0 to ``DECK_COUNT - 1``.
DECK_COUNT = math.factorial(52)
#: The base58 alphabet (Bitcoin's): digits and letters without 0, O, I and l.
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BASE58_VALUE: dict[str, int] = {ch: value for value, ch in enumerate(BASE58)}
#: Base58 characters of a CF2 rank: 58**39 > 52! > 58**38.
RANK_CHARS = 39
CHECK_CHARS = 2
#: The largest prime below 58**2: the check characters are a remainder modulo it.
CHECK_MODULUS = 3361

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
    """The 52 cards of CF1 deal ``number`` in dealing order."""
    if not 0 <= number < DEAL_COUNT:
        raise InvalidCode(f"deal number {number} is outside 0..{DEAL_COUNT - 1}")
    return [CANONICAL_ORDER[p] for p in shuffle_positions(number)]


def check_deck(deck: Sequence[Card]) -> tuple[Card, ...]:
    """``deck`` as a tuple if it holds each of the 52 cards once; else :class:`InvalidCode`."""
    cards = tuple(deck)
    if sorted(c for c in cards if type(c) is int) != list(range(52)):
        raise InvalidCode("a deck is the 52 cards (ints 0..51) in dealing order, each once")
    return cards


# -- CF2: the rank of an order and its text ------------------------------------------------------

_FACTORIALS = tuple(math.factorial(k) for k in range(52))


def rank_of_deck(deck: Sequence[Card]) -> int:
    """The Lehmer rank of ``deck`` (dealing order), 0 to 52! - 1: the sum over positions ``k`` of
    ``c_k * (51 - k)!``, where ``c_k`` counts the cards after position ``k`` lower than ``deck[k]``.
    Rank 0 is the deck in card index order, AS first and KC last."""
    left = (1 << 52) - 1  # a bit for each card not yet seen
    rank = 0
    for k, card in enumerate(check_deck(deck)):
        left &= ~(1 << card)
        rank = rank * (52 - k) + (left & ((1 << card) - 1)).bit_count()
    return rank


def deck_of_rank(rank: int) -> tuple[Card, ...]:
    """The deck of Lehmer rank ``rank``: the inverse of :func:`rank_of_deck`."""
    if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < DECK_COUNT:
        raise InvalidCode(f"CF2 deal number {rank!r} is outside 0..52! - 1")
    left = list(range(52))
    deck = []
    for k in range(51, -1, -1):
        c, rank = divmod(rank, _FACTORIALS[k])
        deck.append(left.pop(c))
    return tuple(deck)


def rank_to_base58(rank: int) -> str:
    """``rank`` in :data:`RANK_CHARS` base58 characters, most significant first."""
    chars = []
    for _ in range(RANK_CHARS):
        rank, digit = divmod(rank, 58)
        chars.append(BASE58[digit])
    return "".join(reversed(chars))


def base58_to_number(text: str) -> int:
    number = 0
    for ch in text:
        number = number * 58 + _BASE58_VALUE[ch]
    return number


def check_characters(mode: str, rank_text: str) -> str:
    """The two check characters of a CF2 code: the mode and the rank's characters read as one
    base58 number, modulo :data:`CHECK_MODULUS`, in two base58 characters."""
    remainder = 0
    for ch in mode + rank_text:
        remainder = (remainder * 58 + _BASE58_VALUE[ch]) % CHECK_MODULUS
    return BASE58[remainder // 58] + BASE58[remainder % 58]


@dataclass(frozen=True, slots=True)
class Layout:
    """The cards as dealt. Every pile is listed bottom first, so the last card is the top."""

    reserve: tuple[Card, ...]
    base: Card
    columns: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]

    @classmethod
    def from_deck(cls, deck: Sequence[Card]) -> Layout:
        """Deal: 13 cards to the reserve (the 13th is its top), the base card, one card to each
        of T1..T4, and the other 34 to the stock (the last card dealt is its top, the first one
        drawn). Raises :class:`InvalidCode` unless ``deck`` holds each of the 52 cards once."""
        deck = check_deck(deck)
        return cls(
            reserve=tuple(deck[0:13]),
            base=deck[13],
            columns=tuple((c,) for c in deck[14:18]),
            stock=tuple(deck[18:52]),
        )

    def deck(self) -> tuple[Card, ...]:
        """The 52 cards in dealing order: ``Layout.from_deck(layout.deck()) == layout``."""
        return (
            *self.reserve,
            self.base,
            *(c for column in self.columns for c in column),
            *self.stock,
        )


def deal(number: int) -> Layout:
    """The layout of CF1 deal ``number``."""
    return Layout.from_deck(shuffled_deck(number))


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
    """A game code: which deal, which draw mode, which rules. ``str(code)`` formats it.

    ``number`` is the format's number: the CF1 deal number (0 to 26**7 - 1), or the CF2 rank of
    the deck (0 to 52! - 1). The same layout has a CF2 code and may have a CF1 code too; they
    compare unequal, and their :meth:`deck` is equal.
    """

    number: int
    draw: DrawMode = 3
    variant: Variant = "app"
    format: DealFormat = "CF1"

    def __post_init__(self) -> None:
        if isinstance(self.number, bool) or not isinstance(self.number, int):
            raise InvalidCode(f"deal number must be an integer, not {self.number!r}")
        if self.format == "CF1":
            if not 0 <= self.number < DEAL_COUNT:
                raise InvalidCode(f"deal number {self.number} is outside 0..{DEAL_COUNT - 1}")
        elif self.format == "CF2":
            if not 0 <= self.number < DECK_COUNT:
                raise InvalidCode(f"CF2 deal number {self.number} is outside 0..52! - 1")
        else:
            raise InvalidCode(f"deal format must be 'CF1' or 'CF2', not {self.format!r}")
        if self.draw not in (1, 3):
            raise InvalidCode(f"draw mode must be 1 or 3, not {self.draw!r}")
        if self.variant not in _RULE_LETTER:
            raise InvalidCode(f"variant must be 'app' or 'classic', not {self.variant!r}")

    @classmethod
    def parse(cls, text: str) -> DealCode:
        """Parse ``CF1-D3-AAAAACL`` or a CF2 code; raises :class:`InvalidCode` naming what is
        wrong (its ``reason``). ``str(DealCode.parse(t)) == t``."""
        if not isinstance(text, str):
            raise InvalidCode(Reason("code_not_text", text=type(text).__name__))
        written = repr(text)
        parts = text.split("-")
        if len(parts) != 3:
            raise InvalidCode(Reason("not_three_parts", text=written))
        fmt, mode, letters = parts
        if fmt not in FORMATS:
            raise InvalidCode(Reason("unknown_format", text=written, part=repr(fmt)))
        if len(mode) != 2 or mode[0] not in _VARIANT_OF or mode[1] not in "13":
            raise InvalidCode(Reason("bad_mode", text=written, part=repr(mode)))
        draw: DrawMode = 3 if mode[1] == "3" else 1
        variant = _VARIANT_OF[mode[0]]
        if fmt == "CF1":
            if len(letters) != DEAL_LETTERS or not all("A" <= ch <= "Z" for ch in letters):
                raise InvalidCode(Reason("bad_letters", text=written, count=DEAL_LETTERS))
            return cls(letters_to_number(letters), draw, variant)
        if len(letters) != RANK_CHARS + CHECK_CHARS or not all(
            ch in _BASE58_VALUE for ch in letters
        ):
            raise InvalidCode(
                Reason("bad_cf2_characters", text=written, count=RANK_CHARS + CHECK_CHARS)
            )
        rank_text, check = letters[:RANK_CHARS], letters[RANK_CHARS:]
        if check != check_characters(mode, rank_text):
            raise InvalidCode(Reason("check_mismatch", text=written))
        rank = base58_to_number(rank_text)
        if rank >= DECK_COUNT:
            raise InvalidCode(Reason("past_last_deck", text=written))
        return cls(rank, draw, variant, "CF2")

    @classmethod
    def random(cls, draw: DrawMode = 3, variant: Variant = "app") -> DealCode:
        """A random CF1 code (a practice deal: short, and fine to guess)."""
        return cls(secrets.randbelow(DEAL_COUNT), draw, variant)

    @classmethod
    def from_deck(
        cls, deck: Sequence[Card], draw: DrawMode = 3, variant: Variant = "app"
    ) -> DealCode:
        """The CF2 code that deals ``deck`` (52 cards in dealing order): ``code.deck() == deck``."""
        return cls(rank_of_deck(deck), draw, variant, "CF2")

    @property
    def mode(self) -> str:
        """``D3``, ``D1``, ``H3`` or ``H1``."""
        return f"{_RULE_LETTER[self.variant]}{self.draw}"

    @property
    def letters(self) -> str:
        """The code's last part: the 7 letters of a CF1 code, or the 41 characters of a CF2 code
        (the rank, then the check characters)."""
        if self.format == "CF1":
            return number_to_letters(self.number)
        rank_text = rank_to_base58(self.number)
        return rank_text + check_characters(self.mode, rank_text)

    def deck(self) -> tuple[Card, ...]:
        """The 52 cards in dealing order."""
        if self.format == "CF1":
            return tuple(shuffled_deck(self.number))
        return deck_of_rank(self.number)

    def layout(self) -> Layout:
        """The cards as dealt. Not cached: it costs about 25 µs for a CF1 code and 12 µs for a
        CF2 code (measured), once per :class:`Canfield` built."""
        return Layout.from_deck(self.deck())

    def __str__(self) -> str:
        return f"{self.format}-{self.mode}-{self.letters}"

    def __repr__(self) -> str:
        return f"DealCode.parse({str(self)!r})"
