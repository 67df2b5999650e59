"""The searches: a best-first search that decides a position, and the shortening of a win.

Both count *positions*: a position is counted when its moves are generated (expanded).
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass
from typing import Final, Literal

from .position import (
    FOUNDATION_CARDS,
    FOUNDATIONS_MASK,
    POINTER_SHIFT,
    RESERVE_SHIFT,
    WON,
    Move,
    Rules,
    State,
)

#: How often (in positions) the clock is read.
CLOCK_EVERY: Final = 256


class Budget:
    """A budget of positions and seconds, shared by the phases of one solve."""

    def __init__(self, max_positions: int | None, seconds: float | None) -> None:
        self.start = time.perf_counter()
        self.deadline = None if seconds is None else self.start + seconds
        self.limit = max_positions
        self.positions = 0

    def spent(self) -> bool:
        """Whether the budget is used up; reads the clock every CLOCK_EVERY positions."""
        if self.limit is not None and self.positions >= self.limit:
            return True
        return (
            self.deadline is not None
            and not self.positions % CLOCK_EVERY
            and time.perf_counter() >= self.deadline
        )

    def unbounded(self) -> bool:
        return self.limit is None and self.deadline is None

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


def score(s: State) -> int:
    """How promising a position looks: cards on the foundations, cards out of the reserve and out
    of the talon. Only orders the search; it prunes nothing."""
    scalar = s[0]
    return (
        4 * FOUNDATION_CARDS[scalar & FOUNDATIONS_MASK]
        - 3 * ((scalar >> RESERVE_SHIFT) & 63)
        - len(s[1])
    )


@dataclass(frozen=True, slots=True)
class Decision:
    outcome: Literal["win", "no_win", "unknown"]
    #: For a win: the positions from the root to the won one.
    path: tuple[State, ...]
    #: For ``unknown``: the positions from the root to the most promising one reached (the
    #: highest :func:`score`, ties to the fewest moves from the root, then to the first reached).
    best: tuple[State, ...] = ()


#: The weight of progress against depth in the order of the deciding search (see decide).
WEIGHT: Final = 4.0


def decide(rules: Rules, root: State, budget: Budget) -> Decision:
    """Best-first search over every position reachable from ``root`` until a won position, the end
    of the reachable positions (no win: every position reached was expanded, whatever the order),
    or the end of the budget.

    The order is (moves from the root − WEIGHT × :func:`score`), ties to the newest. Measured on
    100 random draw-3 app deals: the same share decided in 5 s as pure greedy order (score alone),
    but greedy order can wander for millions of positions among column shuffles that all score
    alike (CF1-D3-EGRNGXI: undecided after 270,000 positions; with the depth term, won after a
    few hundred).

    When the budget runs out the answer is ``unknown`` with the way to the most promising
    position reached (:attr:`Decision.best`), so that a hint still has a move to give. The root
    is always expanded, even on a budget already spent, so that a position with a move never
    answers ``unknown`` without one (one position beyond a budget of none)."""
    if root[0] & FOUNDATIONS_MASK == WON:
        return Decision("win", (root,))
    children = rules.children
    parent: dict[State, State | None] = {root: None}
    heap: list[tuple[float, int, int, State]] = [(0, 0, 0, root)]
    push = heapq.heappush
    pop = heapq.heappop
    tick = 0
    weight = WEIGHT
    best: State | None = None
    best_rank = (-(1 << 30), 0)  # (score, −moves from the root) of the best so far
    while heap:
        if best is not None and budget.spent():
            return Decision("unknown", (), _path(parent, best))
        _, _, depth, s = pop(heap)
        depth += 1
        budget.positions += 1
        for _, c in children(s):
            if c in parent:
                continue
            parent[c] = s
            if c[0] & FOUNDATIONS_MASK == WON:
                return Decision("win", _path(parent, c))
            tick -= 1
            promise = score(c)
            push(heap, (depth - weight * promise, tick, depth, c))
            if (promise, -depth) > best_rank:
                best, best_rank = c, (promise, -depth)
    return Decision("no_win", ())


def _path(parent: dict[State, State | None], last: State) -> tuple[State, ...]:
    """The positions from the root of a search (whose parent is ``None``) to ``last``."""
    path = [last]
    link = parent[last]
    while link is not None:
        path.append(link)
        link = parent[link]
    return tuple(reversed(path))


def moves_of(rules: Rules, path: tuple[State, ...] | list[State]) -> list[Move]:
    """The move between each two consecutive positions of ``path``."""
    out = []
    for a, b in zip(path, path[1:], strict=False):
        for m, c in rules.children(a):
            if c == b:
                out.append(m)
                break
        else:
            raise AssertionError("no move links two positions of the path")
    return out


def replay(rules: Rules, root: State, moves: list[Move]) -> list[State]:
    """The positions along ``moves`` from ``root`` under ``rules``."""
    out = [root]
    for move in moves:
        for m, c in rules.children(out[-1]):
            if m == move:
                out.append(c)
                break
        else:
            raise AssertionError(f"move {move} is not legal")
    return out


def cost(rules: Rules, states: list[State], moves: list[Move]) -> int:
    """Actions along ``moves`` from the first of ``states`` (the positions along them)."""
    return sum(rules.move_cost(s, m) for s, m in zip(states, moves, strict=False))


def shortcut(rules: Rules, states: list[State], budget: Budget, depth: int) -> list[Move] | None:
    """The cheapest line (in actions) from the first to the last of ``states`` that goes through
    any of them and through positions at most ``depth`` moves away from one of them; None if the
    budget ran out. ``rules`` must keep the exact talon pointer, so costs are exact."""
    nodes: dict[State, list[tuple[Move, State, int]]] = {}
    frontier = list(dict.fromkeys(states))
    on_line = set(frontier)
    for level in range(depth):
        nxt = []
        for s in frontier:
            if s in nodes:
                continue
            if budget.spent():
                return None
            budget.positions += 1
            edges = []
            for m, c in rules.children(s):
                edges.append((m, c, rules.move_cost(s, m)))
                if c not in nodes and level + 1 < depth:
                    nxt.append(c)
            nodes[s] = edges
        frontier = nxt
    target = states[-1]
    # Dijkstra over the line and its expanded neighbourhood: a position that was not expanded
    # leads nowhere known, so edges into it are left out.
    best = {states[0]: 0}
    via: dict[State, tuple[State, Move]] = {}
    heap: list[tuple[int, int, State]] = [(0, 0, states[0])]
    tick = 0
    done = set()
    while heap:
        g, _, s = heapq.heappop(heap)
        if s in done:
            continue
        done.add(s)
        if s == target:
            break
        for m, c, w in nodes.get(s, ()):
            if c not in nodes and c not in on_line:
                continue
            ng = g + w
            if ng < best.get(c, 1 << 30):
                best[c] = ng
                via[c] = (s, m)
                tick += 1
                heapq.heappush(heap, (ng, tick, c))
    if target not in via:
        return None
    line = []
    s = target
    while s != states[0]:
        s, m = via[s]
        line.append(m)
    line.reverse()
    return line


def lower_bound(s: State, draw: int) -> int:
    """Actions still needed at least: one per card off the foundations, and the draws that must
    still turn the stock over (each turns at most ``draw`` cards)."""
    scalar = s[0]
    stock = len(s[1]) - ((scalar >> POINTER_SHIFT) & 63)
    return 52 - FOUNDATION_CARDS[scalar & FOUNDATIONS_MASK] + -(-stock // draw)


def cheaper(
    rules: Rules, root: State, bound: int, budget: Budget, weight: float
) -> list[Move] | None:
    """A winning line of fewer than ``bound`` actions, or None if none turned up before the
    budget ran out. Best-first on (actions so far − ``weight`` × :func:`score`): a large weight
    finds a line fast, a small one finds a short line slowly. ``rules`` keeps the exact talon
    pointer, so actions are counted exactly; a position whose actions so far plus
    :func:`lower_bound` reach ``bound`` is dropped."""
    draw = rules.draw
    children = rules.children
    move_cost = rules.move_cost
    best_g = {root: 0}
    via: dict[State, tuple[State, Move]] = {}
    heap: list[tuple[float, int, int, State]] = [(0.0, 0, 0, root)]
    tick = 0
    while heap:
        _, _, g, s = heapq.heappop(heap)
        if g > best_g[s]:
            continue
        if budget.spent():
            return None
        budget.positions += 1
        for m, c in children(s):
            ng = g + move_cost(s, m)
            if ng >= best_g.get(c, bound) or ng + lower_bound(c, draw) >= bound:
                continue
            best_g[c] = ng
            via[c] = (s, m)
            if c[0] & FOUNDATIONS_MASK == WON:
                line = []
                while c != root:
                    c, m = via[c]
                    line.append(m)
                line.reverse()
                return line
            tick -= 1
            heapq.heappush(heap, (ng - weight * score(c), tick, ng, c))
    return None
