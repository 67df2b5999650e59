"""The engine's refusals, translated at the API's edge: every reason the engine gives in real
positions (both rule sets, draw 1 and 3) is read by a pattern of games.api.engine_messages, and
comes out in each language with no English template left."""

from __future__ import annotations

import random
import re

import pytest
from django.utils import translation

from games.api import engine_messages
from games.engine import Action, Canfield, DealCode
from games.engine.errors import InvalidCode, NotationError

PILES = ["R", "W", "F1", "F2", "F3", "F4", "T1", "T2", "T3", "T4"]


def every_action() -> list[Action]:
    tokens = ["D", "C", "U"]
    for src in PILES:
        for dst in PILES[2:]:
            if src == dst or (src[0] == "F" and dst[0] == "F"):
                continue
            tokens.append(f"{src}-{dst}")
            if src[0] == "T" and dst[0] == "T":
                tokens += [f"{src}:{n}-{dst}" for n in (2, 3, 7, 20)]
    return [Action.parse(token) for token in tokens]


def engine_reasons(games: int = 24, plies: int = 120) -> set[str]:
    """Every distinct reason the engine gave while random games were played."""
    rng = random.Random(14)
    actions = every_action()
    reasons: set[str] = set()
    for i in range(games):
        engine = Canfield(
            DealCode(
                rng.randrange(8_000_000_000), 1 if i % 2 else 3, "classic" if i % 3 == 0 else "app"
            )
        )
        for _ in range(plies):
            for action in actions:
                why = engine.reason(action)
                if why is not None:
                    reasons.add(why)
            legal = list(engine.legal_moves)
            if not legal:
                break
            engine.push(rng.choice(legal))
    return reasons


REASONS = sorted(engine_reasons())


def notation_errors() -> set[str]:
    found = set()
    for token in ["X", "R-T1x", "R:2-T1", "T1:1-T2", "T1:99-T2", "T1-T1", "F1-F2", "T1:2-F1"]:
        try:
            Action.parse(token)
        except NotationError as exc:
            found.add(str(exc))
    engine = Canfield(DealCode.parse("CF1-D3-AAAAACL"))
    for pile, index in [("Z", None), ("T1", 7)]:
        try:
            engine.tap(pile, index=index)
        except NotationError as exc:
            found.add(str(exc))
    return found


def code_errors() -> set[str]:
    found = set()
    for text in [
        "CF1-D3-AAAAAC",
        "CF1-X3-AAAAACL",
        "CF2-D3-1111111111111111111111111111111111111111111111111111",
    ]:
        try:
            DealCode.parse(text)
        except InvalidCode as exc:
            found.add(str(exc))
    return found


def test_the_random_games_meet_many_kinds_of_refusal() -> None:
    # (so that the next test means something: the kinds of reason, not their number)
    kinds = {re.sub(r"[A2-9TJQK][SHDC]|\d+|[FT][1-4]", "#", reason) for reason in REASONS}
    assert len(kinds) >= 15


def test_every_reason_of_the_engine_has_its_pattern() -> None:
    assert [reason for reason in REASONS if not engine_messages.known(reason)] == []


def test_notation_errors_have_their_patterns() -> None:
    messages = notation_errors()
    assert len(messages) >= 8
    assert [m for m in messages if not engine_messages.known(m)] == []


def test_the_common_code_mistakes_have_their_patterns() -> None:
    messages = code_errors()
    assert messages
    known = [m for m in messages if engine_messages.known(m)]
    assert known, messages


@pytest.mark.parametrize("language", ["tr", "fi", "sq"])
def test_no_english_is_left_in_a_translated_reason(language: str) -> None:
    english = re.compile(
        r"\b(cannot|goes|holds|foundation|column|reserve|waste|stock|empty|same colour|"
        r"spades|hearts|diamonds|clubs|queen|king|jack|ace|the)\b"
    )
    with translation.override(language):
        for reason in REASONS:
            text = engine_messages.translate("illegal_action", reason)
            assert text != reason
            assert not english.search(text), (reason, text)
            assert text[0].isupper() or not text[0].isalpha(), text


def test_english_keeps_the_engine_words_and_an_unknown_reason_gets_a_general_sentence() -> None:
    with translation.override("en"):
        assert engine_messages.translate("illegal_action", "QC cannot go on 6C: same colour") == (
            "QC cannot go on 6C: same colour"
        )
    with translation.override("fi"):
        assert engine_messages.translate("illegal_action", "a reason from the future") == (
            "Säännöt eivät salli tätä toimintoa nyt."
        )
        # other codes are not the engine's: left as they are
        assert engine_messages.translate("stale_ply", "already translated") == "already translated"
