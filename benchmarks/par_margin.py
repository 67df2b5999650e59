"""How close to par an honest winner comes: ``python benchmarks/par_margin.py``.

``--days`` days from ``--first-day`` are dealt as the service deals its dailies
(``games.engine.certify.certify`` under a benchmark secret, each day in its weekday's band of
``DAILY_DIFFICULTY_WEEK``, with the settings' budgets ``DAILY_DEAL_POSITIONS``,
``DAILY_DEAL_SHORTEN_POSITIONS``, ``DAILY_DEAL_CANDIDATES`` and ``DAILY_DIFFICULTY_GAMES``);
par is the length of the certified line, as ``DailyDeal.par``. Each day is then played
``--games`` times by each level of simulated player (``games.engine.players``: they see only what
a person sees; the expert is the best of them), with seeds of their own (not the certification's
games), and every win's actions — undos included, as a day's board counts them — are divided by
the day's par.

It prints, for each level and for all honest winners together, the wins and the distribution of
actions / par (min, p1, p5, median, and the share within 0, 2, 5 and 10 % of par), and the
margin it suggests for ``leaderboard.review``'s near-par flag: the largest whole per cent of par
within which at most 1 % of each level's wins come. ``--write-docs`` puts the figures in their
section of docs/performance.md ("Near par: how close honest winners come"). The machine is
shared: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import multiprocessing
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from common import machine, write_section

from canfield_site import settings
from games.engine.certify import certify
from games.engine.difficulty import Band
from games.engine.players import LEVELS, play

HEADING = "Near par: how close honest winners come"
SECRET = "the benchmark secret of the par margin"


def day_figures(
    secret: bytes, day: dt.date, games: int, positions: int, shorten: int, candidates: int
) -> dict[str, Any]:
    """Deal ``day`` as the service does, then play it ``games`` times at each level: its par and
    each level's winning games' actions."""
    week: tuple[Band, ...] = settings.DAILY_DIFFICULTY_WEEK
    start = time.perf_counter()
    found = certify(
        secret,
        day,
        positions=positions,
        shorten_positions=shorten,
        candidates=candidates,
        band=week[day.weekday()],
        games=settings.DAILY_DIFFICULTY_GAMES,
    )
    wins: dict[str, list[int]] = {}
    for level in LEVELS:
        wins[level.name] = [
            played.actions
            for k in range(games)
            if (played := play(found.code, level, f"{found.code}|{level.name}|par-margin|{k}")).won
        ]
    return {
        "day": day,
        "par": len(found.line),
        "label": found.difficulty.label,
        "wins": wins,
        "seconds": time.perf_counter() - start,
    }


def quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank: a value that was measured)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def within(values: list[float], margin: float) -> float:
    """The share of ``values`` (actions / par) at most ``1 + margin``."""
    return sum(v <= 1 + margin + 1e-9 for v in values) / len(values)


def spread(values: list[float]) -> str:
    if not values:
        return "| – | – | – | – |" + " – |" * len(MARGINS)
    return (
        f"| {min(values):.2f} | {quantile(values, 0.01):.2f} | {quantile(values, 0.05):.2f} "
        f"| {statistics.median(values):.2f} |"
        + "".join(f" {within(values, m):.1%} |" for m in MARGINS)
    )


#: The margins whose share of honest wins is printed.
MARGINS = (0.0, 0.02, 0.05, 0.10)
#: The most of a level's wins the suggested margin may flag.
FALSE_SHARE = 0.01


def suggested_margin(by_level: list[list[float]]) -> int:
    """The largest whole per cent (0 to 20) within which at most FALSE_SHARE of each level's
    wins come (-1: none)."""
    best = -1
    for percent in range(21):
        if all(within(ratios, percent / 100) <= FALSE_SHARE for ratios in by_level if ratios):
            best = percent
        else:
            break
    return best


def run(args: argparse.Namespace) -> str:
    first = dt.date.fromisoformat(args.first_day)
    days = [first + dt.timedelta(days=k) for k in range(args.days)]
    context = multiprocessing.get_context("spawn")
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs, mp_context=context) as executor:
        results = list(
            executor.map(
                day_figures,
                [args.secret.encode()] * len(days),
                days,
                [args.games] * len(days),
                [args.positions] * len(days),
                [args.shorten] * len(days),
                [args.candidates] * len(days),
            )
        )
    wall = time.perf_counter() - start
    pars = [r["par"] for r in results]
    rows = [
        "| player | games | wins | actions / par: min | p1 | p5 | median | "
        + " | ".join(f"wins within {m:.0%}" for m in MARGINS)
        + " |",
        "|---|" + "---:|" * (6 + len(MARGINS)),
    ]
    honest: list[float] = []
    by_level: list[list[float]] = []
    for level in LEVELS:
        ratios = [a / r["par"] for r in results for a in r["wins"][level.name]]
        honest += ratios
        by_level.append(ratios)
        rows.append(f"| {level.name} | {len(days) * args.games} | {len(ratios)} {spread(ratios)}")
    rows.append(f"| all honest winners | | {len(honest)} {spread(honest)}")
    under = [
        f"{r['day']} (par {r['par']}, best win {min(a for w in r['wins'].values() for a in w)})"
        for r in results
        if any(a < r["par"] for w in r["wins"].values() for a in w)
    ]
    lines = [
        f"{len(days)} days from {first} dealt as the service deals them (pars {min(pars)}–"
        f"{max(pars)}, median {statistics.median(pars):g}; labels "
        + ", ".join(sorted({r["label"] for r in results}))
        + f"), each played {args.games} times per level; {wall:.0f} s on {args.jobs} processes.",
        "",
        *rows,
        "",
        "Days where an honest win took fewer actions than par (the certified line was not "
        "shortened that far): " + ("; ".join(under) or "none") + ".",
    ]
    if honest:
        margin = suggested_margin(by_level)
        lines.append(
            f"Suggested near-par margin: {margin} % — the largest whole per cent within which "
            f"at most {FALSE_SHARE:.0%} of each level's wins come "
            f"({within(honest, margin / 100):.1%} of all honest wins)."
            if margin >= 0
            else f"No margin keeps each level's wins within it under {FALSE_SHARE:.0%}."
        )
    else:
        lines.append("No honest win: play more days or games.")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=14)
    parser.add_argument("--first-day", default="2030-01-07")
    parser.add_argument("--games", type=int, default=100, help="games per level and day")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    parser.add_argument("--positions", type=int, default=settings.DAILY_DEAL_POSITIONS)
    parser.add_argument("--shorten", type=int, default=settings.DAILY_DEAL_SHORTEN_POSITIONS)
    parser.add_argument("--candidates", type=int, default=settings.DAILY_DEAL_CANDIDATES)
    parser.add_argument("--secret", default=SECRET)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    host = machine(arch=True)
    figures = run(args)
    section = (
        f"## {HEADING}\n\n`.venv/bin/python benchmarks/par_margin.py --days {args.days} "
        f"--first-day {args.first_day} --games {args.games}` ({host})\n\n{figures}\n"
    )
    print(section)
    if args.write_docs:
        write_section(HEADING, section)


if __name__ == "__main__":
    main()
