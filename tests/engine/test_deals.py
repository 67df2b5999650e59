"""The CF1 deal format (docs/deal-format.md): codes, letters, SplitMix64, the shuffle, the deal.

The deal of a number must never change; the literal deals below pin it, and an independent
implementation written from docs/deal-format.md must agree with the engine.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from games.engine import CANONICAL_ORDER, Canfield, DealCode, InvalidCode, card_str, deal
from games.engine.deals import (
    DEAL_COUNT,
    letters_to_number,
    number_to_letters,
    shuffled_deck,
    splitmix64,
)

ROOT = Path(__file__).resolve().parents[2]
MASK = (1 << 64) - 1


class Dealt(NamedTuple):
    """A deal as text, every pile bottom first (the last card is the top)."""

    reserve: list[str]
    base: str
    columns: list[str]
    stock: list[str]


# fmt: off
PINNED = {
    0: Dealt(
        reserve=[
            "3D", "7D", "6C", "AC", "9S", "5S", "6H", "QC", "3H", "KS", "7C", "9H", "8H",
        ],
        base="5H",
        columns=["8D", "8C", "TD", "7H"],
        stock=[
            "4S", "TC", "QH", "QD", "7S", "3S", "4C", "4H", "KD", "2H", "8S", "5D", "4D",
            "TS", "9D", "AH", "JS", "JD", "6S", "2C", "2S", "KH", "KC", "JH", "5C", "AS",
            "3C", "2D", "QS", "AD", "JC", "TH", "6D", "9C",
        ],
    ),
    63: Dealt(
        reserve=[
            "9D", "8D", "TS", "5S", "TH", "TC", "8S", "2H", "9S", "JS", "QS", "8H", "QC",
        ],
        base="7H",
        columns=["6C", "KH", "QH", "AS"],
        stock=[
            "6D", "2S", "KS", "7D", "3C", "8C", "9C", "3H", "5D", "7C", "KC", "AC", "4H",
            "5H", "AD", "3D", "AH", "6S", "KD", "JD", "4C", "3S", "TD", "2D", "7S", "2C",
            "4S", "JH", "JC", "9H", "5C", "4D", "6H", "QD",
        ],
    ),
    1234567: Dealt(
        reserve=[
            "JH", "9D", "5H", "QH", "7D", "KH", "7C", "JC", "2H", "6S", "6H", "QD", "2C",
        ],
        base="3D",
        columns=["2D", "7S", "9H", "TC"],
        stock=[
            "3C", "5C", "8S", "KS", "9C", "3H", "4C", "2S", "8C", "JD", "4S", "4D", "QS",
            "7H", "AS", "5D", "AC", "KD", "TD", "8H", "KC", "JS", "QC", "9S", "8D", "6D",
            "3S", "AD", "6C", "TH", "5S", "TS", "AH", "4H",
        ],
    ),
    8031810175: Dealt(
        reserve=[
            "6H", "AD", "7D", "AH", "7S", "AC", "KS", "JH", "6C", "QC", "QH", "3C", "6S",
        ],
        base="AS",
        columns=["4H", "9C", "5C", "JC"],
        stock=[
            "JS", "4D", "9S", "3D", "KD", "5H", "JD", "QD", "7C", "KC", "8C", "2D", "TD",
            "8H", "9D", "2C", "7H", "6D", "8S", "KH", "TC", "TH", "TS", "3H", "2S", "8D",
            "2H", "9H", "5D", "3S", "QS", "4C", "5S", "4S",
        ],
    ),
}
# fmt: on


def as_text(number: int) -> Dealt:
    layout = deal(number)
    return Dealt(
        reserve=[card_str(c) for c in layout.reserve],
        base=card_str(layout.base),
        columns=[card_str(column[0]) for column in layout.columns],
        stock=[card_str(c) for c in layout.stock],
    )


# -- an independent implementation, written from docs/deal-format.md -----------------------------

# fmt: off
DOC_CANONICAL = [
    "KS", "7H", "6S", "2D", "TC", "QD", "9H", "5H", "6C", "QC", "7C", "4D", "6D",
    "2H", "9S", "3H", "AH", "4C", "JC", "JH", "KD", "JD", "3S", "TS", "5S", "2C",
    "QH", "JS", "4S", "TH", "TD", "AS", "QS", "4H", "8H", "9C", "7D", "8S", "8C",
    "2S", "AC", "9D", "7S", "AD", "6H", "KH", "3D", "KC", "5D", "5C", "8D", "3C",
]
# fmt: on


class SplitMix64:
    """Steele, Lea and Flood (2014), as in Vigna's splitmix64.c."""

    def __init__(self, seed: int) -> None:
        self.x = seed

    def next(self) -> int:
        self.x = (self.x + 0x9E3779B97F4A7C15) % 2**64
        z = self.x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
        return z ^ (z >> 31)


def doc_deal(number: int) -> Dealt:
    rng = SplitMix64(number)
    deck = list(DOC_CANONICAL)
    for i in range(51, 0, -1):
        j = rng.next() % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return Dealt(reserve=deck[:13], base=deck[13], columns=deck[14:18], stock=deck[18:])


def doc_letters(number: int) -> str:
    letters = ""
    for _ in range(7):
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[number % 26] + letters
        number //= 26
    return letters


# -- SplitMix64 ----------------------------------------------------------------------------------


def test_it_seeds_splitmix64_as_published() -> None:
    engine = splitmix64(0)
    assert [next(engine) for _ in range(4)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
        0xF88BB8A8724C81EC,
    ]
    engine = splitmix64(63)
    assert [next(engine) for _ in range(4)] == [
        0x8C741196ACC47E35,
        0x4C7924E17855434F,
        0x7AE03133256BDE4F,
        0x79A9BA48877E7FB0,
    ]


@pytest.mark.parametrize("seed", [0, 1, 63, 1234567, DEAL_COUNT - 1, MASK])
def test_it_agrees_with_an_independent_splitmix64(seed: int) -> None:
    engine, reference = splitmix64(seed), SplitMix64(seed)
    assert [next(engine) for _ in range(100)] == [reference.next() for _ in range(100)]


# -- the shuffle and the deal --------------------------------------------------------------------


def test_it_lists_the_canonical_order_as_documented() -> None:
    assert [card_str(c) for c in CANONICAL_ORDER] == DOC_CANONICAL
    assert sorted(CANONICAL_ORDER) == list(range(52))


@pytest.mark.parametrize("number", sorted(PINNED))
def test_it_deals_the_pinned_cards(number: int) -> None:
    assert as_text(number) == PINNED[number]


@pytest.mark.parametrize(
    "number", [*range(200), 1234567, 26**6, 26**7 // 2, DEAL_COUNT - 2, DEAL_COUNT - 1]
)
def test_it_deals_as_the_documented_algorithm_does(number: int) -> None:
    assert as_text(number) == doc_deal(number)


def test_it_deals_every_card_once() -> None:
    for number in (0, 63, DEAL_COUNT - 1):
        assert sorted(shuffled_deck(number)) == list(range(52))


def test_it_lays_the_deal_out_in_the_game() -> None:
    pinned = PINNED[1234567]
    view = Canfield("CF1-D3-AACSGHJ").full_view()
    assert view["reserve"] == pinned.reserve[::-1]  # top first
    assert view["foundations"] == [[pinned.base], [], [], []]
    assert view["columns"] == [[card] for card in pinned.columns]
    assert view["stock"] == pinned.stock[::-1]  # next drawn first: the last card dealt


def test_it_deals_the_same_cards_for_every_draw_mode_and_variant() -> None:
    views = [
        dict(Canfield(DealCode(99, d, v)).full_view()) for d in (1, 3) for v in ("app", "classic")
    ]
    piles = ("reserve", "foundations", "columns", "stock", "waste", "foundation_suits")
    assert all({k: view[k] for k in piles} == {k: views[0][k] for k in piles} for view in views)


def test_it_refuses_a_number_outside_the_range_when_shuffling() -> None:
    with pytest.raises(InvalidCode) as caught:
        shuffled_deck(DEAL_COUNT)
    assert str(caught.value) == "deal number 8031810176 is outside 0..8031810175"


# -- letters and numbers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("letters", "number"),
    [
        ("AAAAAAA", 0),
        ("AAAAAAB", 1),
        ("AAAAAAZ", 25),
        ("AAAAABA", 26),
        ("AAAAACL", 63),
        ("AACSGHJ", 1234567),
        ("BAAAAAA", 26**6),
        ("ZZZZZZZ", 26**7 - 1),
    ],
)
def test_it_writes_the_deal_number_in_base_26(letters: str, number: int) -> None:
    assert number_to_letters(number) == letters
    assert letters_to_number(letters) == number
    assert doc_letters(number) == letters
    assert DealCode(number).letters == letters
    assert DealCode.parse(f"CF1-D3-{letters}").number == number


def test_it_counts_26_to_the_7_deals() -> None:
    assert DEAL_COUNT == 26**7 == 8031810176


@pytest.mark.parametrize("number", [-1, DEAL_COUNT])
def test_it_refuses_to_write_a_number_outside_the_range(number: int) -> None:
    with pytest.raises(InvalidCode) as caught:
        number_to_letters(number)
    assert str(caught.value) == f"deal number {number} is outside 0..8031810175"


# -- codes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "number", "draw", "variant"),
    [
        ("CF1-D3-AAAAACL", 63, 3, "app"),
        ("CF1-D1-AAAAACL", 63, 1, "app"),
        ("CF1-H3-AAAAACL", 63, 3, "classic"),
        ("CF1-H1-ZZZZZZZ", DEAL_COUNT - 1, 1, "classic"),
        ("CF1-D3-AAAAAAA", 0, 3, "app"),
    ],
)
def test_it_parses_and_formats_a_code(text: str, number: int, draw: int, variant: str) -> None:
    code = DealCode.parse(text)
    assert (code.number, code.draw, code.variant) == (number, draw, variant)
    assert str(code) == text
    assert code == DealCode(number, draw, variant)  # type: ignore[arg-type]
    assert DealCode.parse(str(code)) == code
    assert repr(code) == f"DealCode.parse({text!r})"
    assert eval(repr(code)) == code


def test_it_defaults_to_draw_three_and_the_app_rules() -> None:
    assert str(DealCode(63)) == "CF1-D3-AAAAACL"


def test_it_makes_random_codes_in_range() -> None:
    codes = [DealCode.random(draw=1, variant="classic") for _ in range(20)]
    assert all(0 <= c.number < DEAL_COUNT and (c.draw, c.variant) == (1, "classic") for c in codes)
    assert len({c.number for c in codes}) > 1


THREE_PARTS = "is not a game code: expected three parts like CF1-D3-AAAAACL"
MODE = "must be D3 or D1 (app rules) or H3 or H1 (classic rules)"
LETTERS = "the deal number must be 7 capital letters A-Z"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", f"'' {THREE_PARTS}"),
        ("CF1-D3", f"'CF1-D3' {THREE_PARTS}"),
        ("CF1-D3-AAAAACL-X", f"'CF1-D3-AAAAACL-X' {THREE_PARTS}"),
        ("CF1_D3_AAAAACL", f"'CF1_D3_AAAAACL' {THREE_PARTS}"),
        ("CF3-D3-AAAAACL", "'CF3-D3-AAAAACL': unknown deal format 'CF3' (CF1 or CF2)"),
        ("cf1-d3-aaaaacl", "'cf1-d3-aaaaacl': unknown deal format 'cf1' (CF1 or CF2)"),
        (" CF1-D3-AAAAACL", "' CF1-D3-AAAAACL': unknown deal format ' CF1' (CF1 or CF2)"),
        ("CF1-d3-AAAAACL", f"'CF1-d3-AAAAACL': mode 'd3' {MODE}"),
        ("CF1-D2-AAAAACL", f"'CF1-D2-AAAAACL': mode 'D2' {MODE}"),
        ("CF1-X3-AAAAACL", f"'CF1-X3-AAAAACL': mode 'X3' {MODE}"),
        ("CF1-D33-AAAAACL", f"'CF1-D33-AAAAACL': mode 'D33' {MODE}"),
        ("CF1-D-AAAAACL", f"'CF1-D-AAAAACL': mode 'D' {MODE}"),
        ("CF1-D3-aaaaacl", f"'CF1-D3-aaaaacl': {LETTERS}"),
        ("CF1-D3-AAAAAC", f"'CF1-D3-AAAAAC': {LETTERS}"),
        ("CF1-D3-AAAAACLA", f"'CF1-D3-AAAAACLA': {LETTERS}"),
        ("CF1-D3-AAAA1CL", f"'CF1-D3-AAAA1CL': {LETTERS}"),
        ("CF1-D3-ÄAAAACL", f"'CF1-D3-ÄAAAACL': {LETTERS}"),
        ("CF1-D3-AAAAAC ", f"'CF1-D3-AAAAAC ': {LETTERS}"),
    ],
)
def test_it_explains_a_malformed_code(text: str, message: str) -> None:
    with pytest.raises(InvalidCode) as caught:
        DealCode.parse(text)
    assert str(caught.value) == message
    with pytest.raises(InvalidCode):
        Canfield(text)


@pytest.mark.parametrize(
    ("value", "kind"), [(63, "int"), (None, "NoneType"), (b"CF1-D3-AAAAACL", "bytes")]
)
def test_it_refuses_a_code_that_is_not_text(value: object, kind: str) -> None:
    with pytest.raises(InvalidCode) as caught:
        DealCode.parse(value)  # type: ignore[arg-type]
    assert str(caught.value) == f"a game code is text, not {kind}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1,), "deal number -1 is outside 0..8031810175"),
        ((DEAL_COUNT,), "deal number 8031810176 is outside 0..8031810175"),
        ((1.0,), "deal number must be an integer, not 1.0"),
        ((True,), "deal number must be an integer, not True"),
        (("5",), "deal number must be an integer, not '5'"),
        ((5, 2), "draw mode must be 1 or 3, not 2"),
        ((5, 3, "hoyle"), "variant must be 'app' or 'classic', not 'hoyle'"),
    ],
)
def test_it_refuses_a_code_built_from_bad_values(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(InvalidCode) as caught:
        DealCode(*args)  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_it_raises_value_errors_for_bad_codes() -> None:
    assert issubclass(InvalidCode, ValueError)


# -- the engine stands alone ---------------------------------------------------------------------


def test_it_imports_the_engine_without_django() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    script = "import games.engine, sys; assert 'django' not in sys.modules, 'django imported'"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert (result.returncode, result.stderr) == (0, "")


# -- the document stays true ---------------------------------------------------------------------


def test_it_matches_the_vectors_in_docs_deal_format() -> None:
    doc = (ROOT / "docs" / "deal-format.md").read_text()
    canonical = doc.split("## Step 2")[1].split("```")[1].splitlines()[1:5]
    assert [card for row in canonical for card in row.split()[:13]] == DOC_CANONICAL
    for number, pinned in PINNED.items():
        block = doc.split(f"### Deal {number} — `{number_to_letters(number)}`")[1].split("```")[1]
        rows = [line.split(":", 1)[-1].split() for line in block.strip().splitlines()]
        reserve, base, columns, stock, more_stock = rows
        assert Dealt(reserve, base[0], columns, stock + more_stock) == pinned
    engine = splitmix64(0)
    assert f"0x{next(engine):016X}" in doc.split("### SplitMix64")[1]
