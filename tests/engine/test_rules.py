"""Every rule of RULES.md and every reason the engine gives for refusing an action.

Positions come from real play: the lowest deal number with a wanted property, a prefix of the
worked example's winning line, or a prefix of a corpus game (see helpers.py).
"""

from __future__ import annotations

import pytest

from games.engine import (
    DRAW,
    RECYCLE,
    UNDO,
    Action,
    Canfield,
    DealCode,
    GameOver,
    IllegalAction,
    NotationError,
    Reason,
)
from games.engine.cards import FITS_ON, RANKS, SUITS

from .helpers import (
    WON_LINE,
    WORKED_CODE,
    classic_prefix,
    find_position,
    first_deal,
    first_won_ply,
    impossible_position,
    is_red,
    legal_tokens,
    spec_fits,
    top,
    won_prefix,
)

WON_FOUNDATIONS = [[rank + suit for rank in "789TJQKA23456"] for suit in "HSDC"]


def refusal(game: Canfield, token: str | Action) -> Reason:
    """The reason push() raises for an illegal action, with its English; asserts the game did not
    change."""
    action = Action.parse(token) if isinstance(token, str) else token
    before = game.full_view()
    with pytest.raises(IllegalAction) as caught:
        game.push(action)
    assert game.full_view() == before
    assert game.reason(action) == caught.value.reason is not None
    assert str(caught.value) == str(caught.value.reason)
    assert action not in game.legal_moves
    return caught.value.reason


def counters(game: Canfield) -> dict[str, int]:
    return {
        "score": game.score,
        "moves": game.moves,
        "undos": game.undos,
        "recycles": game.recycles,
        "ply": game.ply,
        "foundation_cards": game.foundation_cards,
        "undo_depth": game.undo_depth,
    }


# -- foundations ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base_suit", "order"),
    [("S", "SHDC"), ("H", "HSDC"), ("D", "DSHC"), ("C", "CSHD")],
)
def test_it_orders_the_foundations_base_suit_first_then_s_h_d_c(base_suit: str, order: str) -> None:
    game = first_deal(lambda g: top(g, "F1")[1] == base_suit)
    base = top(game, "F1")
    assert game.full_view()["foundation_suits"] == list(order)
    assert game.player_view()["foundations"] == [
        {"suit": suit, "start": base[0], "cards": [base] if i == 0 else []}
        for i, suit in enumerate(order)
    ]


def test_it_lets_only_the_starting_rank_start_a_foundation() -> None:
    game = Canfield(WORKED_CODE)  # base card 7H; AS lies in T4
    assert refusal(game, "T4-F2") == Reason("not_starting_rank", card="AS", pile="F2", target="7S")
    game = first_won_ply(lambda g: any(a.dst_name == "F2" for a in g.legal_moves))
    assert game.full_view()["foundations"][1] == []
    game.push(next(a for a in game.legal_moves if a.dst_name == "F2"))
    assert game.full_view()["foundations"][1] == ["7S"]


def test_it_keeps_each_foundation_to_its_suit() -> None:
    game = Canfield(WORKED_CODE)
    assert refusal(game, "R-F2") == Reason("wrong_suit", card="QC", pile="F2", suit="S")
    assert refusal(game, "T3-F4") == Reason("wrong_suit", card="QH", pile="F4", suit="C")


def test_it_builds_a_foundation_up_one_rank_at_a_time() -> None:
    game = Canfield(WORKED_CODE)
    assert refusal(game, "T3-F1") == Reason("not_next_rank", card="QH", pile="F1", target="8H")
    game.push(Action.parse("R-T2"))
    game.push(Action.parse("R-F1"))
    assert game.full_view()["foundations"][0] == ["7H", "8H"]


def test_it_follows_a_king_with_an_ace_on_a_foundation() -> None:
    game = first_won_ply(
        lambda g: top(g, "F1") == "KH" and any(a.dst_name == "F1" for a in g.legal_moves)
    )
    assert refusal(game, "T2-F1") == Reason("not_next_rank", card="4H", pile="F1", target="AH")
    game.push(next(a for a in game.legal_moves if a.dst_name == "F1"))
    assert game.full_view()["foundations"][0] == [
        "7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH",
    ]  # fmt: skip
    assert won_prefix(len(WON_LINE)).full_view()["foundations"] == WON_FOUNDATIONS


def test_it_refuses_a_card_for_a_complete_foundation() -> None:
    # No game can reach this: a complete foundation holds every card of its suit, and a
    # foundation's own top never goes to another foundation. A defensive message, built by hand.
    game = impossible_position(
        Canfield(WORKED_CODE), F2=[rank + "S" for rank in "789TJQKA23456"], T1=["7S"]
    )
    assert game.reason(Action.parse("T1-F2")) == Reason("foundation_complete", pile="F2", suit="S")


def test_it_never_moves_a_card_from_foundation_to_foundation() -> None:
    game = Canfield(WORKED_CODE)
    assert refusal(game, Action.move("F1", "F2")) == Reason("foundation_to_foundation")
    with pytest.raises(NotationError) as caught:
        Action.parse("F1-F2")
    assert str(caught.value) == "'F1-F2': a foundation card never goes to another foundation"
    assert caught.value.reason == Reason("foundation_to_foundation", text="'F1-F2'")


def test_it_sends_only_one_card_at_a_time_to_a_foundation() -> None:
    game = won_prefix(3)  # T4: AS KH QC
    assert refusal(game, Action.move("T4", "F1", 2)) == Reason("one_card_to_foundation")


# -- columns -------------------------------------------------------------------------------------


def test_it_builds_columns_down_in_alternating_colours_with_the_wrap() -> None:
    cards = [rank + suit for suit in SUITS for rank in RANKS]
    table = {(c, t) for c in cards for t in cards if FITS_ON[cards.index(c)][cards.index(t)]}
    assert table == {(c, t) for c in cards for t in cards if spec_fits(c, t)}
    assert {("6H", "7S"), ("6H", "7C"), ("KH", "AS"), ("KS", "AD")} <= table
    assert not {("6H", "7H"), ("6H", "7D"), ("6H", "8S"), ("AS", "KH"), ("KS", "AS")} & table


def test_it_puts_a_king_on_an_ace_of_the_other_colour() -> None:
    game = Canfield(WORKED_CODE)
    assert "T2-T4" in legal_tokens(game)  # KH onto AS
    game.push(Action.parse("T2-T4"))
    assert game.full_view()["columns"] == [["6C"], ["QC"], ["QH"], ["AS", "KH"]]


def test_it_refuses_a_card_of_the_same_colour() -> None:
    game = Canfield(WORKED_CODE)
    assert refusal(game, "R-T1") == Reason("same_colour", card="QC", target="6C")


def test_it_refuses_a_card_of_the_wrong_rank() -> None:
    game = Canfield(WORKED_CODE)
    assert refusal(game, "R-T3") == Reason("not_one_rank_lower", card="QC", target="QH", rank="K")


@pytest.mark.parametrize(
    ("rank", "wanted", "phrase"),
    [
        ("8", "9", "an eight goes on a nine"),
        ("A", "2", "an ace goes on a two"),
        ("7", "8", "a seven goes on an eight"),
        ("K", "A", "a king goes on an ace"),
    ],
)
def test_it_names_the_wanted_rank_with_its_article(rank: str, wanted: str, phrase: str) -> None:
    def reserve_top_misfits_on_t1(g: Canfield) -> bool:
        card, onto = top(g, "R"), top(g, "T1")
        return card[0] == rank and is_red(card) != is_red(onto) and not spec_fits(card, onto)

    game = first_deal(reserve_top_misfits_on_t1)
    card, onto = top(game, "R"), top(game, "T1")
    reason = refusal(game, "R-T1")
    assert reason == Reason("not_one_rank_lower", card=card, target=onto, rank=wanted)
    assert str(reason).endswith(f": {phrase}.")


def test_it_moves_the_tail_of_a_column_as_one_run() -> None:
    game = won_prefix(143)
    assert game.full_view()["columns"] == [
        ["6C", "5H", "4C", "3H", "2C", "AH", "KC", "QH"],
        ["5C", "4H", "3C", "2H", "AS", "KH"],
        ["5D"],
        ["5S", "4D"],
    ]
    assert legal_tokens(game) == ["F2-T2", "F4-T2", "T1:6-T3", "T2:4-T4", "D", "U"]
    assert refusal(game, "T1:7-T3") == Reason("same_colour", card="5H", target="5D")
    assert refusal(game, "T1:5-T3") == Reason("same_colour", card="3H", target="5D")
    assert refusal(game, "T1:4-T3") == Reason(
        "not_one_rank_lower", card="2C", target="5D", rank="3"
    )
    game.push(Action.parse("T1:6-T3"))
    assert game.full_view()["columns"] == [
        ["6C", "5H"],
        ["5C", "4H", "3C", "2H", "AS", "KH"],
        ["5D", "4C", "3H", "2C", "AH", "KC", "QH"],
        ["5S", "4D"],
    ]


def test_it_refuses_a_run_longer_than_the_column() -> None:
    game = Canfield(WORKED_CODE)
    assert refusal(game, "T1:2-T2") == Reason("no_run", pile="T1", count=1, run=2)
    game = won_prefix(143)
    assert refusal(game, "T1:9-T3") == Reason("no_run", pile="T1", count=8, run=9)


def test_it_refuses_a_move_from_an_empty_pile() -> None:
    game = Canfield(WORKED_CODE)
    assert refusal(game, "W-T1") == Reason("pile_empty", pile="W")
    assert refusal(game, "F2-T1") == Reason("pile_empty", pile="F2")
    game = won_prefix(194)  # reserve used up; T1 and T2 empty
    assert refusal(game, "R-T3") == Reason("pile_empty", pile="R")
    assert refusal(game, "T1-T3") == Reason("pile_empty", pile="T1")


@pytest.mark.parametrize("src", ["R", "W", "F1"])
def test_it_takes_only_one_card_from_the_reserve_waste_or_a_foundation(src: str) -> None:
    game = won_prefix(8)  # the waste holds cards
    assert refusal(game, Action.move(src, "T3", 2)) == Reason("one_card_from_pile", pile=src)


def test_it_puts_no_card_on_the_reserve_or_the_waste() -> None:
    # Action.move() and Action.parse() cannot even name these; a hand-made Action can.
    game = Canfield(WORKED_CODE)
    assert refusal(game, Action("move", 6, 0, 1)) == Reason("not_a_destination", pile="R")
    assert refusal(game, Action("move", 6, 1, 1)) == Reason("not_a_destination", pile="W")


def test_it_refuses_a_run_onto_its_own_column() -> None:
    game = Canfield(WORKED_CODE)
    assert refusal(game, Action("move", 7, 7, 1)) == Reason("own_column")


# -- the reserve refills an emptied column -------------------------------------------------------


def test_it_refills_an_emptied_column_from_the_reserve_in_the_same_action() -> None:
    game = won_prefix(2)
    assert game.player_view()["reserve"] == {"top": "QS", "count": 11}
    game.push(Action.parse("T2:2-T4"))
    assert game.full_view()["columns"] == [["6C"], ["QS"], ["QH"], ["AS", "KH", "QC"]]
    assert game.player_view()["reserve"] == {"top": "JS", "count": 10}
    assert (game.moves, game.ply) == (3, 3)


def test_it_undoes_a_refill_with_its_move() -> None:
    game = won_prefix(2)
    before = game.full_view()
    game.push(Action.parse("T2:2-T4"))
    game.push(UNDO)
    assert game.full_view() == {**before, "ply": 4, "undos": 1}


def test_it_refills_a_column_emptied_by_a_move_to_a_foundation() -> None:
    def column_card_to_foundation(g: Canfield) -> bool:
        return any(a.src_name.startswith("T") and a.dst_name.startswith("F") for a in g.legal_moves)

    game = first_deal(column_card_to_foundation)
    move = next(a for a in game.legal_moves if a.src_name.startswith("T") and a.dst_name[0] == "F")
    reserve = game.full_view()["reserve"]
    game.push(move)
    assert game.full_view()["columns"][move.src - 6] == [reserve[0]]
    assert game.full_view()["reserve"] == reserve[1:]
    assert game.score == 5


def test_it_lets_an_empty_column_take_any_card_or_run_once_the_reserve_is_empty() -> None:
    game = won_prefix(194)
    view = game.full_view()
    assert view["reserve"] == []
    assert view["columns"] == [[], [], ["5D", "4S", "3D"], ["5S", "4D", "3S", "2D"]]
    into_t1 = [t for t in legal_tokens(game) if t.endswith("-T1")]
    assert into_t1 == [
        "W-T1",
        "F1-T1",
        "F2-T1",
        "F3-T1",
        "F4-T1",
        "T3:3-T1",
        "T3:2-T1",
        "T3-T1",
        "T4:4-T1",
        "T4:3-T1",
        "T4:2-T1",
        "T4-T1",
    ]
    game.push(Action.parse("T4:3-T1"))
    assert game.full_view()["columns"] == [["4D", "3S", "2D"], [], ["5D", "4S", "3D"], ["5S"]]


def test_it_keeps_an_empty_column_waiting_while_the_reserve_has_cards() -> None:
    # No game can reach this: a column emptied while the reserve holds cards is refilled at
    # once. A defensive message, built by hand.
    game = impossible_position(Canfield(WORKED_CODE), T1=[])
    assert game.reason(Action.parse("R-T1")) == Reason("empty_needs_reserve", pile="T1")


# -- take-backs ----------------------------------------------------------------------------------


def test_it_takes_a_card_back_from_a_foundation_without_losing_points() -> None:
    game = won_prefix(24)
    assert game.full_view()["foundations"][0] == ["7H", "8H"]
    assert game.score == 5
    game.push(Action.parse("F1-T3"))
    assert game.full_view()["foundations"][0] == ["7H"]
    assert game.full_view()["columns"][2] == ["QH", "JS", "TD", "9S", "8H"]
    assert game.score == 5
    game.push(Action.parse("T3-F1"))
    assert game.score == 10  # placed again: another 5 points


def test_it_takes_back_the_base_card_and_scores_it_when_placed_again() -> None:
    def base_card_goes_back_and_reserve_top_has_its_suit(g: Canfield) -> bool:
        base, reserve = top(g, "F1"), top(g, "R")
        return any(a.src_name == "F1" for a in g.legal_moves) and reserve[1] == base[1]

    game = first_deal(base_card_goes_back_and_reserve_top_has_its_suit)
    base = top(game, "F1")
    take_back = next(a for a in game.legal_moves if a.src_name == "F1")
    game.push(take_back)
    assert game.full_view()["foundations"][0] == []
    assert game.score == 0
    assert refusal(game, "R-F1") == Reason(
        "not_starting_rank", card=top(game, "R"), pile="F1", target=base
    )
    game.push(Action.move(take_back.dst, "F1"))
    assert game.full_view()["foundations"][0] == [base]
    assert game.score == 5


# -- stock and waste -----------------------------------------------------------------------------


def test_it_draws_three_cards_and_fewer_when_fewer_remain() -> None:
    game = Canfield(WORKED_CODE)
    stock = game.full_view()["stock"]  # next card first
    game.push(DRAW)
    assert game.player_view()["waste"] == {"count": 3, "cards": stock[:3]}
    assert game.player_view()["stock"] == {"count": 31}
    for _ in range(10):
        game.push(DRAW)
    assert game.player_view()["stock"] == {"count": 1}
    assert refusal(game, "C") == Reason("stock_not_empty", count=1)
    game.push(DRAW)
    assert game.full_view()["waste"] == stock
    assert game.player_view()["waste"] == {"count": 34, "cards": ["6D"]}  # the last card alone
    assert refusal(game, "D") == Reason("stock_empty")


def test_it_draws_one_card_in_draw_one() -> None:
    game = Canfield("CF1-D1-AAAAACL")
    stock = game.full_view()["stock"]
    for n in range(1, 35):
        game.push(DRAW)
        assert game.player_view()["waste"] == {"count": n, "cards": [stock[n - 1]]}
    assert game.full_view()["waste"] == stock
    assert game.full_view()["stock"] == []


def test_it_refuses_to_recycle_a_full_stock() -> None:
    assert refusal(Canfield(WORKED_CODE), "C") == Reason("stock_not_empty", count=34)


def test_it_recycles_the_waste_so_the_next_pass_deals_in_the_same_order() -> None:
    game = Canfield(WORKED_CODE)
    stock = game.full_view()["stock"]
    for _ in range(12):
        game.push(DRAW)
    game.push(RECYCLE)
    assert game.full_view()["stock"] == stock
    assert game.player_view()["waste"] == {"count": 0, "cards": []}
    assert (game.recycles, game.player_view()["recycles"]) == (1, 1)
    for _ in range(12):
        game.push(DRAW)
    assert game.full_view()["waste"] == stock


def test_it_keeps_the_order_of_the_remaining_cards_after_some_were_played() -> None:
    game = won_prefix(17)  # one pass drawn, the 9th drawn card played onto T1 (ply 12)
    waste = game.full_view()["waste"]
    assert len(waste) == 33
    game.push(RECYCLE)
    assert game.full_view()["stock"] == waste
    assert game.full_view()["waste"] == []


def test_it_makes_the_card_under_the_waste_top_playable_once_the_top_is_played() -> None:
    game = won_prefix(7)
    game.push(DRAW)
    assert game.player_view()["waste"] == {"count": 12, "cards": ["7S", "2D", "TD"]}
    assert legal_tokens(game) == ["W-T3", "D", "U"]  # TD onto JS; 2D and 7S wait under it
    game.push(Action.parse("W-T3"))
    assert game.player_view()["waste"] == {"count": 11, "cards": ["7S", "2D"]}
    assert game.full_view()["columns"][2] == ["QH", "JS", "TD"]


def test_it_refuses_to_draw_or_recycle_when_stock_and_waste_are_both_empty() -> None:
    game = won_prefix(216)
    assert game.player_view()["stock"] == {"count": 0}
    assert game.player_view()["waste"] == {"count": 0, "cards": []}
    assert refusal(game, "D") == Reason("stock_and_waste_empty")
    assert refusal(game, "C") == Reason("waste_empty")


# -- score ---------------------------------------------------------------------------------------


def test_it_scores_five_points_per_foundation_placement_and_nothing_else() -> None:
    game = Canfield(WORKED_CODE)
    scores = []
    for token in ("R-T2", "R-F1", "T2:2-T4", "R-T3", "D", "D", "D", "D", "D", "D", "D", "W-T1"):
        game.push(Action.parse(token))
        scores.append(game.score)
    assert scores == [0, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5]


def test_it_wins_the_worked_example_with_255_points() -> None:
    game = won_prefix(len(WON_LINE))
    assert game.is_won()
    assert game.score == 255
    assert game.foundation_cards == 52
    assert game.full_view()["foundations"] == WON_FOUNDATIONS
    assert game.player_view()["columns"] == [[], [], [], []]
    assert (game.player_view()["won"], game.player_view()["can_undo"]) == (True, False)
    assert list(game.legal_moves) == []


@pytest.mark.parametrize("token", ["D", "C", "U", "R-T1", "F1-T1", "T1-F1"])
def test_it_accepts_nothing_once_the_game_is_won(token: str) -> None:
    game = won_prefix(len(WON_LINE))
    with pytest.raises(GameOver) as caught:
        game.push(Action.parse(token))
    assert caught.value.reason == Reason("game_won")
    with pytest.raises(GameOver):
        game.check(Action.parse(token))
    assert isinstance(caught.value, IllegalAction)


# -- undo ----------------------------------------------------------------------------------------


def test_it_has_nothing_to_undo_at_the_start() -> None:
    assert refusal(Canfield(WORKED_CODE), "U") == Reason("nothing_to_undo")


def test_it_undoes_the_last_100_actions_and_refuses_the_101st() -> None:
    game = Canfield(WORKED_CODE)
    for _ in range(150):
        game.push(DRAW if DRAW in game.legal_moves else RECYCLE)
    for _ in range(100):
        game.push(UNDO)
    assert counters(game) == {
        "score": 0,
        "moves": 50,
        "undos": 100,
        "recycles": 3,  # 12 draws empty the stock of 34, then a recycle: 3 in the first 50
        "ply": 250,
        "foundation_cards": 1,
        "undo_depth": 0,
    }
    assert refusal(game, "U") == Reason("undo_limit", count=100)
    assert "U" not in legal_tokens(game)
    game.push(DRAW if DRAW in game.legal_moves else RECYCLE)
    game.push(UNDO)
    assert refusal(game, "U") == Reason("undo_limit", count=100)


def test_it_restores_score_and_counters_on_undo() -> None:
    game = Canfield(WORKED_CODE)
    start = game.full_view()
    for token in ("R-T2", "R-F1", "T2:2-T4"):
        game.push(Action.parse(token))
    assert counters(game) == {
        "score": 5,
        "moves": 3,
        "undos": 0,
        "recycles": 0,
        "ply": 3,
        "foundation_cards": 2,
        "undo_depth": 3,
    }
    game.push(UNDO)
    game.push(UNDO)
    assert counters(game) == {
        "score": 0,
        "moves": 1,
        "undos": 2,
        "recycles": 0,
        "ply": 5,
        "foundation_cards": 1,
        "undo_depth": 1,
    }
    game.push(UNDO)
    assert game.full_view() == {**start, "ply": 6, "undos": 3}
    assert game.history == [Action.parse(t) for t in ("R-T2", "R-F1", "T2:2-T4", "U", "U", "U")]


def test_it_undoes_a_draw_and_a_recycle() -> None:
    game = won_prefix(17)
    before = game.player_view()
    game.push(RECYCLE)
    assert game.recycles == before["recycles"] + 1
    game.push(UNDO)
    assert game.player_view() == {**before, "undos": 1}
    game.push(UNDO)  # the draw of ply 17
    assert game.full_view()["stock"] == won_prefix(16).full_view()["stock"]
    assert game.player_view()["waste"] == won_prefix(16).player_view()["waste"]


def test_it_pops_exactly_what_it_pushed_an_undo_included() -> None:
    game = Canfield(WORKED_CODE)
    snapshots = []
    for token in ("R-T2", "R-F1", "T2:2-T4", "U", "U", "T2:2-T4", "D", "U", "D"):
        snapshots.append((game.full_view(), game.player_view(), counters(game)))
        game.push(Action.parse(token))
    for token in reversed(("R-T2", "R-F1", "T2:2-T4", "U", "U", "T2:2-T4", "D", "U", "D")):
        assert game.pop() == Action.parse(token)
        assert (game.full_view(), game.player_view(), counters(game)) == snapshots.pop()
    with pytest.raises(IndexError):
        game.pop()


# -- the classic variant ------------------------------------------------------------------------


def test_it_writes_the_classic_variant_as_h3_and_h1() -> None:
    code = DealCode.parse("CF1-H3-AAAAACL")
    assert (code.number, code.draw, code.variant) == (63, 3, "classic")
    assert str(DealCode(63, 1, "classic")) == "CF1-H1-AAAAACL"
    assert Canfield(code).player_view()["variant"] == "classic"


def test_it_deals_the_classic_variant_the_same_cards() -> None:
    app, classic = Canfield(WORKED_CODE).full_view(), Canfield("CF1-H3-AAAAACL").full_view()
    for key in ("reserve", "foundations", "foundation_suits", "columns", "stock", "waste"):
        assert classic[key] == app[key]


def test_it_plays_the_worked_example_opening_under_classic_rules() -> None:
    game = Canfield.replay("CF1-H3-AAAAACL", ["R-T2", "R-F1", "T2:2-T4"])
    assert game.full_view()["columns"] == [["6C"], ["QS"], ["QH"], ["AS", "KH", "QC"]]
    assert game.score == 5


def test_it_moves_only_whole_piles_between_columns_in_classic() -> None:
    def reserve_top_fits_two_columns(g: Canfield) -> bool:
        return sum(spec_fits(top(g, "R"), top(g, t)) for t in ("T1", "T2", "T3", "T4")) >= 2

    app = first_deal(reserve_top_fits_two_columns)
    code = DealCode(app.code.number, 3, "classic")
    first, second = (t for t in ("T1", "T2", "T3", "T4") if spec_fits(top(app, "R"), top(app, t)))
    game = Canfield.replay(code, [f"R-{first}"])  # now the reserve's card also fits on `second`
    tail = f"{first}-{second}"
    assert refusal(game, tail) == Reason("classic_whole_column")
    app.push(Action.parse(f"R-{first}"))
    assert tail in legal_tokens(app)


def test_it_always_lets_a_column_s_last_card_go_to_a_foundation_in_classic() -> None:
    def long_column_to_foundation(g: Canfield) -> bool:
        return any(
            a.src_name.startswith("T") and a.dst_name.startswith("F") and len(g.piles[a.src]) > 1
            for a in g.legal_moves
        )

    game = find_position(long_column_to_foundation, variant="classic")
    move = next(
        a
        for a in game.legal_moves
        if a.src_name.startswith("T") and a.dst_name.startswith("F") and len(game.piles[a.src]) > 1
    )
    column = game.full_view()["columns"][move.src - 6]
    score = game.score
    game.push(move)
    assert game.full_view()["columns"][move.src - 6] == column[:-1]
    assert game.score == score + 5


def test_it_takes_no_card_back_from_a_foundation_in_classic() -> None:
    app = first_deal(lambda g: any(a.src_name == "F1" for a in g.legal_moves))
    take_back = next(a for a in app.legal_moves if a.src_name == "F1")
    game = Canfield(DealCode(app.code.number, 3, "classic"))
    assert refusal(game, take_back) == Reason("classic_no_take_back")


def test_it_fills_an_empty_column_only_from_the_waste_in_classic() -> None:
    game = classic_prefix(105)
    assert game.full_view()["reserve"] == []
    assert [len(c) for c in game.full_view()["columns"]] == [7, 5, 3, 0]
    assert legal_tokens(game) == ["W-T4", "D", "U"]
    assert refusal(game, "T3:3-T4") == Reason("classic_empty_column")
    assert refusal(game, "T3:2-T4") == Reason("classic_whole_column")
    assert refusal(game, "F1-T4") == Reason("classic_no_take_back")
    app = Canfield.replay("CF1-D3-AAAAAAB", game.history)  # the same position under the app's rules
    assert [t for t in legal_tokens(app) if t.endswith("-T4")] == [
        "W-T4",
        "F1-T4",
        "F2-T4",
        "F3-T4",
        "F4-T4",
        "T1:7-T4",
        "T1:6-T4",
        "T1:5-T4",
        "T1:4-T4",
        "T1:3-T4",
        "T1:2-T4",
        "T1-T4",
        "T2:5-T4",
        "T2:4-T4",
        "T2:3-T4",
        "T2:2-T4",
        "T2-T4",
        "T3:3-T4",
        "T3:2-T4",
        "T3-T4",
    ]


# -- the lazy view of legal moves ----------------------------------------------------------------


def test_it_offers_the_legal_moves_as_a_lazy_view() -> None:
    game = Canfield(WORKED_CODE)
    legal = game.legal_moves
    assert [a.token() for a in legal] == ["R-T2", "T2-T4", "D"]
    assert (len(legal), legal.count(), bool(legal)) == (3, 3, True)
    assert Action.parse("R-T2") in legal
    assert Action.parse("R-T3") not in legal
    assert "R-T2" not in legal  # tokens are not actions
    assert repr(legal) == "<LegalMoves (R-T2, T2-T4, D)>"
    game.push(Action.parse("R-T2"))
    assert [a.token() for a in legal] == ["R-F1", "T2:2-T4", "D", "U"]  # a live view


def test_it_raises_the_reason_from_check() -> None:
    game = Canfield(WORKED_CODE)
    with pytest.raises(IllegalAction) as caught:
        game.check(Action.parse("R-T1"))
    assert caught.value.reason == Reason("same_colour", card="QC", target="6C")
    assert str(caught.value) == (
        "The queen of clubs cannot go on the six of clubs: they are the same colour."
    )
    game.check(Action.parse("R-T2"))  # legal: no exception
