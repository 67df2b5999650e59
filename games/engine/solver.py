"""A depth-first solver: finds a winning line from a position, if it finds one in time.

It tries the moves a player would try first — to a foundation, out of the reserve, then the rest —
and never revisits a position (piles and stock), so that drawing round the stock cannot loop.
It leaves out what never helps a win: undo, take-backs from a foundation, and moving a whole
column into an empty one.
"""

from __future__ import annotations

from .actions import COLUMNS, FOUNDATIONS, RESERVE, WASTE, Action
from .game import Canfield


def _priority(game: Canfield, action: Action) -> int:
    if action.kind != "move":
        return 6
    src, dst = action.src, action.dst
    if dst in FOUNDATIONS:
        return 0
    if src == RESERVE:
        return 1
    if src in COLUMNS and action.count == len(game.piles[src]):
        return 2  # empties a column: the reserve refills it
    if src == WASTE:
        return 3
    return 4


def _candidates(game: Canfield) -> list[Action]:
    moves = []
    for action in game.generate_legal():
        if action.kind == "undo":
            continue
        if action.kind == "move":
            if action.src in FOUNDATIONS:
                continue
            if (
                action.src in COLUMNS
                and not game.piles[action.dst]
                and action.count == len(game.piles[action.src])
            ):
                continue
        moves.append(action)
    moves.sort(key=lambda a: _priority(game, a))
    return moves


def solve(game: Canfield, max_positions: int = 200_000) -> list[Action] | None:
    """A list of actions that wins from ``game``'s position, or ``None`` if none was found
    within ``max_positions`` new positions. ``game`` is left as it was."""
    seen = {game.position_key()}
    path: list[Action] = []
    frames = [iter(_candidates(game))]
    try:
        while frames:
            if game.is_won():
                return list(path)
            action = next(frames[-1], None)
            if action is None:
                frames.pop()
                if path:
                    game.pop()
                    path.pop()
                continue
            game.push(action)
            key = game.position_key()
            if key in seen:
                game.pop()
                continue
            if len(seen) >= max_positions:
                game.pop()
                return None
            seen.add(key)
            path.append(action)
            frames.append(iter(_candidates(game)))
        return None
    finally:
        for _ in path:
            game.pop()
