"""The first hint of a fresh random deal: how long the solver's search takes, now and before.

For each of --deals fresh random deals (draw 3, standard rules), the search of the first hint at
the deal's start is timed as the solver pool's worker runs it (``games.pool_jobs.hint_line``, in
this process: the pool adds a few milliseconds of hand-over to every hint alike), and, in the same
run on the same deal, the previous behaviour's search: the same solve, whose winning line is then
shortened with the rest of the hint's budget (``HINT_SECONDS``, 2 s) before it answers. The deals
are drawn as a new game draws them: deals proved winnable (``games.winnable``: decided within
``PROVE_POSITIONS``), and, for "any deal", random deals not checked.

    .venv/bin/python benchmarks/hints.py [--deals 40] [--seconds 2.0] [--write-docs]

Prints p50, p95 and the maximum of each, with the machine's load before and after the run;
--write-docs writes them into docs/performance.md ("## Hints").
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from common import machine, write_section

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games import pool_jobs  # noqa: E402
from games.engine import Canfield, DealCode  # noqa: E402
from games.engine import state as engine_state  # noqa: E402
from games.engine.solver import solve  # noqa: E402

#: ``games.winnable.PROVE_POSITIONS`` (not imported: that module needs Django).
PROVE_POSITIONS = 5_000


def previous_hint(code: str, state: str, seconds: float) -> str:
    """The previous behaviour of the first hint's search: the first win found, then shortened
    with the rest of the budget before answering."""
    return solve(engine_state.load(code, state), seconds=seconds).outcome


def current_hint(code: str, state: str, seconds: float) -> str:
    return pool_jobs.hint_line(code, state, seconds).outcome


def timed(fn: Callable[[str, str, float], str], code: str, seconds: float) -> tuple[float, str]:
    state = engine_state.dump(Canfield(code))
    start = time.perf_counter()
    outcome = fn(code, state, seconds)
    return (time.perf_counter() - start) * 1000, outcome


def pool_deal() -> str:
    """A random deal as the pool deals it: proved winnable within PROVE_POSITIONS."""
    while True:
        code = str(DealCode.random(3, "app"))
        if pool_jobs.prove_deal(code, PROVE_POSITIONS)[0] == "win":
            return code


def figures(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered):.0f} | {p95:.0f} | {ordered[-1]:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=2.0, help="the hint's budget")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    before = machine()
    rows = []
    for label, draw in (
        ("a new game's deal (proved winnable)", pool_deal),
        ("any deal (not checked)", lambda: str(DealCode.random(3, "app"))),
    ):
        now: list[float] = []
        then: list[float] = []
        outcomes: dict[str, int] = {}
        for _ in range(args.deals):
            code = draw()
            ms, outcome = timed(current_hint, code, args.seconds)
            now.append(ms)
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            then.append(timed(previous_hint, code, args.seconds)[0])
        told = ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items()))
        rows.append(f"| {label}: first hint now | {figures(now)} | {told} |")
        rows.append(f"| {label}: before (line shortened first) | {figures(then)} | |")
        print(rows[-2], rows[-1], sep="\n", flush=True)
    after = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    section = "\n".join(
        [
            "## Hints",
            "",
            f"Command: `.venv/bin/python benchmarks/hints.py --deals {args.deals} --write-docs` "
            f"({before}; after the run {after}).",
            "",
            f"The search of the first hint at the start of {args.deals} fresh random deals of "
            "each kind (draw 3, standard rules), in milliseconds: the job the solver pool's worker "
            "runs (`games.pool_jobs.hint_line`), timed in the benchmark's process (the hand-over "
            'to the pool adds a few milliseconds to every hint alike); "before" is the previous '
            "behaviour, run on the same deals in the same "
            f"run: the first winning line shortened with the rest of the hint's {args.seconds:g} s "
            "before the answer. Now the first line proved is the answer, and the worker tier "
            "shortens it afterwards (`games.tasks.improve_hint`): the later hints follow the "
            "better line. A deal the solver cannot decide still takes the whole budget "
            "(`unknown`: a best move without proof), which is why a new game's random deal is one "
            "decided ahead (`games.winnable`).",
            "",
            "| Deals | p50 | p95 | max | outcomes |",
            "|---|---|---|---|---|",
            *rows,
            "",
        ]
    )
    print(f"{before}; after the run {after}")
    if args.write_docs:
        write_section("Hints", section)


if __name__ == "__main__":
    main()
