"""The engine's reasons in every language: each code renders from its fields through the
catalogs — English too — naming cards and piles in words, never by their codes, and never from the
engine's English sentence."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from games.engine import REASON_CODES, IllegalAction, NotationError, Reason
from games.engine import reasons as engine_reasons
from games.engine.reasons import RULE_CODES
from games.errors import GameError, engine_refusal
from games.sentences import SENTENCES, describe
from tests.engine.helpers import REASONS

LANGUAGES = ["en", "tr", "fi", "sq"]
#: A card as the notation writes it, standing alone ("KD", "2H").
CARD_CODE = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQK][SHDC](?![A-Za-z0-9])")
#: English words that a translated sentence never keeps.
ENGLISH = re.compile(
    r"\b(cannot|goes|holds|foundation|column|reserve|waste|stock|empty|same colour|spades|"
    r"hearts|diamonds|clubs|queen|king|jack|ace|the|is|only|must)\b"
)


def rendered(language: str) -> dict[Reason, str]:
    with translation.override(language):
        return {reason: describe(reason) for reason, _ in REASONS}


def test_every_code_has_its_sentence() -> None:
    assert sorted(SENTENCES) == sorted(REASON_CODES)
    assert sorted(reason.code for reason, _ in REASONS) == sorted(REASON_CODES)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_reason_renders_in_every_language_without_a_card_code(language: str) -> None:
    sentences = rendered(language)
    assert len(sentences) == len(REASON_CODES)
    for reason, text in sentences.items():
        assert text and not CARD_CODE.search(text), (reason, text)
        assert "%(" not in text and "%s" not in text, (reason, text)
        assert text[0].isupper() or not text[0].isalpha(), (reason, text)


@pytest.mark.parametrize("language", ["tr", "fi", "sq"])
def test_no_english_is_left_in_a_translated_reason(language: str) -> None:
    english = rendered("en")
    for reason, text in rendered(language).items():
        assert text != english[reason], (reason, text)
        assert not ENGLISH.search(text), (reason, text)


def test_the_api_says_the_rules_in_the_engines_english() -> None:
    english = rendered("en")
    assert {r: english[r] for r, _ in REASONS if r.code in RULE_CODES} == {
        r: text for r, text in REASONS if r.code in RULE_CODES
    }


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "The king of diamonds cannot go on the two of hearts: they are the same colour."),
        ("tr", "Karo papazı, kupa ikilisi üzerine konamaz: ikisi aynı renk."),
        ("fi", "Ruutu kuningas ei voi mennä kortin hertta 2 päälle: ne ovat samanvärisiä."),
        ("sq", "Mbret karo nuk mund të vihet mbi dyshe kupë: janë me të njëjtën ngjyrë."),
    ],
)
def test_it_names_the_cards_in_words(language: str, expected: str) -> None:
    with translation.override(language):
        assert describe(Reason("same_colour", card="KD", target="2H")) == expected


def test_rewording_the_engines_english_changes_no_other_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reason = Reason("not_one_rank_lower", card="7H", target="TS", rank="8")
    before = {language: rendered(language) for language in LANGUAGES}
    english = str(reason)
    monkeypatch.setitem(
        engine_reasons._ENGLISH,
        "not_one_rank_lower",
        lambda r: f"{r.card} does not fit on {r.target}, reworded",
    )
    assert str(reason) != english  # the engine's sentence changed ...
    assert {language: rendered(language) for language in LANGUAGES} == before  # ... no other


def test_a_refusal_answers_its_reason_in_the_active_language() -> None:
    error = engine_refusal("illegal_action", IllegalAction(Reason("nothing_to_undo")))
    with translation.override("fi"):
        assert error.to_dict() == {
            "code": "illegal_action",
            "message": "Ei peruutettavaa.",
            "reason": "nothing_to_undo",
        }
    with translation.override("en"):
        assert error.to_dict()["message"] == "Nothing to undo."


def test_an_engine_error_without_a_reason_gets_a_general_sentence() -> None:
    error = engine_refusal("bad_notation", NotationError("token 3: something new"))
    with translation.override("tr"):
        assert engine_refusal("bad_notation", NotationError("x")).to_dict() == {
            "code": "bad_notation",
            "message": "Bu, oyunun gösteriminde bir eylem değil.",
        }
    assert "reason" not in error.to_dict()
    assert GameError("stale_ply", "moved on", ply=3).to_dict() == {
        "code": "stale_ply",
        "message": "moved on",
        "ply": 3,
    }
