"""CF2 codes (docs/deal-format.md, "CF2"): any of the 52! orders of the cards, written exactly,
with check characters that refuse a mistyped code rather than deal another game."""

from __future__ import annotations

import math
import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    Canfield,
    DealCode,
    GameRecord,
    InvalidCode,
    Layout,
    card_str,
    verify_record,
)
from games.engine.deals import (
    BASE58,
    DECK_COUNT,
    DrawMode,
    Variant,
    check_characters,
    deck_of_rank,
    rank_of_deck,
    rank_to_base58,
)

from .deal_doc import doc_block, doc_code, doc_field, doc_layout, doc_rank, doc_unrank
from .helpers import WON_LINE, WORKED_CODE

PROPERTY = settings(max_examples=200, deadline=None)
permutations = st.permutations(range(52))
draws: st.SearchStrategy[DrawMode] = st.sampled_from([1, 3])
variants: st.SearchStrategy[Variant] = st.sampled_from(["app", "classic"])
#: A deck shuffled once, for the tests that want an ordinary one.
SHUFFLED = tuple(random.Random(2026).sample(range(52), 52))


# -- the rank: Lehmer code ------------------------------------------------------------------------


def test_it_ranks_the_index_order_zero_and_its_reverse_last() -> None:
    assert rank_of_deck(range(52)) == 0
    assert rank_of_deck(range(51, -1, -1)) == DECK_COUNT - 1 == math.factorial(52) - 1
    assert deck_of_rank(0) == tuple(range(52))
    assert deck_of_rank(DECK_COUNT - 1) == tuple(range(51, -1, -1))
    assert deck_of_rank(1) == (*range(50), 51, 50)


@PROPERTY
@given(permutations)
def test_it_ranks_as_the_documented_lehmer_code(deck: list[int]) -> None:
    rank = rank_of_deck(deck)
    assert rank == doc_rank(deck)
    assert deck_of_rank(rank) == tuple(deck) == tuple(doc_unrank(rank))


@pytest.mark.parametrize("rank", [-1, DECK_COUNT, 1.0, True])
def test_it_refuses_a_rank_outside_0_to_52_factorial(rank: int) -> None:
    with pytest.raises(InvalidCode, match="outside 0..52! - 1"):
        deck_of_rank(rank)


@pytest.mark.parametrize(
    "deck",
    [list(range(51)), [*range(51), 50], [*range(51), 52], [*range(51), True], [*range(51), 51.0]],
)
def test_it_refuses_a_deck_that_is_not_the_52_cards_once(deck: list[int]) -> None:
    with pytest.raises(InvalidCode, match="a deck is the 52 cards"):
        DealCode.from_deck(deck)


# -- codes ----------------------------------------------------------------------------------------


@PROPERTY
@given(permutations, draws, variants)
def test_it_writes_any_deck_as_a_code_and_reads_it_back(
    deck: list[int], draw: int, variant: str
) -> None:
    code = DealCode.from_deck(deck, draw, variant)  # type: ignore[arg-type]
    written = str(code)
    assert len(written) == 48
    assert code.format == "CF2"
    assert code.deck() == tuple(deck)
    assert code.layout() == Layout.from_deck(deck)
    assert code.layout().deck() == tuple(deck)
    assert DealCode.parse(written) == code
    assert str(DealCode.parse(written)) == written
    assert eval(repr(code)) == code
    assert written == doc_code(deck, code.mode)


@pytest.mark.parametrize(
    ("rank", "written"),
    [
        (0, "CF2-D3-111111111111111111111111111111111111111EL"),
        (DECK_COUNT - 1, "CF2-D3-8stgRMqC7Zq4yx9CXfyFLxPYtcPwW5zQELaYJJzYB"),
    ],
)
def test_it_writes_the_first_and_the_last_rank(rank: int, written: str) -> None:
    code = DealCode(rank, 3, "app", "CF2")
    assert str(code) == written
    assert DealCode.parse(written) == code
    assert code.letters == written[7:]


def test_it_keeps_the_mode_apart_from_the_deal() -> None:
    modes = [(d, v) for d in (1, 3) for v in ("app", "classic")]
    codes = [DealCode(12345, d, v, "CF2") for d, v in modes]  # type: ignore[arg-type]
    assert len({str(c) for c in codes}) == 4
    assert len({c.letters[:39] for c in codes}) == 1  # the rank; the check covers the mode
    assert len({c.deck() for c in codes}) == 1
    assert [str(c)[4:6] for c in codes] == ["D1", "H1", "D3", "H3"]


def test_it_writes_any_cf1_deal_as_cf2_too() -> None:
    cf1 = DealCode.parse(WORKED_CODE)
    cf2 = DealCode.from_deck(cf1.deck(), cf1.draw, cf1.variant)
    assert str(cf2) == "CF2-D3-6FTH6SEZNBEqW5gpkKZBnVXVGovdVsct6WFe1PZyq"
    assert cf2 != cf1 and cf2.deck() == cf1.deck() and cf2.layout() == cf1.layout()
    assert Canfield(cf2).full_view() == {**Canfield(cf1).full_view(), "code": str(cf2)}


def test_it_refuses_a_code_past_the_last_deck() -> None:
    for body in ("z" * 39, rank_to_base58(DECK_COUNT)):
        written = f"CF2-D3-{body}{check_characters('D3', body)}"
        with pytest.raises(InvalidCode) as caught:
            DealCode.parse(written)
        assert str(caught.value) == f"{written!r}: not a deal: its number is past 52! - 1"


BODY = "a CF2 deal is 41 base58 characters (1-9, A-Z and a-z without O, I and l)"
GOOD = "CF2-D3-6FTH6SEZNBEqW5gpkKZBnVXVGovdVsct6WFe1PZyq"
MISTYPED = "the check characters do not match: mistyped code?"


@pytest.mark.parametrize(
    ("written", "message"),
    [
        (GOOD[:10] + "X" + GOOD[11:], MISTYPED),
        (GOOD[:20] + "g5" + GOOD[22:], MISTYPED),
        (GOOD.replace("D3", "D1"), MISTYPED),
        (GOOD.replace("D3", "H3"), MISTYPED),
        (GOOD[:-2] + "qy", MISTYPED),
        (GOOD[:-1], BODY),
        (GOOD + "1", BODY),
        ("CF2-D3-0" + GOOD[8:], BODY),
        ("CF2-D3-O" + GOOD[8:], BODY),
        (GOOD[:-1] + "l", BODY),
        (GOOD[:-1] + " ", BODY),
        (GOOD.lower(), "unknown deal format 'cf2' (CF1 or CF2)"),
        (
            "CF2-d3-" + GOOD[7:],
            "mode 'd3' must be D3 or D1 (app rules) or H3 or H1 (classic rules)",
        ),
        ("CF2-D3-AAAAACL", BODY),
    ],
)
def test_it_explains_a_malformed_cf2_code(written: str, message: str) -> None:
    with pytest.raises(InvalidCode) as caught:
        DealCode.parse(written)
    assert str(caught.value) == f"{written!r}: {message}"
    with pytest.raises(InvalidCode):
        Canfield(written)


#: A code whose rank ends in the digits 'z' (57) and '1' (0), next to another '1'.
BLIND_SPOT = str(DealCode(57 * 58, 1, "app", "CF2"))
# Every character a hand might put in a code: the alphabet, its look-alikes, other letters and
# digits, the separator, a space.
TYPED = sorted(set(BASE58 + string.ascii_letters + string.digits + "- "))
SAMPLE = [
    GOOD,
    "CF2-D3-111111111111111111111111111111111111111EL",
    str(DealCode(DECK_COUNT - 1, 1, "classic", "CF2")),
    str(DealCode.from_deck(range(51, -1, -1), 1)),
    str(DealCode.from_deck(SHUFFLED, 3, "classic")),
    BLIND_SPOT,
]


def luhn_mod_58(text: str) -> str:
    """The check character of the Luhn mod N algorithm over base58 — the scheme CF2 does not use,
    because of the swap below."""
    total, factor = 0, 2
    for ch in reversed(text):
        addend = factor * BASE58.index(ch)
        total += addend // 58 + addend % 58
        factor = 3 - factor
    return BASE58[-total % 58]


def test_it_refuses_the_swap_that_luhn_mod_58_lets_through() -> None:
    body = BLIND_SPOT[7:46]
    assert body.endswith("1z1")
    swapped = body[:-3] + "z11"
    assert luhn_mod_58("D1" + body) == luhn_mod_58("D1" + swapped)
    with pytest.raises(InvalidCode, match="mistyped code"):
        DealCode.parse(BLIND_SPOT[:7] + swapped + BLIND_SPOT[46:])


@pytest.mark.parametrize("written", SAMPLE)
def test_it_refuses_every_single_mistyped_character(written: str) -> None:
    assert str(DealCode.parse(written)) == written
    for i in range(len(written)):
        for ch in TYPED:
            if ch == written[i]:
                continue
            typo = written[:i] + ch + written[i + 1 :]
            with pytest.raises(InvalidCode):
                DealCode.parse(typo)


@pytest.mark.parametrize("written", SAMPLE)
def test_it_refuses_every_swap_of_two_adjacent_characters(written: str) -> None:
    swaps = 0
    for i in range(len(written) - 1):
        if written[i] == written[i + 1]:
            continue
        swapped = written[:i] + written[i + 1] + written[i] + written[i + 2 :]
        with pytest.raises(InvalidCode):
            DealCode.parse(swapped)
        swaps += 1
    assert swaps > 0


@PROPERTY
@given(permutations, st.data())
def test_it_refuses_a_mistyped_or_swapped_character_of_any_code(
    deck: list[int], data: st.DataObject
) -> None:
    written = str(DealCode.from_deck(deck, data.draw(draws), data.draw(variants)))
    i = data.draw(st.integers(4, len(written) - 1), label="place")
    ch = data.draw(st.sampled_from(BASE58).filter(lambda c: c != written[i]), label="typed")
    with pytest.raises(InvalidCode):
        DealCode.parse(written[:i] + ch + written[i + 1 :])
    if written[i - 1] != written[i]:
        with pytest.raises(InvalidCode):
            DealCode.parse(written[: i - 1] + written[i] + written[i - 1] + written[i + 1 :])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1, 3, "app", "CF2"), "CF2 deal number -1 is outside 0..52! - 1"),
        ((DECK_COUNT, 3, "app", "CF2"), f"CF2 deal number {DECK_COUNT} is outside 0..52! - 1"),
        ((26**7, 3, "app", "CF1"), "deal number 8031810176 is outside 0..8031810175"),
        ((5, 3, "app", "CF3"), "deal format must be 'CF1' or 'CF2', not 'CF3'"),
    ],
)
def test_it_refuses_a_code_built_from_bad_values(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(InvalidCode) as caught:
        DealCode(*args)  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_it_still_deals_random_practice_games_as_cf1() -> None:
    assert {DealCode.random().format for _ in range(20)} == {"CF1"}


# -- a CF2 game -----------------------------------------------------------------------------------


def test_it_plays_a_cf2_game_and_records_it() -> None:
    code = DealCode.from_deck(SHUFFLED)
    game = Canfield(str(code))
    layout = code.layout()
    view = game.full_view()
    assert view["code"] == str(code)
    assert view["reserve"] == [card_str(c) for c in reversed(layout.reserve)]
    assert view["stock"] == [card_str(c) for c in reversed(layout.stock)]
    assert view["foundations"][0] == [card_str(layout.base)]
    for _ in range(30):
        legal = game.generate_legal()
        assert legal
        game.push(legal[0])
    record = GameRecord.from_game(game, player="alice", date="2026-11-30")
    assert record.text().startswith(f'[Code "{code}"]\n')
    assert GameRecord.parse(record.text()) == record
    assert verify_record(record.text()).ok
    assert Canfield.replay(code, game.history).full_view() == game.full_view()


def test_it_wins_the_worked_example_under_its_cf2_code() -> None:
    cf2 = DealCode.from_deck(DealCode.parse(WORKED_CODE).deck())
    game = Canfield.replay(cf2, WON_LINE)
    assert game.is_won()
    record = GameRecord.from_game(game)
    assert verify_record(GameRecord.parse(record.text())).ok
    tampered = record.text().replace(str(cf2), str(DealCode.from_deck(SHUFFLED)))
    assert not verify_record(tampered).ok


# -- the document stays true ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("heading", "rank"),
    [("### CF2 rank 0", 0), ("### CF2 rank 52! − 1", DECK_COUNT - 1)],
)
def test_it_matches_the_cf2_vectors_in_docs_deal_format(heading: str, rank: int) -> None:
    block = doc_block(heading)
    code = DealCode.parse(doc_field(block, "code"))
    assert code.number == rank
    assert code.layout() == doc_layout(block)


def test_it_matches_the_other_modes_of_rank_0_in_docs_deal_format() -> None:
    written = doc_block("### CF2 rank 0", which=1).split()
    assert written == [
        str(DealCode(0, 1, "app", "CF2")),
        str(DealCode(0, 3, "classic", "CF2")),
        str(DealCode(0, 1, "classic", "CF2")),
    ]


def test_it_matches_the_worked_cf2_vector_in_docs_deal_format() -> None:
    block = doc_block("### CF2 of CF1 deal 63")
    deck = DealCode.parse(WORKED_CODE).deck()
    assert doc_field(block, "code") == str(DealCode.from_deck(deck))
    assert doc_field(block, "rank") == str(rank_of_deck(deck))
    assert doc_field(block, "base58") == rank_to_base58(rank_of_deck(deck))
    lehmer = [sum(1 for later in deck[k + 1 :] if later < deck[k]) for k in range(52)]
    assert doc_field(block, "c[k]") == " ".join(map(str, lehmer))


def test_it_refuses_the_documented_refused_codes() -> None:
    block = doc_block("### Refused codes")
    messages = {
        "the check characters do not match": MISTYPED,
        "not 41 base58 characters": BODY,
        "not a deal": "not a deal: its number is past 52! - 1",
    }
    lines = block.strip().splitlines()
    for line in lines:
        written, reason = line.split(maxsplit=1)
        with pytest.raises(InvalidCode) as caught:
            DealCode.parse(written)
        assert str(caught.value) == f"{written!r}: {messages[reason.rsplit(': ', 1)[1]]}"
    assert len(lines) == 6
