"""The game's words in the active language: suits, ranks, cards and piles, for sentences that
name them (the engine's reasons, :mod:`games.sentences`). The pages' scripts name them alike
(``frontend/static/frontend/js/cards.js`` and ``words.js``, from the JavaScript catalog) where
they say a card or an action in words; a reason they only show, as the server words it.

Cards and piles come as the engine writes them: ``"QC"``, ``"T2"``.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import pgettext


def suit_name(suit: str) -> str:
    """A suit (S, H, D, C) as a plural noun: "hearts"."""
    return {
        "S": pgettext("suit", "spades"),
        "H": pgettext("suit", "hearts"),
        "D": pgettext("suit", "diamonds"),
        "C": pgettext("suit", "clubs"),
    }[suit]


def rank_name(rank: str) -> str:
    """A rank (A, 2..9, T, J, Q, K) by name: "seven"."""
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


def any_card_of_rank(rank: str) -> str:
    """Any card of a rank, as the subject or object of a sentence: "a queen", "an eight"."""
    return {
        "A": pgettext("any card of a rank", "an ace"),
        "2": pgettext("any card of a rank", "a two"),
        "3": pgettext("any card of a rank", "a three"),
        "4": pgettext("any card of a rank", "a four"),
        "5": pgettext("any card of a rank", "a five"),
        "6": pgettext("any card of a rank", "a six"),
        "7": pgettext("any card of a rank", "a seven"),
        "8": pgettext("any card of a rank", "an eight"),
        "9": pgettext("any card of a rank", "a nine"),
        "T": pgettext("any card of a rank", "a ten"),
        "J": pgettext("any card of a rank", "a jack"),
        "Q": pgettext("any card of a rank", "a queen"),
        "K": pgettext("any card of a rank", "a king"),
    }[rank]


def card_name(text: str) -> str:
    """``"QC"`` -> "queen of clubs" (the pages say it the same way)."""
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
    """A pile of the notation (R, W, F1-F4, T1-T4) by name: "the reserve", "column 2"."""
    if pile == "R":
        return pgettext("pile in a sentence", "the reserve")
    if pile == "W":
        return pgettext("pile in a sentence", "the waste")
    if pile.startswith("F"):
        return pgettext("pile in a sentence", "foundation %(n)s") % {"n": pile[1:]}
    return pgettext("pile in a sentence", "column %(n)s") % {"n": pile[1:]}
