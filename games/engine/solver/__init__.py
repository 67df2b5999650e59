"""The Canfield solver: proved wins, proved losses, and short winning lines.

>>> result = solve("CF1-D3-AAAAACL", seconds=5)
>>> result.outcome
'win'
>>> Canfield.replay("CF1-D3-AAAAACL", result.line).is_won()
True

:func:`solve` works from any position — a fresh deal, or a game in progress (its undo history is
ignored, and the game is only read) — under both rule sets and both draw modes. It searches the
positions reachable from there, best first, and answers:

- ``win``, with a line of actions that wins when replayed with ``Canfield.push``; once a win is
  found, the rest of the budget goes to making the line shorter;
- ``no_win``, a proof: every position reachable under the pruning rules (``position.py`` gives
  each rule and why it never loses a win) was searched, and none is won;
- ``unknown``, when the budget (positions, seconds, or both) ran out first — with the way to the
  most promising position the search reached (:attr:`SolveResult.best_line`), whose first action
  is the best move it can give without a proof.

For a hint, ``solve(game, seconds=2)`` gives the next action of a winning line and the line's
length, or says that no win exists, or that it could not tell in time and gives its best move
(:attr:`SolveResult.best_action`, the one action to suggest in every case but ``no_win``).
:func:`last_winnable` walks back from a lost position through the positions undo reaches, to the
last one that can still be won.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias, TypedDict

from ..actions import UNDO, Action
from ..deals import DealCode
from ..game import Canfield
from .position import Move, Rules, real_actions
from .search import Budget, cheaper, cost, decide, moves_of, replay, shortcut

__all__ = [
    "Outcome",
    "SolveDict",
    "SolveResult",
    "Walk",
    "last_winnable",
    "shorten",
    "solve",
    "undo_key",
]

Outcome: TypeAlias = Literal["win", "no_win", "unknown"]

#: Positions spent shortening a win when :func:`solve` has no budget at all.
SHORTEN_POSITIONS: Final = 100_000
#: The weights on progress of the successive shortening searches (see search.cheaper).
WEIGHTS: Final = (2.0, 1.0, 0.5, 0.3, 0.2, 0.1)


class SolveDict(TypedDict, total=False):
    """The JSON form of a result (``python -m games.engine solve --json``)."""

    code: str
    outcome: Outcome
    line: list[str]
    best: list[str]
    positions: int
    seconds: float


@dataclass(frozen=True, slots=True)
class SolveResult:
    """What :func:`solve` found."""

    #: The game's code.
    code: str
    outcome: Outcome
    #: For a win, the actions that win from the position solved; empty otherwise.
    line: tuple[Action, ...]
    #: Positions searched, deciding and shortening.
    positions: int
    #: Seconds spent, deciding and shortening.
    seconds: float
    #: Positions and seconds spent until the outcome was known.
    decided_positions: int
    decided_seconds: float
    #: For a win, the length of the first winning line found, before shortening.
    found_length: int = 0
    #: For ``unknown``, the actions from the position solved to the most promising position the
    #: search reached (most foundation cards, fewest reserve and talon cards; see
    #: ``search.score``): not a proof of anything, a direction. Empty for ``win`` and ``no_win``.
    best_line: tuple[Action, ...] = ()

    @property
    def next_action(self) -> Action | None:
        """The first action of the winning line (a hint), or None."""
        return self.line[0] if self.line else None

    @property
    def best_action(self) -> Action | None:
        """The action to suggest: the next of the winning line (``win``), the first toward the
        most promising position reached (``unknown``: not proved), or None (``no_win``, or no
        move at all)."""
        line = self.line if self.outcome == "win" else self.best_line
        return line[0] if line else None

    def tokens(self) -> list[str]:
        return [a.token() for a in self.line]

    def to_dict(self) -> SolveDict:
        out: SolveDict = {"code": self.code, "outcome": self.outcome}
        if self.outcome == "win":
            out["line"] = self.tokens()
        if self.outcome == "unknown":
            out["best"] = [a.token() for a in self.best_line]
        out["positions"] = self.positions
        out["seconds"] = round(self.seconds, 3)
        return out


def solve(
    game_or_code: Canfield | DealCode | str,
    *,
    max_positions: int | None = None,
    seconds: float | None = None,
    shorten: bool = True,
) -> SolveResult:
    """Solve the position of a game (only read, never changed), or the start of a deal given by
    its code. ``max_positions`` and ``seconds`` bound the whole call (``None``: no bound); a win
    found early leaves the rest of the budget to shortening the line (``shorten=False``: return
    the first win found). Without any bound the search runs until it decides, and shortening
    gets :data:`SHORTEN_POSITIONS` positions."""
    start = time.perf_counter()
    game = game_or_code if isinstance(game_or_code, Canfield) else Canfield(game_or_code)
    budget = Budget(max_positions, seconds)
    rules = Rules(game)
    root = rules.root(game)
    decision = decide(rules, root, budget)
    decided_positions = budget.positions
    decided_seconds = budget.elapsed()
    line: tuple[Action, ...] = ()
    best: tuple[Action, ...] = ()
    found = 0
    positions = decided_positions
    if decision.outcome == "unknown" and decision.best:
        best = tuple(real_actions(game, rules, moves_of(rules, decision.best)))
    if decision.outcome == "win":
        moves = moves_of(rules, decision.path)
        actions = real_actions(game, rules, moves)
        found = len(actions)
        if shorten:
            unbounded = budget.unbounded()
            if unbounded:
                budget = Budget(SHORTEN_POSITIONS, None)
            shorter = _shorten(game, found, budget)
            positions = decided_positions + budget.positions if unbounded else budget.positions
            if shorter is not None:
                actions = real_actions(game, *shorter)
        line = tuple(actions)
    return SolveResult(
        code=str(game.code),
        outcome=decision.outcome,
        line=line,
        positions=positions,
        seconds=time.perf_counter() - start,
        decided_positions=decided_positions,
        decided_seconds=decided_seconds,
        found_length=found,
        best_line=best,
    )


def shorten(
    game_or_code: Canfield | DealCode | str,
    line: Sequence[Action | str],
    *,
    max_positions: int | None = None,
    seconds: float | None = None,
) -> tuple[Action, ...]:
    """A winning line from the position of ``game_or_code`` no longer than ``line`` (which must
    win from there): shorter if one turns up within the budget (unbounded: as in :func:`solve`).
    Raises :class:`~games.engine.IllegalAction` if ``line`` is not legal, ``ValueError`` if it
    does not win."""
    game = game_or_code if isinstance(game_or_code, Canfield) else Canfield(game_or_code)
    actions = [Action.parse(a) if isinstance(a, str) else a for a in line]
    scratch = game.copy()
    for _ in scratch.replaying(actions):
        pass
    if not scratch.is_won():
        raise ValueError("the line does not win")
    if max_positions is None and seconds is None:
        max_positions = SHORTEN_POSITIONS
    budget = Budget(max_positions, seconds)
    shorter = _shorten(game, len(actions), budget)
    return tuple(actions) if shorter is None else tuple(real_actions(game, *shorter))


@dataclass(frozen=True, slots=True)
class Walk:
    """What :func:`last_winnable` found walking back from a position."""

    #: The solver's answer for each position walked, most recent first: ``results[i]`` is the
    #: position ``i + 1`` undos back.
    results: tuple[SolveResult, ...]
    #: How many undos back the last position that can still be won lies (the last of
    #: ``results``, a proved win), or None: none found.
    undos: int | None


def last_winnable(
    game: Canfield, *, max_positions: int | None = None, seconds: float | None = None
) -> Walk:
    """The last position before ``game``'s (a lost one) that undo reaches and the solver proves
    winnable: the positions undo reaches are solved one by one, most recent first, each with what
    is left of the budget (``None``: no bound), until the first proved win. The walk stops without
    one at the first position it cannot decide — any proved win before that one might not be the
    last — and when the undo history or the budget runs out. Each position is solved as
    :func:`solve` does (the win found is shortened with the rest of the budget). ``game`` is only
    read."""
    start = time.perf_counter()
    scratch = game.copy()
    results: list[SolveResult] = []
    spent = 0
    for back in range(1, game.undo_depth + 1):
        left = None if seconds is None else seconds - (time.perf_counter() - start)
        positions = None if max_positions is None else max_positions - spent
        if (left is not None and left <= 0) or (positions is not None and positions <= 0):
            break
        scratch.push(UNDO)
        result = solve(scratch, max_positions=positions, seconds=left)
        results.append(result)
        spent += result.positions
        if result.outcome == "win":
            return Walk(tuple(results), back)
        if result.outcome == "unknown":
            break
    return Walk(tuple(results), None)


def undo_key(game: Canfield) -> str:
    """A key of the way back from ``game``'s position: the actions undo can still take back, each
    with what taking it back restores. Two games at the same position (``position_digest``) with
    the same key reach the same positions by the same undos, whatever their past, so what
    :func:`last_winnable` finds holds for both."""
    text = " ".join(f"{e.action.token()}/{e.amount}" for e in game.snapshot().undoable)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _shorten(game: Canfield, length: int, budget: Budget) -> tuple[Rules, list[Move]] | None:
    """A line shorter than ``length`` actions, as far as the budget allows, or None: searches
    that weigh the actions spent against progress, each bounded by the best line so far, with
    less and less weight on progress; then shortcuts through the neighbourhood of the line."""
    exact = Rules(game, exact_pointer=True)
    root = exact.root(game)
    best: list[Move] | None = None
    for weight in WEIGHTS:
        if budget.spent():
            break
        line = cheaper(exact, root, length, budget, weight)
        if line is not None:
            best = line
            length = cost(exact, replay(exact, root, line), line)
    if best is None:
        return None
    states = replay(exact, root, best)
    for depth in (1, 2):
        while not budget.spent():
            line = shortcut(exact, states, budget, depth)
            if line is None:
                break
            states2 = replay(exact, root, line)
            actions = cost(exact, states2, line)
            if actions >= length:
                break
            best, states, length = line, states2, actions
    return exact, best
