"""Canfield.tap: every branch of RULES.md "Tapping a card"."""

from __future__ import annotations

import pytest

from games.engine import DRAW, RECYCLE, Action, Canfield, DealCode, NotationError

from .helpers import WON_LINE, WORKED_CODE, classic_prefix, first_deal, spec_fits, top, won_prefix


def tap(
    game: Canfield, pile: str, index: int | None = None, double_click: bool = True
) -> str | None:
    """The token a tap resolves to; asserts that it is a legal action."""
    action = game.tap(pile, index, double_click=double_click)
    if action is None:
        return None
    assert action in game.legal_moves
    return action.token()


# -- the foundation first ------------------------------------------------------------------------


def test_it_sends_the_reserve_top_to_its_foundation() -> None:
    game = won_prefix(1)  # 8H on top of the reserve
    assert tap(game, "R") == "R-F1"
    assert tap(game, "R", double_click=False) == "R-F1"


def test_it_sends_the_waste_top_to_its_foundation() -> None:
    game = won_prefix(33)
    assert top(game, "W") == "7C"
    assert tap(game, "W") == "W-F4"


def test_it_sends_a_column_s_last_card_to_its_foundation() -> None:
    def column_card_to_foundation(g: Canfield) -> bool:
        return any(a.src_name.startswith("T") and a.dst_name.startswith("F") for a in g.legal_moves)

    game = first_deal(column_card_to_foundation)
    move = next(a for a in game.legal_moves if a.src_name.startswith("T"))
    assert tap(game, move.src_name) == move.token()
    assert tap(game, move.src_name, index=0) == move.token()  # the only card is the last one


def test_it_prefers_the_foundation_to_a_column() -> None:
    game = won_prefix(106)  # TC on the reserve: to the clubs foundation, or onto JD in T2
    assert {"R-F4", "R-T2"} <= {a.token() for a in game.legal_moves}
    assert tap(game, "R") == "R-F4"


def test_it_never_sends_a_card_with_cards_on_top_of_it_to_a_foundation() -> None:
    game = won_prefix(120)
    assert game.full_view()["columns"][2] == ["2H", "AS", "KH", "QC", "JD"]
    assert game.full_view()["foundations"][3][-1] == "JC"  # QC is next, but JD lies on it
    assert tap(game, "T3", 3) is None
    assert tap(game, "T3", 4) == "T3-T2"  # JD onto QS


# -- double click: the longest accepting column, then the leftmost empty one ---------------------


def test_it_picks_the_longest_column_that_accepts_the_card() -> None:
    game = won_prefix(9)
    assert game.full_view()["columns"] == [["6C"], ["QS"], ["QH", "JS"], ["AS", "KH", "QC"]]
    assert top(game, "W") == "JD"  # fits on QS (T2, 1 card) and QC (T4, 3 cards)
    assert tap(game, "W") == "W-T4"


def test_it_breaks_a_tie_between_columns_to_the_left() -> None:
    def reserve_top_fits_two_columns(g: Canfield) -> bool:
        return sum(spec_fits(top(g, "R"), top(g, t)) for t in ("T1", "T2", "T3", "T4")) >= 2

    game = first_deal(reserve_top_fits_two_columns)
    first = next(t for t in ("T1", "T2", "T3", "T4") if spec_fits(top(game, "R"), top(game, t)))
    assert tap(game, "R") == f"R-{first}"


def test_it_moves_a_whole_column_onto_another_column() -> None:
    game = Canfield(WORKED_CODE)
    assert tap(game, "T2", 0) == "T2-T4"  # KH onto AS


def test_it_falls_back_to_the_leftmost_empty_column() -> None:
    game = won_prefix(194)  # reserve used up, T1 and T2 empty
    assert game.full_view()["columns"] == [[], [], ["5D", "4S", "3D"], ["5S", "4D", "3S", "2D"]]
    assert tap(game, "W") == "W-T1"
    assert tap(game, "T3", 1) == "T3:2-T1"
    assert tap(game, "T4", 3) == "T4-T1"


def test_it_never_moves_a_whole_column_into_an_empty_one() -> None:
    game = won_prefix(194)
    assert "T3:3-T1" in {a.token() for a in game.legal_moves}
    assert tap(game, "T3", 0) is None
    assert tap(game, "T4", 0) is None


def test_it_taps_only_into_columns_the_classic_rules_allow() -> None:
    game = classic_prefix(105)  # reserve used up, T4 empty
    app = Canfield.replay(DealCode(game.code.number), game.history)
    assert tap(app, "T3", 1) == "T3:2-T4"
    assert tap(game, "T3", 1) is None  # a tail never moves in classic
    assert tap(game, "W") == "W-T4"


def test_it_only_tries_the_foundation_with_double_click_off() -> None:
    game = won_prefix(9)
    assert tap(game, "W", double_click=False) is None
    game = won_prefix(194)
    assert tap(game, "W", double_click=False) is None
    assert tap(game, "T3", 1, double_click=False) is None


def test_it_does_nothing_when_no_pile_accepts_the_card() -> None:
    game = Canfield(WORKED_CODE)
    assert [tap(game, pile) for pile in ("T1", "T3", "T4")] == [None, None, None]


# -- the stock, foundations, cards that are not playable -----------------------------------------


def test_it_draws_when_the_stock_is_tapped() -> None:
    assert Canfield(WORKED_CODE).tap("S") == DRAW


def test_it_recycles_when_the_empty_stock_is_tapped() -> None:
    game = won_prefix(17)
    assert game.player_view()["stock"] == {"count": 0}
    assert game.tap("S") == RECYCLE


def test_it_does_nothing_when_stock_and_waste_are_both_empty() -> None:
    assert won_prefix(216).tap("S") is None


def test_it_does_nothing_for_a_foundation_card() -> None:
    game = won_prefix(24)  # 8H on F1 could go back onto 9S by dragging
    assert "F1-T3" in {a.token() for a in game.legal_moves}
    assert tap(game, "F1") is None
    assert tap(game, "F1", 1) is None
    assert tap(game, "F2") is None  # empty


def test_it_does_nothing_for_a_card_under_the_top_of_the_reserve_or_the_waste() -> None:
    game = Canfield(WORKED_CODE)
    assert [tap(game, "R", i) for i in (0, 11, 12)] == [None, None, "R-T2"]
    game = won_prefix(8)  # TD on the waste goes onto JS
    assert game.player_view()["waste"]["count"] == 12
    assert [tap(game, "W", i) for i in (0, 10, 11)] == [None, None, "W-T3"]


def test_it_does_nothing_for_an_empty_pile() -> None:
    game = won_prefix(194)
    assert (tap(game, "T1"), tap(game, "R")) == (None, None)
    assert tap(Canfield(WORKED_CODE), "W") is None


def test_it_does_nothing_once_the_game_is_won() -> None:
    game = won_prefix(len(WON_LINE))
    assert [game.tap(pile) for pile in ("S", "R", "W", "F1", "T1")] == [None] * 5


# -- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize("pile", ["X", "T5", "F0", "", "t1", 3])
def test_it_refuses_a_pile_that_does_not_exist(pile: object) -> None:
    with pytest.raises(NotationError) as caught:
        Canfield(WORKED_CODE).tap(pile, 0)  # type: ignore[arg-type]
    assert str(caught.value) == f"no pile {pile!r} to tap: use S, R, W, F1-F4 or T1-T4"


@pytest.mark.parametrize(
    ("pile", "index"), [("T1", 1), ("T1", -1), ("T1", True), ("R", 13), ("W", 0), ("F2", 0)]
)
def test_it_refuses_an_index_with_no_card(pile: str, index: object) -> None:
    with pytest.raises(NotationError) as caught:
        Canfield(WORKED_CODE).tap(pile, index)  # type: ignore[arg-type]
    assert str(caught.value) == f"{pile} has no card at index {index!r}"


def test_it_resolves_a_tap_to_an_action_that_push_applies() -> None:
    game = Canfield(WORKED_CODE)
    for pile, index in (("R", None), ("R", None), ("T2", 0)):
        action = game.tap(pile, index)
        assert action is not None
        game.push(action)
    assert game.history == [Action.parse(t) for t in ("R-T2", "R-F1", "T2:2-T4")]
