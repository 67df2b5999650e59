"""What is left to decide in a position: can the game be finished with no decision (the Finish
button), and is it stuck for good (the stuck notice)?

Both are answers about the future, and the future holds the hidden cards: the stock's order and
the reserve below its top. A practice game may use them for Finish (hints exist there); a ranked
daily attempt in progress must not (PRODUCT.md, "Fair play"). So ``finishable`` is asked in one
of two ways: ``sees_hidden=True`` answers from the whole position; ``sees_hidden=False`` answers
only what the player can know from what they can see and have seen, and says False otherwise.
``stuck`` is always answered from what the player sees, in every game kind.

What a player has seen, and why that is enough (each claim is what the answers rely on):

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
button plays exactly that line (``finish_line``), as ordinary actions. Without the hidden cards
it is answered when the reserve hides nothing and the stock's order is known or does not matter
(draw 1).

``stuck``: stuck for good. No line of moves that uses only the cards the player sees and has seen
brings a new card into sight or puts a card on a foundation beyond the cards there now (a card
taken back and placed again is no progress); back-and-forth moves may be left. The search that
decides it, and what it costs, are in ``progress``: it stops at the first move that would turn a
card up, so no hidden card can change the answer, and past its bound it says False (no notice
without a proof).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .actions import COLUMNS, DRAW, FOUNDATIONS, RECYCLE, RESERVE, WASTE, Action
from .cards import SUIT_OF, Card, card
from .progress import Sight, look_ahead, waste_tops

if TYPE_CHECKING:
    from .game import Canfield


class Outlook(NamedTuple):
    """The answers for one position (see the module's documentation)."""

    finishable: bool
    stuck: bool


def outlook(game: Canfield, *, sees_hidden: bool) -> Outlook:
    """Both answers for ``game``'s position (``sees_hidden``: for ``finishable`` only)."""
    if game.is_won():
        return Outlook(False, False)
    return Outlook(finishable(game, sees_hidden=sees_hidden), stuck(game))


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


def finish_line(game: Canfield, *, sees_hidden: bool) -> list[Action]:
    """The ordinary actions the Finish button plays from ``game``'s position, in order, until the
    win: every foundation move there is — the reserve's top card, the waste's, then the columns'
    (T1 to T4), the first of them each time — else a draw, or a recycle. A column emptied is
    refilled from the reserve as part of its move, as in any move. Empty when the position is not
    :func:`finishable` (with the same ``sees_hidden``). Played on a copy: ``game`` is unchanged,
    and each action is legal in turn in the engine."""
    if not finishable(game, sees_hidden=sees_hidden):
        return []
    board = game.copy()
    piles = board.piles
    home = {suit: FOUNDATIONS[i] for i, suit in enumerate(board.foundation_suits)}
    line: list[Action] = []
    idle = 0  # draws and recycles since the last card went home
    while not board.is_won():
        wanted = {_next_card(board, f) for f in FOUNDATIONS}
        source = next((p for p in _SOURCES if piles[p] and piles[p][-1] in wanted), None)
        if source is not None:
            action = Action.move(source, home[SUIT_OF[piles[source][-1]]])
            idle = 0
        else:
            action = DRAW if board.stock else RECYCLE
            idle += 1
            if idle > 2 * (len(board.stock) + len(piles[WASTE])) + 2:  # (finishable said yes)
                raise AssertionError("the foundation line does not win from a finishable game")
        board.push(action)
        line.append(action)
    return line


def _next_card(game: Canfield, foundation: int) -> Card:
    """The card ``foundation`` takes next (-1: it is complete)."""
    held = len(game.piles[foundation])
    if held == 13:
        return -1
    suit = game.foundation_suits[foundation - FOUNDATIONS[0]]
    return card((game.base_rank + held) % 13, suit)


#: Where Finish looks for a card to play home, in this order.
_SOURCES = (RESERVE, WASTE, *COLUMNS)


def stuck(game: Canfield) -> bool:
    """Stuck for good, from what the player sees: proved by ``progress.look_ahead``."""
    if game.is_won() or not stock_is_known(game):
        return False  # (the next draw turns up cards the player has not seen: the quickest out)
    return look_ahead(sight(game)).outcome == "no_progress"


def sight(game: Canfield) -> Sight:
    """What the player sees of ``game``'s position, and nothing else: the reserve's top card and
    count, the waste, the stock only when its order is known, the foundations, the columns."""
    piles = game.piles
    reserve = piles[RESERVE]
    waste = piles[WASTE]
    held = [0] * 4
    for i, f in enumerate(FOUNDATIONS):
        held[game.foundation_suits[i]] = len(piles[f])
    known = stock_is_known(game)
    talon = bytes(waste) + bytes(reversed(game.stock)) if known else bytes(waste)
    columns = [bytes(piles[k]) for k in COLUMNS]
    return Sight(
        draw=game.draw,
        classic=game.classic,
        base_rank=game.base_rank,
        reserve_top=reserve[-1] if reserve else -1,
        reserve_count=len(reserve),
        talon=talon,
        on_waste=len(waste),
        unseen_stock=not known,
        foundations=(held[0], held[1], held[2], held[3]),
        columns=(columns[0], columns[1], columns[2], columns[3]),
    )


# -- the foundation line --------------------------------------------------------------------------


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
        talon = bytes(waste) + bytes(reversed(stock))
        if wanted.isdisjoint(c for _, c in waste_tops(talon, len(waste), draw)):
            return False
        while not (waste and waste[-1] in wanted):
            if not stock:
                stock, waste = waste[::-1], []
            for _ in range(min(draw, len(stock))):
                waste.append(stock.pop())
