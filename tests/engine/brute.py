"""An unpruned search for the solver's tests, and positions built to feed it.

``brute_force`` uses nothing but the engine — ``generate_legal``, ``push`` and ``pop`` — with a
visited set over the whole position (every pile in order, and the stock); it leaves out only undo,
which reaches no position that the other actions cannot. It is exhaustive, so on a position with
few cards left it says exactly whether a win exists.
"""

from __future__ import annotations

import random

from games.engine import Canfield, parse_card
from games.engine.cards import FITS_ON, card


class TooBig(Exception):
    """The position has more reachable positions than the search was allowed."""


def brute_force(game: Canfield, limit: int = 200_000) -> bool:
    """Whether some sequence of legal actions wins from ``game``'s position (restored after).
    Raises :class:`TooBig` past ``limit`` positions."""
    if game.is_won():
        return True
    seen = {game.position_key()}
    stack = [[a for a in game.generate_legal() if a.kind != "undo"]]
    pushed = 0
    try:
        while stack:
            todo = stack[-1]
            if not todo:
                stack.pop()
                if pushed:
                    game.pop()
                    pushed -= 1
                continue
            game.push(todo.pop())
            key = game.position_key()
            if key in seen:
                game.pop()
                continue
            if game.is_won():
                game.pop()
                return True
            seen.add(key)
            if len(seen) > limit:
                game.pop()
                raise TooBig(f"more than {limit} positions")
            pushed += 1
            stack.append([a for a in game.generate_legal() if a.kind != "undo"])
        return False
    finally:
        for _ in range(pushed):
            game.pop()


def position(
    code: str,
    *,
    foundations: tuple[int, int, int, int],
    reserve: str = "",
    waste: str = "",
    stock: str = "",
    columns: tuple[str, str, str, str] = ("", "", "", ""),
    fill: bool = False,
) -> Canfield:
    """A game of ``code`` (its rules, draw mode and base card) set to the position given: how many
    cards each foundation holds (in order from the base rank), and the other piles as cards
    separated by spaces, bottom first — the stock too, so its last card is drawn first. Every card
    must be somewhere, once; with ``fill``, the cards not given go under the stock (drawn last)."""
    game = Canfield(code)
    suits = game.foundation_suits
    for i in range(4):
        game.piles[2 + i][:] = [
            card((game.base_rank + n) % 13, suits[i]) for n in range(foundations[i])
        ]
    for pile, text in ((0, reserve), (1, waste), *((6 + k, columns[k]) for k in range(4))):
        game.piles[pile][:] = [parse_card(t) for t in text.split()]
    game.stock[:] = [parse_card(t) for t in stock.split()]
    if fill:
        placed = {c for pile in game.piles for c in pile} | set(game.stock)
        game.stock[:0] = [c for c in range(52) if c not in placed]
    everything = [c for pile in game.piles for c in pile] + game.stock
    assert sorted(everything) == list(range(52)), "every card once"
    return game


def late_position(code: str, rng: random.Random, left: int) -> Canfield:
    """A position of the deal ``code``'s rules with ``left`` cards off the foundations, dealt at
    random to the reserve, the columns (as runs: each card fits the one under it) and the talon,
    split at random between stock and waste. As in play, a column is empty only when the reserve
    is."""
    game = Canfield(code)
    base = game.base_rank
    suits = game.foundation_suits
    counts = [13] * 4
    for _ in range(left):
        counts[rng.choice([i for i in range(4) if counts[i]])] -= 1
    loose = [card((base + n) % 13, suits[i]) for i in range(4) for n in range(counts[i], 13)]
    rng.shuffle(loose)
    reserve: list[int] = []
    talon: list[int] = []
    columns: list[list[int]] = [[], [], [], []]
    for c in loose:
        where = rng.random()
        fits = [col for col in columns if col and FITS_ON[c][col[-1]]]
        if fits and where < 0.5:
            rng.choice(fits).append(c)
        elif where < 0.65 and [] in columns:
            columns[columns.index([])].append(c)
        elif where < 0.8:
            reserve.append(c)
        else:
            talon.append(c)
    while len(reserve) > 13:  # a reserve never holds more
        talon.append(reserve.pop())
    for col in columns:  # as the refill would have
        if not col and reserve:
            col.append(reserve.pop())
    split = rng.randint(0, len(talon))
    game.piles[0][:] = reserve
    game.piles[1][:] = talon[:split]
    game.stock[:] = talon[split:][::-1]
    for i in range(4):
        game.piles[2 + i][:] = [card((base + n) % 13, suits[i]) for n in range(counts[i])]
        game.piles[6 + i][:] = columns[i]
    return game
