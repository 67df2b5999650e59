"""The engine's reasons in the active language.

A refusal of the engine is a :class:`~games.engine.Reason`: a code and the cards, piles and
numbers it names. :func:`describe` renders it from those, through the catalogs, in whatever
language is active — English included (the engine's own English says the same for every rule
of the game: tested) — and never from the engine's English sentence, so rewording that one
changes no other language. Cards and piles are named in words (:mod:`games.words`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import Reason, ReasonCode
from games.words import any_card_of_rank, card_name, pile_name, rank_name, suit_name


def describe(reason: Reason) -> str:
    """The sentence that says ``reason`` in the active language."""
    text = SENTENCES[reason.code](reason)
    return text[:1].upper() + text[1:]


def general(code: str) -> str:
    """A sentence for an engine error of a service's ``code`` (``illegal_action``,
    ``bad_notation``, ``invalid_code``) that carries no reason."""
    if code == "bad_notation":
        return _("This is not an action in the game's notation.")
    if code == "invalid_code":
        return _("This is not a game code: a code looks like CF1-D3-AAAAACL.")
    return _("The rules do not allow this action now.")


def _given(value: str | None) -> str:
    """A field the reason's code always sets."""
    if value is None:
        raise ValueError("a field this reason's code needs is missing")
    return value


def _count(value: int | None) -> int:
    if value is None:
        raise ValueError("a number this reason's code needs is missing")
    return value


def _card(reason: Reason) -> str:
    return card_name(_given(reason.card))


def _target(reason: Reason) -> str:
    return card_name(_given(reason.target))


def _pile(reason: Reason) -> str:
    return pile_name(_given(reason.pile))


def _stock_not_empty(r: Reason) -> str:
    count = _count(r.count)
    return ngettext(
        "The stock still holds %(count)d card: draw instead.",
        "The stock still holds %(count)d cards: draw instead.",
        count,
    ) % {"count": count}


def _undo_limit(r: Reason) -> str:
    count = _count(r.count)
    return ngettext(
        "Only the last action can be undone.",
        "Only the last %(count)d actions can be undone.",
        count,
    ) % {"count": count}


def _no_run(r: Reason) -> str:
    count = _count(r.count)
    return ngettext(
        "%(pile)s holds %(count)d card: it has no run of %(run)s.",
        "%(pile)s holds %(count)d cards: it has no run of %(run)s.",
        count,
    ) % {"pile": _pile(r), "count": count, "run": _count(r.run)}


#: The sentence of each code.
SENTENCES: Final[dict[ReasonCode, Callable[[Reason], str]]] = {
    # -- the rules -------------------------------------------------------------------------------
    "game_won": lambda r: _("The game is won: it accepts no further action."),
    "stock_empty": lambda r: _("The stock is empty: turn the waste over instead."),
    "stock_and_waste_empty": lambda r: _("The stock and the waste are both empty."),
    "stock_not_empty": _stock_not_empty,
    "waste_empty": lambda r: _("Nothing to turn over: the waste is empty."),
    "undo_limit": _undo_limit,
    "nothing_to_undo": lambda r: _("Nothing to undo."),
    "pile_empty": lambda r: _("%(pile)s is empty.") % {"pile": _pile(r)},
    "one_card_from_pile": lambda r: (
        _("Only one card at a time comes from %(pile)s.") % {"pile": _pile(r)}
    ),
    "no_run": _no_run,
    "one_card_to_foundation": lambda r: _("Only one card at a time goes to a foundation."),
    "foundation_to_foundation": lambda r: _("A foundation card never goes to another foundation."),
    "wrong_suit": lambda r: (
        _("The %(card)s cannot go to %(pile)s: it holds %(suit)s, not %(other)s.")
        % {
            "card": _card(r),
            "pile": _pile(r),
            "suit": suit_name(_given(r.suit)),
            "other": suit_name(_given(r.card)[1]),
        }
    ),
    "foundation_complete": lambda r: (
        _("The %(suit)s foundation is complete.") % {"suit": suit_name(_given(r.suit))}
    ),
    "not_starting_rank": lambda r: (
        _("The %(suit)s foundation starts with the %(rank)s.")
        % {"suit": suit_name(_given(r.target)[1]), "rank": rank_name(_given(r.target)[0])}
    ),
    "not_next_rank": lambda r: (
        _("The %(card)s cannot go to %(pile)s: it needs the %(needed)s next.")
        % {"card": _card(r), "pile": _pile(r), "needed": _target(r)}
    ),
    "not_a_destination": lambda r: _("No card goes to %(pile)s.") % {"pile": _pile(r)},
    "own_column": lambda r: _("A run cannot move onto its own column."),
    "classic_no_take_back": lambda r: _("Classic rules: no card is taken back from a foundation."),
    "classic_whole_column": lambda r: _(
        "Classic rules: cards move between columns only as a whole pile."
    ),
    "same_colour": lambda r: (
        _("The %(card)s cannot go on the %(target)s: they are the same colour.")
        % {"card": _card(r), "target": _target(r)}
    ),
    "not_one_rank_lower": lambda r: (
        _("The %(card)s cannot go on the %(target)s: %(rank)s goes on %(wanted)s.")
        % {
            "card": _card(r),
            "target": _target(r),
            "rank": any_card_of_rank(_given(r.card)[0]),
            "wanted": any_card_of_rank(_given(r.rank)),
        }
    ),
    "empty_needs_reserve": lambda r: (
        _("%(pile)s is empty and waits for the reserve.") % {"pile": _pile(r)}
    ),
    "classic_empty_column": lambda r: _(
        "Classic rules: an empty column takes only the waste's top card."
    ),
    # -- tokens and taps -------------------------------------------------------------------------
    "action_not_text": lambda r: _("An action is a text token."),
    "not_an_action": lambda r: (
        _("%(token)s is not an action: expected D, C, U or a move such as R-T2 or T2:3-T4.")
        % {"token": _given(r.text)}
    ),
    "count_not_from_column": lambda r: (
        _("%(token)s: only a run from a column has a card count.") % {"token": _given(r.text)}
    ),
    "bad_run_count": lambda r: (
        _("%(token)s: a run count is written only for 2 to %(max)s cards.")
        % {"token": _given(r.text), "max": _count(r.count)}
    ),
    "same_pile": lambda r: (
        _("%(token)s: the source and the destination are the same pile.")
        % {"token": _given(r.text)}
    ),
    "no_pile_to_tap": lambda r: (
        _("There is no pile %(pile)s to tap: use S, R, W, F1-F4 or T1-T4.")
        % {"pile": _given(r.text)}
    ),
    "no_card_at_index": lambda r: (
        _("%(pile)s has no card at index %(index)s.") % {"pile": _pile(r), "index": _given(r.text)}
    ),
    # -- game codes ------------------------------------------------------------------------------
    "code_not_text": lambda r: _("A game code is text."),
    "not_three_parts": lambda r: (
        _("%(code)s is not a game code: a code looks like CF1-D3-AAAAACL.")
        % {"code": _given(r.text)}
    ),
    "unknown_format": lambda r: (
        _("%(code)s: the deal format must be CF1 or CF2.") % {"code": _given(r.text)}
    ),
    "bad_mode": lambda r: (
        _("%(code)s: the mode must be D3 or D1 (standard rules) or H3 or H1 (classic rules).")
        % {"code": _given(r.text)}
    ),
    "bad_letters": lambda r: (
        _("%(code)s: the deal number must be %(count)s capital letters A-Z.")
        % {"code": _given(r.text), "count": _count(r.count)}
    ),
    "bad_cf2_characters": lambda r: (
        _(
            "%(code)s: a CF2 code ends with %(count)s characters: the digits 1-9 and the "
            "letters A-Z and a-z but O, I and l."
        )
        % {"code": _given(r.text), "count": _count(r.count)}
    ),
    "check_mismatch": lambda r: (
        _("%(code)s: the check characters do not match. Was the code mistyped?")
        % {"code": _given(r.text)}
    ),
    "past_last_deck": lambda r: (
        _("%(code)s: its number is past the last deal.") % {"code": _given(r.text)}
    ),
}
