"""games.engine.symmetry: the game's symmetries and the canonical form of a deck.

The symmetries are checked against the rules (RULES.md): a column builds on the other colour,
one rank higher with the wrap, so the suit maps and the rank rotations keep every "fits on"; and
every image of a deal plays move for move like the deal — the corpus's games, mapped through a
symmetry, win their images with the same score, the same legal moves in every position."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import Action, Canfield, DealCode, GameRecord, InvalidCode, card_str, parse_card
from games.engine.cards import FITS_ON, SUITS
from games.engine.symmetry import (
    COLUMN_ORDERS,
    SUIT_MAPS,
    Symmetry,
    canonical,
    same_game,
    symmetries,
)

from .deal_doc import doc_block, doc_field, doc_layout
from .helpers import CORPUS, WORKED_CODE

WORKED = DealCode.parse(WORKED_CODE).deck()

decks = st.permutations(range(52)).map(tuple)
any_symmetry = st.builds(
    Symmetry,
    st.sampled_from(SUIT_MAPS),
    st.integers(0, 12),
    st.sampled_from(COLUMN_ORDERS),
)


def least_image(deck: Sequence[int]) -> tuple[int, ...]:
    """The definition, by brute force: the least of all 2,496 images."""
    return min(symmetry.apply(deck) for symmetry in symmetries())


def swapped(deck: Sequence[int], i: int, j: int) -> tuple[int, ...]:
    cards = list(deck)
    cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def test_it_has_the_eight_suit_maps_that_keep_the_colours_apart() -> None:
    named = {"".join(SUITS[s] for s in suits) for suits in SUIT_MAPS}
    # S H D C becomes: itself, H<->D, S<->C, both, and the colours exchanged four ways.
    assert named == {"SHDC", "SDHC", "CHDS", "CDHS", "HSCD", "HCSD", "DSCH", "DCSH"}
    assert SUIT_MAPS[0] == (0, 1, 2, 3) and len(COLUMN_ORDERS) == 24
    assert sum(1 for _ in symmetries()) == 8 * 13 * 24


@pytest.mark.parametrize("suits", SUIT_MAPS)
def test_every_suit_map_and_rotation_keeps_what_fits_on_what(suits) -> None:
    for shift in range(13):
        symmetry = Symmetry(suits, shift)
        for c in range(52):
            for t in range(52):
                assert FITS_ON[symmetry.card(c)][symmetry.card(t)] == FITS_ON[c][t]


@pytest.mark.parametrize(
    "bad",
    [
        {"suits": (1, 0, 2, 3)},  # spades and hearts: the colours mixed
        {"shift": 13},
        {"columns": (0, 0, 1, 2)},
    ],
)
def test_it_refuses_what_is_no_symmetry(bad) -> None:
    with pytest.raises(ValueError):
        Symmetry(**bad)


def test_it_maps_the_worked_example_as_written() -> None:
    # Hearts and diamonds swapped, two ranks up, T1 and T4 exchanged.
    image = Symmetry((0, 2, 1, 3), 2, (3, 1, 2, 0)).apply(WORKED)
    layout = DealCode.from_deck(image).layout()
    assert card_str(layout.reserve[-1]) == "AC"  # QC
    assert card_str(layout.base) == "9D"  # 7H
    assert [card_str(column[0]) for column in layout.columns] == ["3S", "2D", "AD", "8C"]


def test_every_image_of_a_deck_has_the_same_canonical_form() -> None:
    form = canonical(WORKED)
    images = {symmetry.apply(WORKED) for symmetry in symmetries()}
    assert len(images) == 8 * 13 * 24  # no two symmetries give the same deck
    assert {canonical(image) for image in images} == {form}
    assert form == least_image(WORKED) and form in images
    assert all(same_game(WORKED, image) for image in images)


def test_it_gives_the_documented_canonical_form_of_deal_63() -> None:
    """docs/deal-format.md, "Decks that are the same game"."""
    block = doc_block("# Decks that are the same game")
    form = doc_layout(block).deck()
    assert canonical(WORKED) == form == least_image(WORKED)
    assert str(DealCode.from_deck(form)) == doc_field(block, "code")
    # diamonds to spades, spades to hearts, clubs to diamonds, hearts to clubs, ranks up 5, and
    # the columns in index order
    assert any(Symmetry((1, 3, 0, 2), 5, o).apply(WORKED) == form for o in COLUMN_ORDERS)


@pytest.mark.parametrize("seed", range(5))
def test_the_canonical_form_is_the_least_image(seed) -> None:
    deck = tuple(random.Random(seed).sample(range(52), 52))
    assert canonical(deck) == least_image(deck)
    assert canonical(deck)[0] == parse_card("AS")


@pytest.mark.parametrize(
    ("i", "j", "what"),
    [
        (50, 51, "the stock's top two cards"),
        (18, 40, "two stock cards"),
        (11, 12, "the reserve's top two cards"),
        (0, 7, "two reserve cards"),
        (12, 14, "the reserve's top and T1"),
        (13, 30, "the base card and a stock card"),
        (17, 18, "T4 and the stock's bottom card"),
    ],
)
def test_decks_that_play_otherwise_differ(i, j, what) -> None:
    other = swapped(WORKED, i, j)
    assert not same_game(WORKED, other), what
    assert canonical(other) != canonical(WORKED)


def test_columns_in_another_order_are_the_same_game() -> None:
    assert same_game(WORKED, swapped(WORKED, 14, 17))
    assert same_game(WORKED, swapped(swapped(WORKED, 15, 16), 14, 15))


def test_it_refuses_what_is_no_deck() -> None:
    with pytest.raises(InvalidCode):
        canonical(WORKED[:51])
    with pytest.raises(InvalidCode):
        canonical((0,) * 52)


@settings(max_examples=200, deadline=None)
@given(decks, any_symmetry)
def test_the_canonical_form_is_an_invariant(deck, symmetry) -> None:
    image = symmetry.apply(deck)
    assert canonical(image) == canonical(deck)
    assert canonical(deck) <= image
    assert same_game(deck, image)


@settings(max_examples=200, deadline=None)
@given(decks)
def test_the_canonical_form_is_idempotent_and_a_deck(deck) -> None:
    form = canonical(deck)
    assert sorted(form) == list(range(52))
    assert canonical(form) == form


@settings(max_examples=100, deadline=None)
@given(decks, st.integers(18, 51), st.integers(18, 51))
def test_two_stock_cards_swapped_are_another_game(deck, i, j) -> None:
    if i != j:
        assert not same_game(deck, swapped(deck, i, j))


# --- play: an image plays move for move like its deal ------------------------------------------


def token_image(token: str, symmetry: Symmetry, suits: list[str], image_suits: list[str]) -> str:
    """``token`` with its piles renamed: T(i+1) to the column its card went to, a foundation to
    the image's foundation of its suit's image."""

    def pile(name: str) -> str:
        if name.startswith("T"):
            return f"T{symmetry.columns[int(name[1]) - 1] + 1}"
        if name.startswith("F"):
            suit = SUITS.index(suits[int(name[1]) - 1])
            return f"F{image_suits.index(SUITS[symmetry.suits[suit]]) + 1}"
        return name

    if "-" not in token:
        return token
    source, target = token.split("-")
    name, _, count = source.partition(":")
    return f"{pile(name)}{':' + count if count else ''}-{pile(target)}"


def view_image(game: Canfield, symmetry: Symmetry) -> dict[str, object]:
    """What ``game``'s position becomes under ``symmetry``, pile by pile."""
    view = game.full_view()

    def cards(texts: list[str]) -> list[str]:
        return [card_str(symmetry.card(parse_card(text))) for text in texts]

    columns: list[list[str]] = [[], [], [], []]
    for i, column in enumerate(view["columns"]):
        columns[symmetry.columns[i]] = cards(column)
    foundations = {
        SUITS[symmetry.suits[SUITS.index(suit)]]: cards(pile)
        for suit, pile in zip(view["foundation_suits"], view["foundations"], strict=True)
    }
    return {
        "reserve": cards(view["reserve"]),
        "stock": cards(view["stock"]),
        "waste": cards(view["waste"]),
        "columns": columns,
        "foundations": foundations,
        "score": view["score"],
        "won": view["won"],
    }


def view_of(game: Canfield) -> dict[str, object]:
    view = game.full_view()
    return {
        "reserve": view["reserve"],
        "stock": view["stock"],
        "waste": view["waste"],
        "columns": view["columns"],
        "foundations": dict(zip(view["foundation_suits"], view["foundations"], strict=True)),
        "score": view["score"],
        "won": view["won"],
    }


CORPUS_GAMES = [
    "won-AAAAACL.txt",
    "won-classic-AAAAAAB.txt",
    "won-d1-AAAAAAA.txt",
    "undos-takebacks-AAAAAAC.txt",
]


@pytest.mark.parametrize("name", CORPUS_GAMES)
@pytest.mark.parametrize("seed", range(3))
def test_a_game_mapped_through_a_symmetry_plays_the_same_on_the_image(name, seed) -> None:
    record = GameRecord.parse((CORPUS / name).read_text())
    code = DealCode.parse(str(record.code))
    rng = random.Random(f"{name}:{seed}")
    symmetry = Symmetry(rng.choice(SUIT_MAPS[1:]), rng.randrange(1, 13), rng.choice(COLUMN_ORDERS))
    game = Canfield(code)
    image = Canfield(DealCode.from_deck(symmetry.apply(code.deck()), code.draw, code.variant))
    suits, image_suits = game.full_view()["foundation_suits"], image.full_view()["foundation_suits"]
    assert canonical(code.deck()) == canonical(image.code.deck())

    for token in [None, *record.tokens]:
        if token is not None:
            game.push(Action.parse(token))
            image.push(Action.parse(token_image(token, symmetry, suits, image_suits)))
        assert view_of(image) == view_image(game, symmetry)
        legal = {token_image(t, symmetry, suits, image_suits) for t in game.full_view()["legal"]}
        assert set(image.full_view()["legal"]) == legal
    assert (image.is_won(), image.score) == (game.is_won(), game.score)
    assert image.is_won() == (record.result == "won")
