"""Cards home by themselves (``games.engine.auto``): the safe rule on positions built for it —
a card goes home only when both foundations of the other colour hold the card of the rank before
it (counted from the base rank, wrapping) — and on positions of a real game: the card named is a
legal move, a card its foundation takes but that may still be needed is not named."""

from __future__ import annotations

from typing import Any, cast

import pytest

from games.engine import Action, Canfield, PlayerView
from games.engine.auto import is_safe, safe_home, safe_home_of

from .helpers import CORPUS

SUITS = "HSDC"  # (F1 hearts: a base card of hearts)
ORDER = "A23456789TJQK"


def run(start: str, suit: str, count: int) -> list[str]:
    """The first ``count`` cards of ``suit``'s foundation when the base rank is ``start``."""
    first = ORDER.index(start)
    return [f"{ORDER[(first + i) % 13]}{suit}" for i in range(count)]


def position(
    start: str,
    heights: dict[str, int],
    *,
    reserve: str | None = None,
    waste: list[str] | None = None,
    columns: list[list[str]] | None = None,
    legal: list[str],
) -> PlayerView:
    """A player view built for a test: foundations of base rank ``start`` holding ``heights``
    cards per suit, and the playable cards and legal actions given."""
    view: dict[str, Any] = {
        "reserve": {"top": reserve, "count": 1 if reserve else 0},
        "waste": {"count": len(waste or []), "cards": waste or []},
        "foundations": [
            {"suit": s, "start": start, "cards": run(start, s, heights.get(s, 0))} for s in SUITS
        ],
        "columns": columns or [[], [], [], []],
        "legal": legal,
    }
    return cast(PlayerView, view)


# --- the rule --------------------------------------------------------------------------------


def test_a_card_is_safe_once_both_other_colour_foundations_hold_the_rank_before_it() -> None:
    # Base rank 7: the 9 of clubs stands 2 places up; the red foundations must hold 7 and 8.
    both = position("7", {"H": 2, "D": 2, "C": 2}, waste=["9C"], legal=["W-F4", "D"])
    assert is_safe("9C", both)
    assert safe_home(both) == "W-F4"


def test_a_card_that_may_be_needed_is_not_moved() -> None:
    # The 8 of diamonds is not home: it could still go on the 9 of clubs in a column.
    one_short = position("7", {"H": 3, "D": 1, "C": 2}, waste=["9C"], legal=["W-F4", "D"])
    assert not is_safe("9C", one_short)
    assert safe_home(one_short) is None
    # The same colour's foundations do not count: only the other colour's.
    same_colour = position("7", {"S": 9, "C": 2, "H": 1, "D": 1}, waste=["9C"], legal=["W-F4"])
    assert safe_home(same_colour) is None


def test_the_rank_counts_from_the_base_rank_and_wraps() -> None:
    # Base rank J: the 2 of hearts stands 4 places up (J Q K A 2) — the black foundations must
    # hold J Q K A (4 cards), wrapping past the king.
    ready = position("J", {"H": 4, "S": 4, "C": 4}, reserve="2H", legal=["R-F1"])
    short = position("J", {"H": 4, "S": 4, "C": 3}, reserve="2H", legal=["R-F1"])
    assert safe_home(ready) == "R-F1"
    assert safe_home(short) is None


def test_a_card_of_the_base_rank_waits_for_both_other_colour_foundations_to_be_complete() -> None:
    # A card of the rank before the base rank (a 6 with base 7) can be built on a 7 in a column,
    # and it is the last card of every foundation: the 7 of spades is needed until then.
    column = [["7S"], [], [], []]
    early = position("7", {"H": 12, "D": 12}, columns=column, legal=["T1-F2"])
    full = position("7", {"H": 13, "D": 13}, columns=column, legal=["T1-F2"])
    assert safe_home(early) is None
    assert safe_home(full) == "T1-F2"


def test_only_moves_to_a_foundation_from_the_reserve_the_waste_or_a_column() -> None:
    heights = {"H": 13, "S": 5, "D": 13, "C": 5}
    # A take-back (a foundation's top onto a column) is never named, nor a move to a column.
    backs = position("7", heights, columns=[["QC"], [], [], []], legal=["F2-T1", "T1-T2", "D"])
    assert safe_home(backs) is None
    # Several safe cards: the first in the order of the legal actions, one at a time.
    many = position(
        "7",
        heights,
        reserve="QS",
        waste=["QC"],
        legal=["R-F2", "W-F4", "D"],
    )
    assert safe_home(many) == "R-F2"


# --- on a real game ------------------------------------------------------------------------------

WON = [
    t
    for line in (CORPUS / "won-AAAAACL.txt").read_text().splitlines()
    if not line.startswith("[")
    for t in line.split()
]


def test_in_a_real_game_a_safe_card_is_named_and_one_that_may_be_needed_is_not() -> None:
    game = Canfield("CF1-D3-AAAAACL")
    # The 8 of hearts can go home at once (R-F1), but a black 7 could still go on it.
    game.push(Action.parse(WON[0]))
    assert "R-F1" in game.player_view(look_ahead=False)["legal"]
    assert safe_home_of(game) is None
    for token in WON[1:59]:
        game.push(Action.parse(token))
    # The 8 of clubs on the waste: hearts hold 7 8, diamonds 7 — both red 7s are home.
    view = game.player_view(look_ahead=False)
    assert view["waste"]["cards"][-1] == "8C"
    assert safe_home(view) == "W-F4"
    action = safe_home_of(game)
    assert action is not None and action.token() == "W-F4"
    game.push(action)
    # Then the 9 of clubs, which the 8 of diamonds may still need: not moved.
    view = game.player_view(look_ahead=False)
    assert view["waste"]["cards"][-1] == "9C" and "W-F4" in view["legal"]
    assert safe_home_of(game) is None


@pytest.mark.parametrize("plies", [0, 40, 120, 221])
def test_a_named_card_is_always_a_legal_move_home(plies: int) -> None:
    game = Canfield.replay("CF1-D3-AAAAACL", WON[:plies])
    while (action := safe_home_of(game)) is not None:
        assert action in game.legal_moves
        assert action.src not in (2, 3, 4, 5) and action.dst in (2, 3, 4, 5)
        before = game.foundation_cards
        game.push(action)
        assert game.foundation_cards == before + 1
