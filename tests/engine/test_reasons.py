"""Refusals are values: every error about an action, a tap or a game code carries a Reason (a code
and what it names), which says itself in English with the cards and piles in words."""

from __future__ import annotations

import pickle
import random
import re

import pytest

from games.engine import (
    REASON_CODES,
    Action,
    Canfield,
    DealCode,
    EngineError,
    IllegalAction,
    InvalidCode,
    NotationError,
    Reason,
)
from games.engine.deals import check_characters
from games.engine.reasons import RULE_CODES

from .helpers import REASONS, WORKED_CODE

#: A card as the notation writes it, standing alone.
CARD_CODE = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQK][SHDC](?![A-Za-z0-9])")


def test_every_code_has_its_example() -> None:
    assert sorted(reason.code for reason, _ in REASONS) == sorted(REASON_CODES)
    assert len(set(REASON_CODES)) == len(REASON_CODES)


@pytest.mark.parametrize(("reason", "english"), REASONS, ids=[r.code for r, _ in REASONS])
def test_it_says_each_reason_in_english(reason: Reason, english: str) -> None:
    assert str(reason) == english
    if reason.code in RULE_CODES:
        assert not CARD_CODE.search(english), english


def test_its_repr_rebuilds_it_and_it_is_a_value() -> None:
    reason = Reason("same_colour", card="KD", target="2H")
    assert repr(reason) == "Reason('same_colour', card='KD', target='2H')"
    assert eval(repr(reason), {"Reason": Reason}) == reason
    assert {reason, Reason("same_colour", card="KD", target="2H")} == {reason}
    with pytest.raises(AttributeError):
        reason.card = "QC"  # type: ignore[misc]


def test_an_error_carries_its_reason_and_says_it() -> None:
    reason = Reason("nothing_to_undo")
    error = IllegalAction(reason)
    assert (error.reason, str(error)) == (reason, "Nothing to undo.")
    wrapped = IllegalAction("action 1 (U): Nothing to undo.", reason=reason)
    assert (wrapped.reason, str(wrapped)) == (reason, "action 1 (U): Nothing to undo.")
    assert EngineError("a record is text").reason is None
    copied = pickle.loads(pickle.dumps(wrapped))  # (a process pool sends errors back so)
    assert (type(copied), copied.reason, str(copied)) == (IllegalAction, reason, str(wrapped))


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        ("R-T5", Reason("not_an_action", text="'R-T5'")),
        ("R:2-T1", Reason("count_not_from_column", text="'R:2-T1'", pile="R")),
        ("T1:1-T2", Reason("bad_run_count", text="'T1:1-T2'", count=52)),
        ("T1-T1", Reason("same_pile", text="'T1-T1'")),
        ("F1-F2", Reason("foundation_to_foundation", text="'F1-F2'")),
        ("T1:2-F1", Reason("one_card_to_foundation", text="'T1:2-F1'")),
        (7, Reason("action_not_text", text="int")),
    ],
)
def test_a_token_that_is_no_action_has_its_reason(token: object, reason: Reason) -> None:
    with pytest.raises(NotationError) as caught:
        Action.parse(token)  # type: ignore[arg-type]
    assert caught.value.reason == reason
    assert str(caught.value) == str(reason)


def test_a_tap_on_nothing_has_its_reason() -> None:
    game = Canfield(WORKED_CODE)
    with pytest.raises(NotationError) as caught:
        game.tap("Z")
    assert caught.value.reason == Reason("no_pile_to_tap", text="'Z'")
    with pytest.raises(NotationError) as caught:
        game.tap("T1", index=7)
    assert caught.value.reason == Reason("no_card_at_index", pile="T1", text="7")


CF2 = str(DealCode.from_deck(DealCode.parse(WORKED_CODE).deck()))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (12, Reason("code_not_text", text="int")),
        ("nope", Reason("not_three_parts", text="'nope'")),
        ("CF9-D3-AAAAACL", Reason("unknown_format", text="'CF9-D3-AAAAACL'", part="'CF9'")),
        ("CF1-D4-AAAAACL", Reason("bad_mode", text="'CF1-D4-AAAAACL'", part="'D4'")),
        ("CF1-D3-AAAAAC", Reason("bad_letters", text="'CF1-D3-AAAAAC'", count=7)),
        ("CF2-D3-0", Reason("bad_cf2_characters", text="'CF2-D3-0'", count=41)),
        (CF2[:-1] + ("2" if CF2[-1] != "2" else "3"), "check_mismatch"),
        ("CF2-D3-" + "z" * 39 + check_characters("D3", "z" * 39), "past_last_deck"),
    ],
)
def test_a_text_that_is_no_code_has_its_reason(text: object, reason: Reason | str) -> None:
    with pytest.raises(InvalidCode) as caught:
        DealCode.parse(text)  # type: ignore[arg-type]
    assert caught.value.reason is not None
    if isinstance(reason, str):  # (the whole code: long, and computed)
        reason = Reason(reason, text=repr(text))  # type: ignore[arg-type]
    assert caught.value.reason == reason
    assert str(caught.value) == str(reason)


def test_the_engine_refuses_real_play_with_reasons_in_words() -> None:
    """Every reason the engine gives while random games are played (both rule sets, draw 1 and
    3), for every action the notation can name: a rule's code, said without a card code."""
    rng = random.Random(14)
    piles = ["R", "W", "F1", "F2", "F3", "F4", "T1", "T2", "T3", "T4"]
    tokens = ["D", "C", "U"]
    tokens += [f"{s}-{d}" for s in piles for d in piles[2:] if s != d and not s[0] == d[0] == "F"]
    tokens += [f"{s}:{n}-{d}" for s in piles[6:] for d in piles[6:] if s != d for n in (2, 7)]
    actions = [Action.parse(token) for token in tokens]
    seen: dict[str, Reason] = {}
    for i in range(12):
        variant = "classic" if i % 3 == 0 else "app"
        game = Canfield(DealCode(rng.randrange(8_000_000_000), 1 + 2 * (i % 2), variant))  # type: ignore[arg-type]
        for _ in range(100):
            for action in actions:
                reason = game.reason(action)
                if reason is not None:
                    seen.setdefault(reason.code, reason)
                    assert reason.code in RULE_CODES
                    assert not CARD_CODE.search(str(reason)), reason
            legal = list(game.legal_moves)
            if not legal:
                break
            game.push(rng.choice(legal))
    # (so that the checks above mean something: the kinds of reason met, not their number)
    assert {
        "same_colour",
        "not_one_rank_lower",
        "wrong_suit",
        "not_next_rank",
        "not_starting_rank",
        "no_run",
        "pile_empty",
        "stock_not_empty",
        "classic_whole_column",
        "classic_no_take_back",
    } <= set(seen)
