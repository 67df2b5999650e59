"""Why the engine refuses something, as data.

A :class:`Reason` is a value: a stable ``code`` and the cards, piles and numbers it names. Every
refusal of the rules carries one (``IllegalAction.reason``, ``Canfield.reason(action)``), and so
does every mistake in an action's token, a tap or a game code (``NotationError.reason``,
``InvalidCode.reason``).

``str(reason)`` says it in English. A refusal of the rules names its cards and piles in words
(``"The king of diamonds cannot go on the two of hearts: they are the same colour."``); a mistake
in a token or a code quotes what was written. Any other language renders a reason from its code
and its fields — the web layer does so through its catalogs — and never from the English
sentence, so rewording one never breaks another.

>>> Reason("same_colour", card="KD", target="2H")
Reason('same_colour', card='KD', target='2H')
>>> str(Reason("pile_empty", pile="T3"))
'Column 3 is empty.'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Final, Literal, TypeAlias, get_args

from .cards import RANK_NAMES, RANKS, SUIT_NAMES, SUITS, card_name, parse_card

#: Why the rules refuse an action in the position it was tried in.
RuleCode: TypeAlias = Literal[
    "game_won",
    "stock_empty",
    "stock_and_waste_empty",
    "stock_not_empty",
    "waste_empty",
    "undo_limit",
    "nothing_to_undo",
    "pile_empty",
    "one_card_from_pile",
    "no_run",
    "one_card_to_foundation",
    "foundation_to_foundation",
    "wrong_suit",
    "foundation_complete",
    "not_starting_rank",
    "not_next_rank",
    "not_a_destination",
    "own_column",
    "classic_no_take_back",
    "classic_whole_column",
    "same_colour",
    "not_one_rank_lower",
    "empty_needs_reserve",
    "classic_empty_column",
]
#: Why a token or a tap names no action. ``foundation_to_foundation`` and
#: ``one_card_to_foundation`` (rule codes) also refuse a token, with its ``text``.
NotationCode: TypeAlias = Literal[
    "action_not_text",
    "not_an_action",
    "count_not_from_column",
    "bad_run_count",
    "same_pile",
    "no_pile_to_tap",
    "no_card_at_index",
]
#: Why a text is not a game code.
DealCodeCode: TypeAlias = Literal[
    "code_not_text",
    "not_three_parts",
    "unknown_format",
    "bad_mode",
    "bad_letters",
    "bad_cf2_characters",
    "check_mismatch",
    "past_last_deck",
]
ReasonCode: TypeAlias = RuleCode | NotationCode | DealCodeCode

RULE_CODES: Final[tuple[RuleCode, ...]] = get_args(RuleCode)
NOTATION_CODES: Final[tuple[NotationCode, ...]] = get_args(NotationCode)
DEAL_CODE_CODES: Final[tuple[DealCodeCode, ...]] = get_args(DealCodeCode)
#: Every code a reason may have.
REASON_CODES: Final[tuple[ReasonCode, ...]] = RULE_CODES + NOTATION_CODES + DEAL_CODE_CODES


@dataclass(frozen=True, slots=True)
class Reason:
    """A refusal: its ``code`` and what it names. Cards are text (``"KD"``), piles are named as
    in the notation (``R``, ``W``, ``F1``–``F4``, ``T1``–``T4``); a field a code does not use is
    ``None``."""

    code: ReasonCode
    #: The card the action plays.
    card: str | None = None
    #: The card it was to go on, or the card a foundation needs.
    target: str | None = None
    #: The pile the reason is about.
    pile: str | None = None
    #: A foundation's suit: ``S``, ``H``, ``D`` or ``C``.
    suit: str | None = None
    #: The rank the card goes on (``not_one_rank_lower``): ``A``, ``2`` … ``K``.
    rank: str | None = None
    #: A number: the cards a pile holds, the actions an undo reaches, the longest run a token
    #: may count, the characters of a code's last part.
    count: int | None = None
    #: The run a move asked for (``no_run``).
    run: int | None = None
    #: What was given, as a message quotes it: a token or a code in quotes (``'R-T5'``), a tapped
    #: pile or index as written, or the name of a type that is not text.
    text: str | None = None
    #: The part of a code that is wrong (its format or its mode), quoted.
    part: str | None = None

    def __str__(self) -> str:
        return _ENGLISH[self.code](self)

    def __repr__(self) -> str:
        named = "".join(
            f", {f.name}={getattr(self, f.name)!r}"
            for f in fields(self)
            if f.name != "code" and getattr(self, f.name) is not None
        )
        return f"Reason({self.code!r}{named})"


# -- English ------------------------------------------------------------------------------------


def card_words(text: str | None) -> str:
    """``"KD"`` → ``"king of diamonds"``."""
    return card_name(parse_card(_given(text)))


def rank_words(letter: str | None) -> str:
    """``"Q"`` → ``"queen"``."""
    return RANK_NAMES[RANKS.index(_given(letter))]


def suit_words(letter: str | None) -> str:
    """``"D"`` → ``"diamonds"``."""
    return SUIT_NAMES[SUITS.index(_given(letter))]


def pile_words(name: str | None) -> str:
    """``"R"`` → ``"the reserve"``, ``"F2"`` → ``"foundation 2"``, ``"T1"`` → ``"column 1"``."""
    name = _given(name)
    if name == "R":
        return "the reserve"
    if name == "W":
        return "the waste"
    return f"{'foundation' if name[0] == 'F' else 'column'} {name[1:]}"


def _given(value: str | None) -> str:
    """A field the reason's code always sets."""
    if value is None:
        raise ValueError("a field this reason's code needs is missing")
    return value


def _a(letter: str | None) -> str:
    """A rank's name with its article: ``"a queen"``, ``"an eight"``, ``"an ace"``."""
    name = rank_words(letter)
    return f"{'an' if name[0] in 'ae' else 'a'} {name}"


def _cards(count: int | None) -> str:
    return "1 card" if count == 1 else f"{count} cards"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


_ENGLISH: Final[dict[ReasonCode, Callable[[Reason], str]]] = {
    # -- the rules (the web layer's English catalog says the same: tested) ----------------------
    "game_won": lambda r: "The game is won: it accepts no further action.",
    "stock_empty": lambda r: "The stock is empty: turn the waste over instead.",
    "stock_and_waste_empty": lambda r: "The stock and the waste are both empty.",
    "stock_not_empty": lambda r: f"The stock still holds {_cards(r.count)}: draw instead.",
    "waste_empty": lambda r: "Nothing to turn over: the waste is empty.",
    "undo_limit": lambda r: (
        "Only the last action can be undone."
        if r.count == 1
        else f"Only the last {r.count} actions can be undone."
    ),
    "nothing_to_undo": lambda r: "Nothing to undo.",
    "pile_empty": lambda r: f"{_capital(pile_words(r.pile))} is empty.",
    "one_card_from_pile": lambda r: f"Only one card at a time comes from {pile_words(r.pile)}.",
    "no_run": lambda r: (
        f"{_capital(pile_words(r.pile))} holds {_cards(r.count)}: it has no run of {r.run}."
    ),
    "one_card_to_foundation": lambda r: (
        f"{r.text}: only one card at a time goes to a foundation"
        if r.text is not None
        else "Only one card at a time goes to a foundation."
    ),
    "foundation_to_foundation": lambda r: (
        f"{r.text}: a foundation card never goes to another foundation"
        if r.text is not None
        else "A foundation card never goes to another foundation."
    ),
    "wrong_suit": lambda r: (
        f"The {card_words(r.card)} cannot go to {pile_words(r.pile)}: "
        f"it holds {suit_words(r.suit)}, not {suit_words(_given(r.card)[1])}."
    ),
    "foundation_complete": lambda r: f"The {suit_words(r.suit)} foundation is complete.",
    "not_starting_rank": lambda r: (
        f"The {suit_words(_given(r.target)[1])} foundation starts with "
        f"the {rank_words(_given(r.target)[0])}."
    ),
    "not_next_rank": lambda r: (
        f"The {card_words(r.card)} cannot go to {pile_words(r.pile)}: "
        f"it needs the {card_words(r.target)} next."
    ),
    "not_a_destination": lambda r: f"No card goes to {pile_words(r.pile)}.",
    "own_column": lambda r: "A run cannot move onto its own column.",
    "classic_no_take_back": lambda r: "Classic rules: no card is taken back from a foundation.",
    "classic_whole_column": lambda r: (
        "Classic rules: cards move between columns only as a whole pile."
    ),
    "same_colour": lambda r: (
        f"The {card_words(r.card)} cannot go on the {card_words(r.target)}: "
        "they are the same colour."
    ),
    "not_one_rank_lower": lambda r: (
        f"The {card_words(r.card)} cannot go on the {card_words(r.target)}: "
        f"{_a(_given(r.card)[0])} goes on {_a(r.rank)}."
    ),
    "empty_needs_reserve": lambda r: (
        f"{_capital(pile_words(r.pile))} is empty and waits for the reserve."
    ),
    "classic_empty_column": lambda r: (
        "Classic rules: an empty column takes only the waste's top card."
    ),
    # -- tokens and taps ------------------------------------------------------------------------
    "action_not_text": lambda r: f"an action is a text token, not {r.text}",
    "not_an_action": lambda r: (
        f"not an action: {r.text} (expected D, C, U or a move such as R-T2, T2:3-T4)"
    ),
    "count_not_from_column": lambda r: (
        f"{r.text}: only a column's run has a card count; {r.pile} gives one card"
    ),
    "bad_run_count": lambda r: f"{r.text}: a run count is written only for 2 to {r.count} cards",
    "same_pile": lambda r: f"{r.text}: source and destination are the same pile",
    "no_pile_to_tap": lambda r: f"no pile {r.text} to tap: use S, R, W, F1-F4 or T1-T4",
    "no_card_at_index": lambda r: f"{r.pile} has no card at index {r.text}",
    # -- game codes -----------------------------------------------------------------------------
    "code_not_text": lambda r: f"a game code is text, not {r.text}",
    "not_three_parts": lambda r: (
        f"{r.text} is not a game code: expected three parts like CF1-D3-AAAAACL"
    ),
    "unknown_format": lambda r: f"{r.text}: unknown deal format {r.part} (CF1 or CF2)",
    "bad_mode": lambda r: (
        f"{r.text}: mode {r.part} must be D3 or D1 (app rules) or H3 or H1 (classic rules)"
    ),
    "bad_letters": lambda r: f"{r.text}: the deal number must be {r.count} capital letters A-Z",
    "bad_cf2_characters": lambda r: (
        f"{r.text}: a CF2 deal is {r.count} base58 characters (1-9, A-Z and a-z without O, I and l)"
    ),
    "check_mismatch": lambda r: f"{r.text}: the check characters do not match: mistyped code?",
    "past_last_deck": lambda r: f"{r.text}: not a deal: its number is past 52! - 1",
}
