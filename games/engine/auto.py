"""Cards home by themselves: which card, if any, is *safe* to move to its foundation — a card no
play can need anywhere else (the page's "cards home by themselves" setting plays it, as an
ordinary logged action).

The rule is the one the known solitaire programs use for their automatic moves ("safe
autoplay"), adapted to Canfield's foundations, which start at the base rank and wrap (K → A):

    A card is safe to move home when its foundation takes it now (a move to a foundation in
    the position's legal actions, from the reserve, the waste or a column — never a take-back),
    and both foundations of the other colour already hold their card of the rank before it.

In a column a card is only ever needed as a place for the two cards of the other colour of the
rank before it (columns build down in alternating colours, wrapping: a K goes on an A). Once both
of those are on their foundations, nothing can be built on the card any more, so sending it home
loses nothing. Counted along the foundations: a card ``p`` places above the base rank (the base
rank itself is 0) is safe when both other-colour foundations hold at least ``p`` cards. The rank
before the base rank is the last of every foundation, so a card of the base rank is safe only once
both other-colour foundations are complete: unlike a Klondike ace, a card can be built on it.

Only what the player sees is read (the player view: the foundations, the playable cards and the
legal actions), so the answer is the same in every kind of game, a daily attempt included. When
several cards are safe, the first in the order of the legal actions is named (the reserve, the
waste, then columns T1–T4): one at a time, each asked again after the move before it.
"""

from __future__ import annotations

from .actions import Action
from .cards import RANKS
from .game import Canfield, PlayerView

__all__ = ["is_safe", "safe_home", "safe_home_of"]

#: The suits of each colour, as the views spell them.
_RED = frozenset("HD")


def _rank(card: str) -> int:
    return RANKS.index(card[0])


def _is_red(suit: str) -> bool:
    return suit in _RED


def is_safe(card: str, view: PlayerView) -> bool:
    """Whether ``card`` (its text, e.g. ``"8H"``), once on its foundation, can be needed by no
    play: both foundations of the other colour hold at least as many cards as ``card`` stands
    places above the base rank — and all 13 for a card of the base rank."""
    foundations = view["foundations"]
    start = _rank(foundations[0]["start"])
    place = (_rank(card) - start) % 13  # 0 for the base rank
    needed = place if place else 13  # (the rank before the base rank comes last)
    red = _is_red(card[1])
    others = [f for f in foundations if _is_red(f["suit"]) != red]
    return all(len(f["cards"]) >= needed for f in others)


def _top(view: PlayerView, pile: str) -> str | None:
    """The card a one-card move from ``pile`` (R, W, T1–T4) plays."""
    if pile == "R":
        return view["reserve"]["top"]
    if pile == "W":
        cards = view["waste"]["cards"]
        return cards[-1] if cards else None
    if pile.startswith("T"):
        column = view["columns"][int(pile[1:]) - 1]
        return column[-1] if column else None
    return None


def safe_home(view: PlayerView) -> str | None:
    """The token of the first legal move of a safe card to its foundation in the position
    ``view`` shows (``Canfield.player_view()``), or ``None`` when no card is safe."""
    for token in view["legal"]:
        if "-F" not in token:
            continue
        src, _, _dst = token.partition("-")
        if src.startswith("F") or ":" in src:
            continue  # (a take-back; a run never goes home)
        card = _top(view, src)
        if card is not None and is_safe(card, view):
            return token
    return None


def safe_home_of(game: Canfield) -> Action | None:
    """:func:`safe_home` of ``game``'s position, as an action."""
    token = safe_home(game.player_view(look_ahead=False))
    return None if token is None else Action.parse(token)
