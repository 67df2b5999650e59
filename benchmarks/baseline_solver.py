"""The solver the engine had before ``games/engine/solver/``, kept as the baseline of
``benchmarks/solver.py`` (which measures both in the same run). Unchanged but for returning the
number of positions it searched.

A depth-first search over ``Canfield.push``/``pop``: moves to a foundation first, then out of the
reserve, then the rest; never revisits a position (piles and stock); leaves out undo, take-backs
and moving a whole column into an empty one. It cannot tell "no win" from "gave up".
"""

from __future__ import annotations

from games.engine import Action, Canfield
from games.engine.actions import COLUMNS, FOUNDATIONS, RESERVE, WASTE


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


def solve(game: Canfield, max_positions: int = 200_000) -> tuple[list[Action] | None, int]:
    """A winning line from ``game`` (or None: none found within ``max_positions`` new
    positions), and the positions searched. ``game`` is left as it was."""
    seen = {game.position_key()}
    path: list[Action] = []
    frames = [iter(_candidates(game))]
    try:
        while frames:
            if game.is_won():
                return list(path), len(seen)
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
                return None, len(seen)
            seen.add(key)
            path.append(action)
            frames.append(iter(_candidates(game)))
        return None, len(seen)
    finally:
        for _ in path:
            game.pop()
