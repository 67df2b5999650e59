"""Seasons on a big day: what the worker tier does when a day of --attempts attempts (default
1,000,000) settles, and what the pages read afterwards, on PostgreSQL.

A day of --attempts attempts, one a player, is bulk-created in a scratch PostgreSQL database
(``board.seed``, as benchmarks/board.py fills its day), vacuumed and analysed, and settled
(``standings.settle_day``: its final ranks). Then, timed once each, as the worker runs them:

- the league week's placements and the day's points (``leagues.services.score_day``: every
  player is a newcomer, so a division of 30 is made for each 30 of them) — aim ≤ 60 s;
- the day's ratings (``ratings.services.rate_due``: the day cut into matches of 30, rated with
  openskill) — aim ≤ 10 min;
- the day added to the week's, month's and all-time standings (``leaderboard.periods.count_day``).

And the reads, median and p90 of --repeat calls after a warm-up — aim ≤ 10 ms each:

- a player's division and its table (``leagues.services.division_of``, what
  ``GET /api/leagues/<week>/`` answers), for players drawn at random;
- the week's standings table, its first page and its last (``leaderboard.periods.table``) — every
  player listed (the minimum of days waived by marking the rows listed, as a week of three days
  played would, then placed by ``periods.place`` as a day added places them, its time printed),
  so that each page is a range of places of a table of a million rows;
- the rating board's first page (``ratings.services.board``; every player made non-provisional
  the same way);
- the same division read during the day, its week open: the members' points so far and their
  live points of today (``leagues.services.provisional``), from the day's board in Redis (its
  sets built from SQL, as the worker builds them; a private redis-server unless --redis-url).

    .venv/bin/python benchmarks/seasons.py [--attempts 1000000] [--repeat 50] [--write-docs]
        [--redis-url URL]

Loopback only; the scratch database is dropped at the end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import RedisServer, django_env, machine, postgres_database, timed, write_section

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres"
AIMS = {"leagues": 60.0, "ratings": 600.0, "read_ms": 10.0}


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def once(call: Any) -> float:
    t0 = time.perf_counter()
    call()
    return time.perf_counter() - t0


def worker(args: argparse.Namespace) -> None:
    """In a process of its own, with DATABASE_URL set: fill and settle the day, measure."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canfield_site.settings")
    django.setup()
    from board import seed
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connection
    from django.db.models import F
    from django.utils import timezone

    from games.clock import day_end, utc_today
    from leaderboard import periods, standings
    from leaderboard.models import PeriodStanding, PeriodTable
    from leaderboard.standings import sets
    from leagues import services as leagues
    from leagues.rules import week_of
    from ratings import services as ratings
    from ratings.models import Rating

    call_command("migrate", verbosity=0)
    day = utc_today()
    settled = day_end(day) + dt.timedelta(minutes=2)  # (the day over and settled)
    t0 = time.perf_counter()
    seed(day, args.attempts, "s", random.Random(3))
    seeded = time.perf_counter() - t0
    with connection.cursor() as cursor:  # what autovacuum does to the tables after bulk loads
        for table in ("games_game", "auth_user"):
            cursor.execute(f"VACUUM ANALYZE {table}")
    settle = once(lambda: standings.settle_day(day, now=settled))

    work = {
        "leagues: placements and points (score_day)": once(
            lambda: leagues.score_day(day, now=settled)
        ),
        "ratings: the day's matches rated (rate_due)": once(lambda: ratings.rate_due(now=settled)),
        "standings: the day added to its week, month and all time (count_day)": once(
            lambda: periods.count_day(day)
        ),
    }

    print(json.dumps({"work": work}), file=sys.stderr)  # (the worker's figures, come what may)
    # The reads' shapes of a season under way: every row listed, every rating past provisional
    # (a set-up of millions of rows: past the service's statement timeout).
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 0")
    PeriodStanding.objects.update(listed=True)
    PeriodTable.objects.update(listed=F("players"))
    # (the week's rows listed here, not by days added: numbered as a day added numbers them)
    placed = once(lambda: periods.place("week", periods.period_start("week", day)))
    Rating.objects.update(days=5)
    with connection.cursor() as cursor:
        for table in (
            "leaderboard_periodstanding",
            "ratings_rating",
            "leagues_membership",
            "leagues_division",
        ):
            cursor.execute(f"VACUUM ANALYZE {table}")
        cursor.execute("RESET statement_timeout")  # (the reads: the service's bound)

    pick = random.Random(5)
    ids = list(User.objects.filter(username__startswith="s").values_list("pk", flat=True))
    players = [User.objects.get(pk=pk) for pk in pick.sample(ids, 20)]
    monday = week_of(day)
    turn = iter(range(10**9))

    def division() -> None:
        leagues.division_of(players[next(turn) % len(players)], monday, now=settled)

    last = periods.table("week", day)["pages"]
    reads = {
        "a player's division and its table (division_of)": timed(division, args.repeat),
        "the week's standings, first page (table)": timed(
            lambda: periods.table("week", day), args.repeat
        ),
        f"the week's standings, last page ({last:,})": timed(
            lambda: periods.table("week", day, page=last), max(5, args.repeat // 5)
        ),
        "the rating board, first page (board)": timed(
            lambda: ratings.board_rows(list(ratings.board()[:50]), 0), args.repeat
        ),
    }
    # The division read during the day: its week open, today in it, and the day's board in
    # Redis, as a member's page reads it before the day settles — every member's points so far
    # and their live points of today (``leagues.services.provisional``: their ranks on today's
    # whole board of --attempts attempts, one round trip). (The day's settled rows stand in for
    # the days before it: a week's rows read the same way whichever days they are.)
    sets.forget(day)
    assert sets.rebuild(day)
    during = timezone.now()
    assert during < day_end(day) and week_of(during.date()) == monday
    sample = leagues.division_of(players[0], monday, now=during)
    assert not sample["closed"] and all(row["today"] is not None for row in sample["rows"])

    def division_live() -> None:
        leagues.division_of(players[next(turn) % len(players)], monday, now=timezone.now())

    reads["a player's division, today's points live (division_of, Redis)"] = timed(
        division_live, args.repeat
    )
    print(
        json.dumps(
            {
                "attempts": standings.attempts(day).count(),
                "seeded_seconds": round(seeded, 1),
                "settle_seconds": round(settle, 1),
                "placed_seconds": round(placed, 1),
                "work": work,
                "reads": reads,
            }
        )
    )


def table(result: dict[str, Any]) -> str:
    lines = ["| the worker's work, once | seconds | aim |", "|---|---:|---|"]
    aims = [AIMS["leagues"], AIMS["ratings"], None]
    for (name, seconds), aim in zip(result["work"].items(), aims, strict=True):
        verdict = "" if aim is None else f"≤ {aim:g} s: {'met' if seconds <= aim else 'not met'}"
        lines.append(f"| {name} | {seconds:.1f} | {verdict} |")
    lines += ["", "| read | median ms | p90 ms | aim |", "|---|---:|---:|---|"]
    for name, (median, p90) in result["reads"].items():
        met = "met" if median <= AIMS["read_ms"] else "not met"
        lines.append(f"| {name} | {median:.1f} | {p90:.1f} | ≤ {AIMS['read_ms']:g} ms: {met} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("worker", nargs="?", choices=["_run"], help=argparse.SUPPRESS)
    parser.add_argument("--attempts", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--postgres-url", default=POSTGRES_URL)
    parser.add_argument("--redis-url", default="", help="default: a private redis-server")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    if args.worker == "_run":
        worker(args)
        return 0

    host = machine()
    with (
        tempfile.TemporaryDirectory(prefix="canfield-redis-") as tmp,
        RedisServer(Path(tmp)) as redis,
        postgres_database(args.postgres_url, f"canfield_seasons_{secrets.token_hex(3)}") as url,
    ):
        print(f"  seeding {args.attempts:,} attempts ...", file=sys.stderr)
        out = subprocess.run(
            [PYTHON, __file__, "_run", "--attempts", str(args.attempts)]
            + ["--repeat", str(args.repeat)],
            cwd=ROOT,
            env=django_env(url, args.redis_url or redis.url),
            capture_output=True,
            text=True,
            timeout=7200,
        )
    if out.returncode != 0:
        print(out.stderr, file=sys.stderr)
        return out.returncode
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    text = table(result)
    print(text)
    print(
        f"({result['attempts']:,} attempts seeded in {result['seeded_seconds']} s, settled in "
        f"{result['settle_seconds']} s; the week's places written in {result['placed_seconds']} s; "
        f"load average after the run: {load()})"
    )
    if args.write_docs:
        command = "python benchmarks/seasons.py " + " ".join(sys.argv[1:])
        write_section("Seasons", section(command.strip(), host, result, text))
    return 0


def section(command: str, host: str, result: dict[str, Any], text: str) -> str:
    return (
        f"## Seasons\n\nCommand: `{command}` ({host}; after the run {load()}).\n\n"
        f"A day of {result['attempts']:,} attempts, one a player, in PostgreSQL, bulk-created in "
        f"{result['seeded_seconds']} s and settled in {result['settle_seconds']} s; then what the "
        "worker tier does with it, each once: the league week's placements (every player a "
        "newcomer: a division of 30 for each 30 of them) and the day's points; the day's "
        "ratings (matches of 30 neighbours, openskill's Plackett-Luce); the day added to the "
        "week's, month's and all-time standings. Then the pages' reads, median and p90 after a "
        "warm-up, with every standings row listed and every rating past provisional (as a "
        "season under way has them): a player's division and its table, drawn at random; the "
        "week's standings, first and last page (read by stored place: the week's "
        f"{result['attempts']:,} rows, once listed, were placed by one UPDATE over a window "
        f"function in {result['placed_seconds']} s, as a day added places them); the rating "
        "board's first page; and the division read again during the day, with every member's "
        "live points of today from their ranks on the day's whole board in Redis.\n\n"
        f"{text}\n"
    )


if __name__ == "__main__":
    sys.exit(main())
