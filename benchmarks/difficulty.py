"""The simulated players and the daily deal's difficulty: ``python benchmarks/difficulty.py``.

Two parts (``--only deals`` or ``--only week`` to run one):

- **deals**: ``--deals`` keyed candidates of a benchmark secret (draw 3, app rules: the daily
  deal's), the dead ones left out, each played ``--games`` times by each level of simulated
  player (``games.engine.players``) and solved from its start within ``--positions`` positions:
  how often each level wins and how many cards it places, next to the solver's winnable share;
  how the casual player's share of wins spreads over the deals (the labels, and the share of
  deals inside each weekday's band: a day tries about one over that many candidates).
- **week**: seven days, Monday to Sunday from ``--monday``, certified one after the other as the
  service certifies them — ``games.pool_jobs.certify_day`` in a solver pool of one worker process,
  with the settings' defaults (``DAILY_DEAL_POSITIONS``, ``DAILY_DEAL_SHORTEN_POSITIONS``,
  ``DAILY_DEAL_CANDIDATES``, ``DAILY_DIFFICULTY_GAMES``, ``DAILY_DIFFICULTY_WEEK``): each day's
  candidate, band, share and label, and the seconds its dealing took in the pool.

It prints the figures with the aims met or not: each day of the week inside its band, each dealt
within 60 s, the casual player winning at least a third of its games on the days of the easiest
band. ``--write-docs`` puts each part in its section of docs/difficulty.md ("Random deals", "A
week of days"). The machine is shared: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from common import ROOT, machine, write_section

from canfield_site import settings
from games import pool_jobs
from games.engine import daily_deal_code, is_dead
from games.engine.certify import Certified
from games.engine.difficulty import LABELS, Band, label_of, play_level
from games.engine.players import LEVELS
from games.engine.solver import solve

DOCS = ROOT / "docs" / "difficulty.md"
SECRET = b"the benchmark secret of the difficulty figures"
FIRST_DAY = dt.date(2030, 1, 1)
#: The aims.
DEALING_SECONDS = 60.0
EASIEST_SHARE = 1 / 3


def candidates(count: int) -> list[str]:
    """``count`` live (not dead) keyed candidates: candidate 0 of the days from FIRST_DAY on."""
    codes: list[str] = []
    day = FIRST_DAY
    while len(codes) < count:
        code = daily_deal_code(SECRET, day, 0)
        if not is_dead(code):
            codes.append(str(code))
        day += dt.timedelta(days=1)
    return codes


def figures_of(code: str, games: int, positions: int) -> dict[str, Any]:
    """One deal: each level's wins and cards, and the solver's outcome."""
    start = time.perf_counter()
    levels = {}
    for level in LEVELS:
        began = time.perf_counter()
        result = play_level(code, level, games)
        levels[level.name] = {
            "wins": result.wins,
            "cards": result.cards,
            "seconds": time.perf_counter() - began,
        }
    outcome = solve(code, max_positions=positions, shorten=False).outcome
    return {"levels": levels, "solver": outcome, "seconds": time.perf_counter() - start}


def run_deals(args: argparse.Namespace) -> str:
    codes = candidates(args.deals)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(args.jobs, mp_context=context) as executor:
        results = list(
            executor.map(
                figures_of, codes, [args.games] * len(codes), [args.positions] * len(codes)
            )
        )
    n, games = len(results), args.games
    solver = Counter(r["solver"] for r in results)
    won = [r for r in results if r["solver"] == "win"]
    rows = [
        "| player | games won | games won on the deals the solver wins | mean cards | deals won "
        "at least once | seconds a game |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for level in LEVELS:
        wins = sum(r["levels"][level.name]["wins"] for r in results)
        cards = sum(r["levels"][level.name]["cards"] for r in results)
        wins_winnable = sum(r["levels"][level.name]["wins"] for r in won)
        once = sum(1 for r in results if r["levels"][level.name]["wins"])
        seconds = sum(r["levels"][level.name]["seconds"] for r in results) / (n * games)
        rows.append(
            f"| {level.name} | {wins / (n * games):.1%} | "
            f"{wins_winnable / max(1, len(won) * games):.1%} | {cards / (n * games):.1f} | "
            f"{once / n:.0%} | {seconds * 1000:.0f} ms |"
        )
    rows.append(
        f"| solver ({args.positions:,} positions) | {solver['win'] / n:.1%} winnable "
        f"({solver['no_win'] / n:.1%} proved lost, {solver['unknown'] / n:.1%} undecided) "
        "| | | | |"
    )
    shares = [r["levels"]["casual"]["wins"] / games for r in results]
    labels = Counter(label_of(share) for share in shares)
    spread = ", ".join(f"{label} {labels[label] / n:.0%}" for label, _ in LABELS)
    week: tuple[Band, ...] = settings.DAILY_DIFFICULTY_WEEK
    bands = ", ".join(
        f"{band} {sum(band.holds(round(s * games), games) for s in shares) / n:.0%}"
        for band in dict.fromkeys(week)
    )
    inside = [
        s
        for s, r in zip(shares, results, strict=True)
        if r["solver"] == "win" and week[0].holds(round(s * games), games)
    ]
    return "\n".join(
        [
            f"{n} keyed candidates (dead ones left out), {games} games per level each, "
            f"{statistics.fmean(r['seconds'] for r in results):.1f} s per deal for all levels "
            "and the solver.",
            "",
            *rows,
            "",
            f"The casual player's share of wins, by label: {spread}.",
            f"Deals inside each band of the week (and winnable or not): {bands}; "
            f"inside the easiest band ({week[0]}) and proved winnable: {len(inside) / n:.0%}.",
        ]
    )


def deal_day(day: dt.date, secret: bytes) -> tuple[Certified, float]:
    """Certify ``day`` as the service does, in a pool worker; its result and wall seconds."""
    week: tuple[Band, ...] = settings.DAILY_DIFFICULTY_WEEK
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        pool.submit(pool_jobs.nothing).result()  # the worker started, as a server's warm-up does
        start = time.perf_counter()
        found = pool.submit(
            pool_jobs.certify_day,
            secret,
            day,
            settings.DAILY_DEAL_POSITIONS,
            settings.DAILY_DEAL_SHORTEN_POSITIONS,
            settings.DAILY_DEAL_CANDIDATES,
            settings.DAILY_DEAL_SECONDS,
            week[day.weekday()],
            settings.DAILY_DIFFICULTY_GAMES,
        ).result()
        return found, time.perf_counter() - start


def run_week(args: argparse.Namespace) -> str:
    monday = dt.date.fromisoformat(args.monday)
    if monday.weekday() != 0:
        raise SystemExit(f"--monday: {monday} is a {monday:%A}")
    rows = [
        "| day | band | candidate | casual player wins | label | novice / expert win | par "
        "| seconds in the pool |",
        "|---|---|---:|---:|---|---|---:|---:|",
    ]
    inside = fast = easy = True
    for k in range(7):
        day = monday + dt.timedelta(days=k)
        found, seconds = deal_day(day, args.secret.encode())
        difficulty = found.difficulty
        middle = difficulty.middle
        by_level = {r.level: r for r in difficulty.levels}
        inside &= found.band.holds(middle.wins, middle.games)
        fast &= seconds <= DEALING_SECONDS
        if k == 0:
            easy &= middle.share >= EASIEST_SHARE
        rows.append(
            f"| {day:%a} {day} | {found.band} | {found.n} | {middle.wins}/{middle.games} "
            f"({middle.share:.0%}) | {difficulty.label} | {by_level['novice'].share:.0%} / "
            f"{by_level['expert'].share:.0%} | {len(found.line)} | {seconds:.1f} |"
        )
        print(rows[-1], file=sys.stderr)
    aims = [
        f"- every day's share of wins inside its band: {aim(inside)}",
        f"- every day dealt within {DEALING_SECONDS:g} s in the pool: {aim(fast)}",
        f"- the easiest band (Monday's): the casual player wins at least a third: {aim(easy)}",
    ]
    return "\n".join(
        [
            f"Monday {monday} to Sunday, dealt one after the other, each in a pool of one worker "
            f"process with the default budgets ({settings.DAILY_DEAL_POSITIONS:,} positions to "
            f"decide, {settings.DAILY_DEAL_SHORTEN_POSITIONS:,} to shorten, "
            f"{settings.DAILY_DIFFICULTY_GAMES} games per level).",
            "",
            *rows,
            "",
            *aims,
        ]
    )


def aim(met: bool) -> str:
    return "met" if met else "**not met**"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("deals", "week"))
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--games", type=int, default=settings.DAILY_DIFFICULTY_GAMES)
    parser.add_argument("--positions", type=int, default=200_000)
    parser.add_argument("--jobs", type=int, default=1, help="processes for the deals' figures")
    parser.add_argument("--monday", default="2030-01-07")
    parser.add_argument("--secret", default="the benchmark secret of the weekly rhythm")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    host = machine(arch=True)
    parts = []
    if args.only != "week":
        command = f"--deals {args.deals} --games {args.games} --positions {args.positions}"
        parts.append(("Random deals", command, run_deals(args)))
    if args.only != "deals":
        parts.append(("A week of days", f"--monday {args.monday}", run_week(args)))
    for heading, options, figures in parts:
        section = (
            f"## {heading}\n\n`.venv/bin/python benchmarks/difficulty.py --only "
            f"{'deals' if heading == 'Random deals' else 'week'} {options}` ({host})\n\n"
            f"{figures}\n"
        )
        print(section)
        if args.write_docs:
            write_section(heading, section, DOCS)


if __name__ == "__main__":
    main()
