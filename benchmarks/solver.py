"""Solver figures: ``.venv/bin/python benchmarks/solver.py [--deals N] [--seconds S] [...]``.

For each rule set × draw mode (``--only app-3,classic-1`` to pick), ``--deals`` seeded random
deals, each solved from its start with ``--seconds`` of budget (default 10):

- the share of deals won, proved lost (no win exists) and left unknown, with 95% Wilson
  intervals; the median and p95 time to decide (an unknown deal counts as "more than the
  budget"); positions searched per second while deciding;
- for the wins, the length (actions, draws included) of the first line found and of the line
  after ``--shorten`` seconds of shortening: median and p95;
- the baseline, in the same run: the engine's former solver (``baseline_solver.py``) on the first
  ``--baseline-deals`` deals of each combination, each capped at ``--baseline-positions``
  positions: its positions per second (a position there is any state, draws included), and the
  deals it won. Ratios against it are robust to the load of the shared machine.

One process, one deal at a time. ``--save FILE`` appends each combination's figures as a JSON
line; ``--report FILE ...`` prints (and with ``--write-docs`` writes the "Solver" section of
docs/performance.md from) saved figures instead of solving — so that long runs can be split.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from common import machine, write_section

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import baseline_solver  # noqa: E402

from games.engine import Canfield, DealCode  # noqa: E402
from games.engine.deals import DEAL_COUNT  # noqa: E402
from games.engine.solver import shorten, solve  # noqa: E402

COMBINATIONS = ("app-3", "app-1", "classic-3", "classic-1")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of the share k/n."""
    if not n:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def quantile(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of ``values``; inf counts as larger than everything."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def deals(combination: str, count: int, seed: int) -> list[DealCode]:
    variant, draw = combination.split("-")
    rng = random.Random(f"{seed}-{combination}")
    return [
        DealCode(rng.randrange(DEAL_COUNT), int(draw), variant)  # type: ignore[arg-type]
        for _ in range(count)
    ]


def run(combination: str, args: argparse.Namespace) -> dict[str, Any]:
    host = machine(arch=True)
    codes = deals(combination, args.deals, args.seed)
    outcomes = {"win": 0, "no_win": 0, "unknown": 0}
    times: list[float] = []
    positions = 0
    seconds = 0.0
    found: list[int] = []
    short: list[int] = []
    results: list[list[Any]] = []
    began = time.perf_counter()
    for i, code in enumerate(codes, start=1):
        result = solve(code, seconds=args.seconds, shorten=False)
        results.append(
            [str(code), result.outcome, round(result.decided_seconds, 3), result.decided_positions]
        )
        outcomes[result.outcome] += 1
        times.append(result.decided_seconds if result.outcome != "unknown" else math.inf)
        positions += result.decided_positions
        seconds += result.decided_seconds
        if result.outcome == "win":
            assert Canfield.replay(code, result.line).is_won()
            found.append(len(result.line))
            line = shorten(code, result.line, seconds=args.shorten)
            assert Canfield.replay(code, line).is_won()
            short.append(len(line))
        if i % 50 == 0 or i == len(codes):
            print(
                f"  {combination}: {i}/{len(codes)} {outcomes} "
                f"({time.perf_counter() - began:.0f} s)",
                file=sys.stderr,
            )
    base_positions = 0
    base_seconds = 0.0
    base_won = 0
    base_gave_up_on_wins = 0
    for code, row in zip(codes[: args.baseline_deals], results, strict=False):
        game = Canfield(code)
        start = time.perf_counter()
        base_line, searched = baseline_solver.solve(game, args.baseline_positions)
        base_seconds += time.perf_counter() - start
        base_positions += searched
        base_won += base_line is not None
        # It ran out of moves to try (below its cap) where a win exists: its "no win" is no proof.
        base_gave_up_on_wins += (
            base_line is None and searched < args.baseline_positions and row[1] == "win"
        )
    return {
        "combination": combination,
        "deals": len(codes),
        "seconds": args.seconds,
        "shorten": args.shorten,
        "seed": args.seed,
        "outcomes": outcomes,
        "times": [t if t != math.inf else None for t in times],
        "positions_per_second": positions / seconds if seconds else 0.0,
        "found": found,
        "short": short,
        "baseline": {
            "deals": min(args.baseline_deals, len(codes)),
            "cap": args.baseline_positions,
            "won": base_won,
            "solver_won": sum(r[1] == "win" for r in results[: args.baseline_deals]),
            "gave_up_on_wins": base_gave_up_on_wins,
            "positions_per_second": base_positions / base_seconds if base_seconds else 0.0,
        },
        "results": results,
        "machine": host,
    }


def _share(k: int, n: int) -> str:
    low, high = wilson(k, n)
    return f"{100 * k / n:.1f}% ({100 * low:.1f}–{100 * high:.1f})"


def _time(t: float, budget: float) -> str:
    return f"> {budget:g} s" if t == math.inf else f"{t:.2f} s"


def render(rows: list[dict[str, Any]]) -> tuple[str, str, str]:
    """The winnability table, the speed table and the verdict on the aims."""
    win = [
        "| rules | draw | deals | won (95% CI) | proved lost (95% CI) | unknown | "
        "median to decide | p95 to decide |",
        "|---|---:|---:|---|---|---:|---:|---:|",
    ]
    speed = [
        "| rules | draw | positions/s | baseline positions/s | × baseline | "
        "won: baseline / solver | first line median / p95 | shortened median / p95 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    aims = []
    for row in rows:
        variant, draw = row["combination"].split("-")
        n = row["deals"]
        o = row["outcomes"]
        times = [math.inf if t is None else t for t in row["times"]]
        budget = row["seconds"]
        win.append(
            f"| {variant} | {draw} | {n} | {_share(o['win'], n)} | {_share(o['no_win'], n)} | "
            f"{100 * o['unknown'] / n:.1f}% | {_time(quantile(times, 0.5), budget)} | "
            f"{_time(quantile(times, 0.95), budget)} |"
        )
        base = row["baseline"]
        ratio = (
            row["positions_per_second"] / base["positions_per_second"]
            if base["positions_per_second"]
            else 0.0
        )
        lines = "–"
        first = "–"
        if row["short"]:
            lines = f"{statistics.median(row['short']):.0f} / {quantile(row['short'], 0.95):.0f}"
            first = f"{statistics.median(row['found']):.0f} / {quantile(row['found'], 0.95):.0f}"
        speed.append(
            f"| {variant} | {draw} | {row['positions_per_second']:,.0f} | "
            f"{base['positions_per_second']:,.0f} | {ratio:.1f} | "
            f"{base['won']} / {base['solver_won']} of {base['deals']} | {first} | {lines} |"
        )
        if row["combination"] == "app-3":
            decided = o["win"] + o["no_win"]
            pps = row["positions_per_second"]
            aims.append(
                f"- aim ≥ 50,000 positions/s (app, draw 3): {pps:,.0f} — "
                + ("met" if pps >= 50_000 else "MISSED")
            )
            aims.append(
                f"- aim ≥ 95% of draw-3 app deals decided within {budget:g} s: "
                f"{100 * decided / n:.1f}% — " + ("met" if decided >= 0.95 * n else "MISSED")
            )
        if draw == "3" and row["short"]:
            median = statistics.median(row["short"])
            aims.append(
                f"- aim: median draw-3 winning line under 150 actions ({variant}): "
                f"{median:.0f} — " + ("met" if median < 150 else "MISSED")
            )
    by = {r["combination"]: r for r in rows}
    for combination, table, source in (
        ("app-3", "about 35% claimed by skilled players (Wolter)", "app"),
        ("classic-3", "about 3% at the table (RULES.md)", "classic"),
    ):
        if combination in by:
            o = by[combination]["outcomes"]
            n = by[combination]["deals"]
            aims.append(
                f"- published, {source} rules, draw 3: {table}; here, seeing every card, "
                f"{100 * o['win'] / n:.1f}% won and at most {100 * (n - o['no_win']) / n:.1f}% "
                "winnable"
            )
    gave_up = sum(r["baseline"].get("gave_up_on_wins", 0) for r in rows)
    checked = sum(r["baseline"]["deals"] for r in rows)
    aims.append(
        f"- the former solver ran out of moves to try, without a win, on {gave_up} of the "
        f'{checked} deals it was given that the solver won: its "no win" was no proof'
    )
    return "\n".join(win), "\n".join(speed), "\n".join(aims)


NOTES = """\
- Each deal is decided from its start with a budget of 10 s, then a win gets 1 s of shortening
  (`solve(code, seconds=10, shorten=False)`, then `shorten(code, line, seconds=1)`); every line is
  replayed through the engine and must win. Deal numbers are random, seeded per combination.
- "Proved lost" is a proof: the whole reachable space was searched under pruning that never loses
  a win (`games/engine/solver/position.py` argues each rule; `tests/engine/test_solver.py` checks
  the solver against an engine-only search without pruning on random small positions of all four
  combinations). "Unknown" deals ran out of budget; their true share of wins and losses is
  unknown, so the true winnability lies between "won" and "won + unknown".
- A position is counted when its moves are generated. The solver's positions are compact
  (a waste move includes the draws before it, columns are sorted); the baseline's are every state
  the engine passes through, each draw included, so the figure flatters the baseline. The runs
  share the machine (see the load average); time quantiles move with the load, ratios much less.
- "won: baseline / solver": of the first deals of each combination, how many the former solver
  won within its cap of positions, and how many the solver won within its budget.
- Unknown deals count as "more than the budget" in the time quantiles; lines are counted in
  actions, draws and recycles included. A line is shortened by searches that weigh actions spent
  against progress, each bounded by the best line so far.
- Published figures, for comparison: the shares above are for a player who sees every card
  ("thoughtful" play), an upper bound on what anyone wins at the table. Jan Wolter's experimental
  analysis of Canfield (politaire.com/article/canfield.html, 2013) studies, with a depth-first
  solver, the game of the app's rules as far as its description goes (draw 3, unlimited passes,
  runs moved between columns, a space filled at once from the reserve; take-backs are not
  mentioned), and quotes skilled players' claims of winning about 35% of games, against the
  common estimate that a player places five or six cards on average. Blake and
  Gent ("The Winnability of Klondike Solitaire and Many Other Patience Games", arXiv 1906.12314)
  measure 73 variants of 35 games with their solver Solvitaire, Canfield presets among them, to
  ±0.1% at 95% (Klondike, thoughtful: 81.945% ± 0.084%). RULES.md ("The classic rules") gives
  about 3% of games won at the table under Hoyle's rules."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100, help="deals per combination")
    parser.add_argument("--seconds", type=float, default=10.0, help="budget per deal")
    parser.add_argument("--shorten", type=float, default=1.0, help="seconds to shorten a win")
    parser.add_argument("--only", default=",".join(COMBINATIONS), help="e.g. app-3,classic-1")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--baseline-deals", type=int, default=10)
    parser.add_argument("--baseline-positions", type=int, default=20_000)
    parser.add_argument("--save", help="append each combination's figures to this JSON-lines file")
    parser.add_argument("--report", nargs="+", help="render saved figures instead of solving")
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help='replace the "Solver" section of docs/performance.md',
    )
    args = parser.parse_args()
    began = time.perf_counter()
    rows: list[dict[str, Any]] = []
    if args.report:
        for name in args.report:
            for text in Path(name).read_text().splitlines():
                if text.strip():
                    rows.append(json.loads(text))
        order = {c: i for i, c in enumerate(COMBINATIONS)}
        rows.sort(key=lambda r: order[r["combination"]])
        command = rows[0].get("command", "python benchmarks/solver.py") if rows else ""
    else:
        host = machine(arch=True)
        print(host)
        for combination in args.only.split(","):
            row = run(combination, args)
            row["command"] = (
                f"python benchmarks/solver.py --deals {args.deals} --seconds {args.seconds:g} "
                f"--shorten {args.shorten:g}"
            )
            rows.append(row)
            if args.save:
                with open(args.save, "a", encoding="utf-8") as f:
                    f.write(json.dumps(row) + "\n")
        command = rows[0]["command"]
    win, speed, aims = render(rows)
    print(win)
    print(speed)
    print(aims)
    print(f"total {time.perf_counter() - began:.1f} s")
    if args.write_docs:
        hosts = "; ".join(f"{r['combination']}: {r['machine']}" for r in rows)
        write_section(
            "Solver",
            "## Solver\n\n"
            "The solver (`games.engine.solver`, no Django), one process, one deal at a time.\n"
            f"Command: `{command} --only COMBINATION`, one combination per run, two runs at a "
            f"time ({hosts}).\n\n"
            f"{win}\n\n{speed}\n\n{aims}\n\n{NOTES}\n",
        )


if __name__ == "__main__":
    main()
