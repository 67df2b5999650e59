"""What is left to decide in a position: can the game be finished with no decision (the Finish
button), and is no card able to move however often the stock is gone through (the stuck notice)?

Both are answers about the future, and the future holds the hidden cards: the stock's order and
the reserve below its top. A practice game may use them (hints exist there); a ranked daily
attempt in progress must not (PRODUCT.md, "Fair play"). So each question is asked in one of two
ways: ``sees_hidden=True`` answers from the whole position; ``sees_hidden=False`` answers only
what the player can know from what they can see and have seen, and says False otherwise.

What a player has seen, and why that is enough (each claim is what the answer relies on):

- Every card on the waste was face up when it was drawn (a draw turns up to three cards, all
  shown), so the waste's cards and their order are known to a player who watched.
- The stock holds only cards that have been on the waste once a recycle is in effect (the stock
  is empty when it is recycled, and afterwards only the waste, turned over, or an undone draw
  puts cards back on it). So with ``recycles > 0``, or an empty stock, the stock's order is known.
- Drawing one card at a time, every card of the stock and the waste becomes the waste's top card
  once in every pass, whatever their order: with draw 1 only *which* cards are there matters.
  With nothing hidden in the reserve (at most its top card), those are the cards not in sight.
- The reserve's cards below its top are never known here (a card seen once and put back by an
  undo is not counted: the answer may be False where a closer look could tell, never the reverse
  of what the hidden cards decide).

``finishable``: the rest of the game needs no decision. Playing a card to its foundation never
takes a foundation move away (the next card of that suit is the only one waiting), so "play
every foundation move there is, in any order; when there is none, draw, or recycle" reaches one
and the same position before each draw; the game is finishable when that line wins. The Finish
button plays exactly that line, one ordinary action at a time. Without the hidden cards it is
answered when the reserve hides nothing and the stock's order is known or does not matter
(draw 1).

``stuck``: no move is legal but drawing, recycling and undoing, and none ever will be by drawing
and recycling alone (the other piles do not change meanwhile, so only the cards that become the
waste's top card in the stock's cycle need looking at). Without the hidden cards it is answered
when the stock's order is known, or, with draw 1, when the reserve hides nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from .actions import COLUMNS, FOUNDATIONS, RESERVE, WASTE, Action
from .cards import FITS_ON, RANK_OF, SUIT_OF, Card, card

if TYPE_CHECKING:
    from .game import Canfield


class Outlook(NamedTuple):
    """The answers for one position (see the module's documentation)."""

    finishable: bool
    stuck: bool


def outlook(game: Canfield, legal: Iterable[Action], *, sees_hidden: bool) -> Outlook:
    """Both answers for ``game``'s position; ``legal``: its legal actions (as generated)."""
    if game.is_won():
        return Outlook(False, False)
    return Outlook(
        finishable(game, sees_hidden=sees_hidden),
        stuck(game, legal, sees_hidden=sees_hidden),
    )


def stock_is_known(game: Canfield) -> bool:
    """Has the player seen every card of the stock, in its order? (An empty stock: yes.)"""
    return not game.stock or game.recycles > 0


def _reserve_hides_nothing(game: Canfield) -> bool:
    return len(game.piles[RESERVE]) <= 1


def finishable(game: Canfield, *, sees_hidden: bool) -> bool:
    """Does "foundation moves while there are any, else draw or recycle" win from here?"""
    if game.is_won():
        return False
    if not sees_hidden and not (
        _reserve_hides_nothing(game) and (game.draw == 1 or stock_is_known(game))
    ):
        return False
    return _foundation_line_wins(game)


def stuck(game: Canfield, legal: Iterable[Action], *, sees_hidden: bool) -> bool:
    """No card can move, now or after any number of draws and recycles."""
    if game.is_won() or any(action.kind == "move" for action in legal):
        return False
    if not sees_hidden and not (
        stock_is_known(game) or (game.draw == 1 and _reserve_hides_nothing(game))
    ):
        return False
    return not any(_waste_card_moves(game, c) for c in _waste_tops(game))


# -- the two searches ----------------------------------------------------------------------------


def _waste_tops(game: Canfield) -> set[Card]:
    """Every card that is the waste's top card at some time while only drawing and recycling."""
    return _tops(list(game.stock), list(game.piles[WASTE]), game.draw)


def _tops(stock: list[Card], waste: list[Card], draw: int) -> set[Card]:
    """The waste's top cards, from ``stock`` (the last card is drawn next) and ``waste``, through
    the rest of this pass and one whole pass (after which the waste is as it was before the
    recycle, and everything repeats)."""
    tops = {waste[-1]} if waste else set()
    if draw == 1:
        return tops | set(stock) | set(waste)  # each card is on top once in every pass
    stock, waste = stock[:], waste[:]
    for _ in range(2):
        while stock:
            for _ in range(min(draw, len(stock))):
                waste.append(stock.pop())
            tops.add(waste[-1])
        stock, waste = waste[::-1], []
    return tops


def _waste_card_moves(game: Canfield, c: Card) -> bool:
    """Could ``c``, as the waste's top card, move in this position (the other piles as they are)?"""
    piles = game.piles
    foundation = piles[FOUNDATIONS[game.foundation_suits.index(SUIT_OF[c])]]
    if len(foundation) < 13 and RANK_OF[c] == (game.base_rank + len(foundation)) % 13:
        return True
    fits = FITS_ON[c]
    for k in COLUMNS:
        column = piles[k]
        if column:
            if fits[column[-1]]:
                return True
        elif not piles[RESERVE]:
            return True  # an empty column takes any card (the classic rules: the waste's too)
    return False


def _foundation_line_wins(game: Canfield) -> bool:
    """Plays, on copies of the piles, every foundation move there is (in any order: the position
    reached before a draw is the same), then draws, or recycles, until a card can be played again;
    wins, or stops when no card that the stock's cycle brings to the waste's top can be played
    (nothing will change after that)."""
    piles = game.piles
    reserve = list(piles[RESERVE])
    waste = list(piles[WASTE])
    stock = list(game.stock)
    columns = [list(piles[k]) for k in COLUMNS]
    base = game.base_rank
    draw = game.draw
    held = [0] * 4  # per suit: the cards on its foundation
    for i, f in enumerate(FOUNDATIONS):
        held[game.foundation_suits[i]] = len(piles[f])
    wanted = {card((base + n) % 13, suit) for suit, n in enumerate(held) if n < 13}
    left = 52 - sum(held)

    def place(c: Card) -> None:
        nonlocal left
        suit = SUIT_OF[c]
        held[suit] += 1
        wanted.discard(c)
        if held[suit] < 13:
            wanted.add(card((base + held[suit]) % 13, suit))
        left -= 1

    while True:
        played = True
        while played:
            played = False
            if reserve and reserve[-1] in wanted:
                place(reserve.pop())
                played = True
            if waste and waste[-1] in wanted:
                place(waste.pop())
                played = True
            for column in columns:
                if column and column[-1] in wanted:
                    place(column.pop())
                    if not column and reserve:
                        column.append(reserve.pop())  # the refill, as in a real move
                    played = True
        if not left:
            return True
        # Nothing to play but what drawing brings: only the waste's top cards can change that.
        if wanted.isdisjoint(_tops(stock, waste, draw)):
            return False
        while not (waste and waste[-1] in wanted):
            if not stock:
                stock, waste = waste[::-1], []
            for _ in range(min(draw, len(stock))):
                waste.append(stock.pop())
