"""docs/deal-format.md for the CF2 and keyed-deal tests: its text, readers for its test-vector
blocks, and a second implementation of CF2 codes written from it."""

from __future__ import annotations

import math
from pathlib import Path

from games.engine import Layout, card_str, parse_card

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "deal-format.md").read_text()


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(t) for t in text.split())


def text(deck: tuple[int, ...] | list[int]) -> str:
    return " ".join(card_str(c) for c in deck)


# -- the test-vector blocks -----------------------------------------------------------------------


def doc_block(heading: str, which: int = 0) -> str:
    """The ``which``-th fenced block after ``heading``."""
    return DOC.split(heading + "\n")[1].split("```")[2 * which + 1]


def doc_field(block: str, name: str) -> str:
    """The value of ``name:`` in a block, with its indented continuation lines."""
    lines = block.strip().splitlines()
    for k, line in enumerate(lines):
        if line.startswith(name + ":"):
            value = line.split(":", 1)[1].split()
            for more in lines[k + 1 :]:
                if not more.startswith(" "):
                    break
                value += more.split()
            return " ".join(value)
    raise AssertionError(f"no {name} in the block")


def doc_layout(block: str) -> Layout:
    piles = ("reserve (bottom → top)", "base card (F1)", "T1 T2 T3 T4", "stock (bottom → top)")
    return Layout.from_deck(cards(" ".join(doc_field(block, pile) for pile in piles)))


# -- CF2, written from the document ---------------------------------------------------------------

DOC_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def doc_rank(deck: list[int]) -> int:
    rank = 0
    for k in range(52):
        c = sum(1 for later in deck[k + 1 :] if later < deck[k])
        rank += c * math.factorial(51 - k)
    return rank


def doc_unrank(rank: int) -> list[int]:
    left, deck = list(range(52)), []
    for k in range(52):
        c, rank = divmod(rank, math.factorial(51 - k))
        deck.append(left.pop(c))
    return deck


def doc_code(deck: list[int], mode: str = "D3") -> str:
    rank, body = doc_rank(deck), ""
    for _ in range(39):
        rank, digit = divmod(rank, 58)
        body = DOC_ALPHABET[digit] + body
    x = 0
    for ch in mode + body:
        x = x * 58 + DOC_ALPHABET.index(ch)
    r = x % 3361
    return f"CF2-{mode}-{body}{DOC_ALPHABET[r // 58]}{DOC_ALPHABET[r % 58]}"
