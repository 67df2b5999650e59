"""The cost of the stuck-for-good search in a view: ``.venv/bin/python benchmarks/stuck.py
[--deals N]`` (about 20 s with the default 20 deals).

Every action a player makes is answered with the engine's ``player_view()``, which asks
``finish.outlook`` what is ahead: whether the rest needs no decision (Finish) and whether the game
is stuck for good (``games.engine.progress``: a bounded search over what the player has seen).
This plays each deal with the three simulated players (``games.engine.players``), then times the
view of every position their games went through twice, least of three each:

- ``player_view()`` as the API answers it (with the look ahead);
- ``player_view(look_ahead=False)`` — the same view without the two answers: the baseline of the
  same run, so that the figures compare across machines as a ratio.

Prints the median, p99, max and mean in µs of each, their ratios, and how the stuck answers
fell: answered by the quick outs, progress found by searching, proved stuck, or the search's cap
reached (answered "not stuck").
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from common import machine

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from games.engine import Action, Canfield, DealCode  # noqa: E402
from games.engine.deals import DEAL_COUNT  # noqa: E402
from games.engine.players import LEVELS, play  # noqa: E402


def positions(deals: int, seed: int) -> list[Canfield]:
    """A copy of every position the simulated players' games of ``deals`` random deals reached."""
    rng = random.Random(seed)
    reached = []
    for _ in range(deals):
        code = DealCode(
            rng.randrange(DEAL_COUNT), rng.choice([1, 3]), rng.choice(["app", "classic"])
        )
        for level in LEVELS:
            game = Canfield(code)
            for token in play(code, level, f"bench-{seed}").tokens:
                game.push(Action.parse(token))
                reached.append(game.copy())
    return reached


def timed(games: list[Canfield], look_ahead: bool) -> list[float]:
    """µs per view of each position, the least of three."""
    times = []
    for game in games:
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            game.player_view(look_ahead=look_ahead)
            best = min(best, time.perf_counter() - start)
        times.append(best * 1e6)
    return times


def summary(times: list[float]) -> tuple[float, float, float, float]:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return statistics.median(ordered), p99, ordered[-1], statistics.fmean(ordered)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()

    print(machine())
    games = positions(args.deals, args.seed)
    print(f"{len(games)} positions from {args.deals} deals x {len(LEVELS)} simulated players")
    views = timed(games, look_ahead=True)
    bare = timed(games, look_ahead=False)
    stuck = sum(game.player_view()["stuck"] for game in games)
    print(f"{'':28}{'median':>10}{'p99':>10}{'max':>10}{'mean':>10}  (µs)")
    for name, times in (("player_view()", views), ("player_view(look_ahead=False)", bare)):
        print(f"{name:28}" + "".join(f"{v:10.1f}" for v in summary(times)))
    ratios = [a / b for a, b in zip(summary(views), summary(bare), strict=True)]
    print(f"{'ratio':28}" + "".join(f"{r:9.2f}x" for r in ratios))
    print(f"stuck for good: {stuck} of {len(games)} positions")


if __name__ == "__main__":
    main()
