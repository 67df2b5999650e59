"""The engine's refusals in the request's language.

The rules engine (``games.engine``) is pure Python and speaks English: its reasons ("7H cannot
go on 8D: same colour") come from a fixed set of templates. Each template has a pattern here and
a translatable sentence with the same placeholders, the cards and piles named in the reader's
language. The API (``canfield_site.api_errors``) passes every ``illegal_action``,
``bad_notation`` and ``invalid_code`` message through :func:`translate`; the ``code`` never
changes. A reason no pattern knows (a new template in the engine) gets a general sentence for
its code, so that no English is left; ``tests/i18n/test_engine_messages.py`` checks that every
reason the engine gives in real positions has its pattern.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.utils.translation import get_language, ngettext, pgettext
from django.utils.translation import gettext as _

#: A card as the engine writes it: rank A23456789TJQK, suit SHDC.
_CARD = r"[A2-9TJQK][SHDC]"
_PILE = r"R|W|F[1-4]|T[1-4]"


def suit_name(suit: str) -> str:
    """A suit's name (S, H, D, C) as a plural noun ("hearts")."""
    return {
        "S": pgettext("suit", "spades"),
        "H": pgettext("suit", "hearts"),
        "D": pgettext("suit", "diamonds"),
        "C": pgettext("suit", "clubs"),
    }[suit]


def rank_name(rank: str) -> str:
    """A rank's name (A, 2..9, T, J, Q, K)."""
    return {
        "A": pgettext("rank", "ace"),
        "2": pgettext("rank", "two"),
        "3": pgettext("rank", "three"),
        "4": pgettext("rank", "four"),
        "5": pgettext("rank", "five"),
        "6": pgettext("rank", "six"),
        "7": pgettext("rank", "seven"),
        "8": pgettext("rank", "eight"),
        "9": pgettext("rank", "nine"),
        "T": pgettext("rank", "ten"),
        "J": pgettext("rank", "jack"),
        "Q": pgettext("rank", "queen"),
        "K": pgettext("rank", "king"),
    }[rank]


def card_name(text: str) -> str:
    """``"QC"`` -> "queen of clubs", in the active language (the pages say it the same way)."""
    rank, suit = text[:-1], text[-1]
    suit_in_name = {
        "S": pgettext("suit in a card's name", "spades"),
        "H": pgettext("suit in a card's name", "hearts"),
        "D": pgettext("suit in a card's name", "diamonds"),
        "C": pgettext("suit in a card's name", "clubs"),
    }[suit]
    template = {
        "A": _("ace of %(suit)s"),
        "2": _("two of %(suit)s"),
        "3": _("three of %(suit)s"),
        "4": _("four of %(suit)s"),
        "5": _("five of %(suit)s"),
        "6": _("six of %(suit)s"),
        "7": _("seven of %(suit)s"),
        "8": _("eight of %(suit)s"),
        "9": _("nine of %(suit)s"),
        "T": _("ten of %(suit)s"),
        "J": _("jack of %(suit)s"),
        "Q": _("queen of %(suit)s"),
        "K": _("king of %(suit)s"),
    }[rank]
    return template % {"suit": suit_in_name}


def pile_name(pile: str) -> str:
    """A pile of the notation (R, W, F1-F4, T1-T4, S) by name: "the reserve", "column 2"."""
    if pile == "R":
        return pgettext("pile in a sentence", "the reserve")
    if pile == "W":
        return pgettext("pile in a sentence", "the waste")
    if pile == "S":
        return pgettext("pile in a sentence", "the stock")
    if pile.startswith("F"):
        return pgettext("pile in a sentence", "foundation %(n)s") % {"n": pile[1:]}
    return pgettext("pile in a sentence", "column %(n)s") % {"n": pile[1:]}


def _titled(text: str) -> str:
    """The engine's pile titles ("the reserve", "foundation F2", "column T3") back to notation."""
    return {"the reserve": "R", "the waste": "W"}.get(text) or text.split()[-1]


def _cards(count: int) -> str:
    return ngettext("%(count)d card", "%(count)d cards", count) % {"count": count}


_SUIT_BY_NAME: dict[str, str] = {"spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C"}

_Rule = tuple[re.Pattern[str], Callable[[dict[str, str]], str]]
_PILE_TITLE = r"the reserve|the waste|foundation F[1-4]|column T[1-4]"

_RULES: list[_Rule] = [
    # -- refusals of the rules (illegal_action) -----------------------------------------------
    (
        re.compile(r"the game is won: it accepts no further action"),
        lambda m: _("The game is won: it accepts no further action."),
    ),
    (
        re.compile(r"the stock is empty: recycle the waste instead"),
        lambda m: _("The stock is empty: turn the waste over instead."),
    ),
    (
        re.compile(r"the stock and the waste are both empty"),
        lambda m: _("The stock and the waste are both empty."),
    ),
    (
        re.compile(r"the stock still holds (?P<n>\d+) cards?: draw instead"),
        lambda m: (
            ngettext(
                "The stock still holds %(count)d card: draw instead.",
                "The stock still holds %(count)d cards: draw instead.",
                int(m["n"]),
            )
            % {"count": int(m["n"])}
        ),
    ),
    (
        re.compile(r"nothing to recycle: the waste is empty"),
        lambda m: _("Nothing to turn over: the waste is empty."),
    ),
    (
        re.compile(r"only the last (?P<n>\d+) actions can be undone"),
        lambda m: (
            ngettext(
                "Only the last action can be undone.",
                "Only the last %(count)d actions can be undone.",
                int(m["n"]),
            )
            % {"count": int(m["n"])}
        ),
    ),
    (re.compile(r"nothing to undo"), lambda m: _("Nothing to undo.")),
    (
        re.compile(rf"only one card at a time comes from (?P<pile>{_PILE_TITLE})"),
        lambda m: (
            _("Only one card at a time comes from %(pile)s.")
            % {"pile": pile_name(_titled(m["pile"]))}
        ),
    ),
    (
        re.compile(
            rf"(?P<pile>{_PILE_TITLE}) holds (?P<n>\d+) cards?: it has no run of (?P<k>\d+)"
        ),
        lambda m: (
            ngettext(
                "%(pile)s holds %(count)d card: it has no run of %(run)s.",
                "%(pile)s holds %(count)d cards: it has no run of %(run)s.",
                int(m["n"]),
            )
            % {"pile": _capital(pile_name(_titled(m["pile"]))), "count": int(m["n"]), "run": m["k"]}
        ),
    ),
    (
        re.compile(rf"(?P<pile>{_PILE_TITLE}) is empty"),
        lambda m: _("%(pile)s is empty.") % {"pile": _capital(pile_name(_titled(m["pile"])))},
    ),
    (
        re.compile(r"(?:'[^']*': )?only one card at a time goes to a foundation"),
        lambda m: _("Only one card at a time goes to a foundation."),
    ),
    (
        re.compile(r"(?:'[^']*': )?a foundation card never goes to another foundation"),
        lambda m: _("A foundation card never goes to another foundation."),
    ),
    (
        re.compile(
            rf"(?P<card>{_CARD}) cannot go to (?P<pile>F[1-4]): "
            r"it holds (?P<suit>\w+), not (?P<other>\w+)"
        ),
        lambda m: (
            _("The %(card)s cannot go to %(pile)s: it holds %(suit)s, not %(other)s.")
            % {
                "card": card_name(m["card"]),
                "pile": pile_name(m["pile"]),
                "suit": suit_name(_SUIT_BY_NAME[m["suit"]]),
                "other": suit_name(_SUIT_BY_NAME[m["other"]]),
            }
        ),
    ),
    (
        re.compile(r"the (?P<suit>\w+) foundation is complete"),
        lambda m: (
            _("The %(suit)s foundation is complete.")
            % {"suit": suit_name(_SUIT_BY_NAME[m["suit"]])}
        ),
    ),
    (
        re.compile(r"(?P<suit>spades|hearts|diamonds|clubs) start at (?P<rank>[A2-9TJQK])"),
        lambda m: (
            _("The %(suit)s foundation starts with the %(rank)s.")
            % {"suit": suit_name(_SUIT_BY_NAME[m["suit"]]), "rank": rank_name(m["rank"])}
        ),
    ),
    (
        re.compile(
            rf"(?P<card>{_CARD}) cannot go to (?P<pile>F[1-4]): it needs (?P<needed>{_CARD}) next"
        ),
        lambda m: (
            _("The %(card)s cannot go to %(pile)s: it needs the %(needed)s next.")
            % {
                "card": card_name(m["card"]),
                "pile": pile_name(m["pile"]),
                "needed": card_name(m["needed"]),
            }
        ),
    ),
    (
        re.compile(rf"no card goes to (?P<pile>{_PILE_TITLE})"),
        lambda m: _("No card goes to %(pile)s.") % {"pile": pile_name(_titled(m["pile"]))},
    ),
    (
        re.compile(r"a run cannot move onto its own column"),
        lambda m: _("A run cannot move onto its own column."),
    ),
    (
        re.compile(r"classic rules: no card is taken back from a foundation"),
        lambda m: _("Classic rules: no card is taken back from a foundation."),
    ),
    (
        re.compile(r"classic rules: cards move between columns only as a whole pile"),
        lambda m: _("Classic rules: cards move between columns only as a whole pile."),
    ),
    (
        re.compile(rf"(?P<card>{_CARD}) cannot go on (?P<target>{_CARD}): same colour"),
        lambda m: (
            _("The %(card)s cannot go on the %(target)s: they are the same colour.")
            % {"card": card_name(m["card"]), "target": card_name(m["target"])}
        ),
    ),
    (
        re.compile(
            rf"(?P<card>{_CARD}) cannot go on (?P<target>{_CARD}): "
            r"an? (?P<rank>[A2-9TJQK]) goes on an? (?P<wanted>[A2-9TJQK])"
        ),
        lambda m: (
            _("The %(card)s cannot go on the %(target)s: a %(rank)s goes on a %(wanted)s.")
            % {
                "card": card_name(m["card"]),
                "target": card_name(m["target"]),
                "rank": rank_name(m["rank"]),
                "wanted": rank_name(m["wanted"]),
            }
        ),
    ),
    (
        re.compile(rf"(?P<pile>{_PILE}) is empty and waits for the reserve"),
        lambda m: (
            _("%(pile)s is empty and waits for the reserve.")
            % {"pile": _capital(pile_name(m["pile"]))}
        ),
    ),
    (
        re.compile(r"classic rules: an empty column takes only the waste's top card"),
        lambda m: _("Classic rules: an empty column takes only the waste's top card."),
    ),
    # -- text that is not an action (bad_notation) --------------------------------------------
    (
        re.compile(r"not an action: (?P<token>.*) \(expected D, C, U or a move such as .*\)"),
        lambda m: (
            _("%(token)s is not an action: expected D, C, U or a move such as R-T2 or T2:3-T4.")
            % {"token": m["token"]}
        ),
    ),
    (
        re.compile(r"(?P<token>'.*'): only a column's run has a card count; \w+ gives one card"),
        lambda m: (
            _("%(token)s: only a run from a column has a card count.") % {"token": m["token"]}
        ),
    ),
    (
        re.compile(r"(?P<token>'.*'): a run count is written only for 2 to (?P<n>\d+) cards"),
        lambda m: (
            _("%(token)s: a run count is written only for 2 to %(max)s cards.")
            % {"token": m["token"], "max": m["n"]}
        ),
    ),
    (
        re.compile(r"(?P<token>'.*'): source and destination are the same pile"),
        lambda m: (
            _("%(token)s: the source and the destination are the same pile.")
            % {"token": m["token"]}
        ),
    ),
    (
        re.compile(r"an action is a text token, not .*"),
        lambda m: _("An action is a text token."),
    ),
    (
        re.compile(r"no pile (?P<pile>.*) to tap: use S, R, W, F1-F4 or T1-T4"),
        lambda m: (
            _("There is no pile %(pile)s to tap: use S, R, W, F1-F4 or T1-T4.")
            % {"pile": m["pile"]}
        ),
    ),
    (
        re.compile(rf"(?P<pile>{_PILE}) has no card at index (?P<index>.*)"),
        lambda m: (
            _("%(pile)s has no card at index %(index)s.")
            % {"pile": _capital(pile_name(m["pile"])), "index": m["index"]}
        ),
    ),
    # -- game codes (invalid_code) ------------------------------------------------------------
    (
        re.compile(r"(?P<code>'.*'): the check characters do not match: mistyped code\?"),
        lambda m: (
            _("%(code)s: the check characters do not match. Was the code mistyped?")
            % {"code": m["code"]}
        ),
    ),
    (
        re.compile(r"(?P<code>'.*'): mode '.*' must be D3 or D1 \(app rules\) or H3 or H1.*"),
        lambda m: (
            _("%(code)s: the mode must be D3 or D1 (standard rules) or H3 or H1 (classic rules).")
            % {"code": m["code"]}
        ),
    ),
    (
        re.compile(r"(?P<code>'.*'): the deal number must be (?P<n>\d+) capital letters A-Z"),
        lambda m: (
            _("%(code)s: the deal number must be %(count)s capital letters A-Z.")
            % {"code": m["code"], "count": m["n"]}
        ),
    ),
]

#: What a message no pattern knows becomes, by its code.
_GENERAL: dict[str, Callable[[], str]] = {
    "illegal_action": lambda: _("The rules do not allow this action now."),
    "bad_notation": lambda: _("This is not an action in the game's notation."),
    "invalid_code": lambda: _("This is not a game code: a code looks like CF1-D3-AAAAACL."),
}


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def known(message: str) -> bool:
    """Whether a pattern of the table reads the engine's ``message``."""
    return any(pattern.fullmatch(message) for pattern, _render in _RULES)


def translate(code: str, message: str) -> str:
    """The engine's ``message`` (for an error ``code``) in the active language. English gets the
    engine's own words, unchanged."""
    if code not in _GENERAL or (get_language() or "en").split("-")[0] == "en":
        return message
    for pattern, render in _RULES:
        match = pattern.fullmatch(message)
        if match is not None:
            return _capital(render(match.groupdict()))
    return _GENERAL[code]()
