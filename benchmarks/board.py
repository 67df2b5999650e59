"""The daily leaderboard: live fan-out latency and board query time.

(a) live: Daphne (127.0.0.1, a free port) on a temporary SQLite database seeded with a full day's
    board (--filler attempts, so that every update carries 100 rows), N websocket clients (the
    `websockets` package, asyncio) watching today's board, then a few players each playing one
    scoring move over HTTP. Measured per move: from the HTTP response to the moment the last of
    the N watchers has received an update that shows it. Once with the in-memory channel layer
    and, when Redis answers, once with channels_redis (the cache on Redis too). N = 100 and 1,000.
(b) board: a day with 100,000 attempts bulk-created in a temporary SQLite file and, when
    PostgreSQL answers, in a temporary PostgreSQL database (created and dropped for the run);
    the time of the board's queries (median and p90 of --repeat runs, after a warm-up).

    .venv/bin/python benchmarks/board.py [--watchers 100 1000] [--moves 5]
        [--attempts 100000] [--skip-live] [--skip-board]
        [--write-docs]    # also replace the "Leaderboard" section of docs/performance.md

Bounded: every wait has a deadline, and the script gives up (and says so) past --deadline seconds
for one fan-out. Needs an open-files limit above 2 x N (raised to the hard limit when possible).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import hashlib
import hmac
import json
import os
import random
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from common import (
    Daphne,
    django_env,
    machine,
    next_action,
    post_json,
    postgres_database,
    write_section,
)

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
POSTGRES_URL = (
    os.environ.get("DATABASE_URL", "").strip() or "postgres://postgres@127.0.0.1:5432/test"
)
REDIS_URL = os.environ.get("REDIS_URL", "").strip() or "redis://127.0.0.1:6379/0"
PASSWORD = "bench-password-0123"


# --- helpers ------------------------------------------------------------------------------------


def postgres_admin_url() -> str:
    return urlunsplit(urlsplit(POSTGRES_URL)._replace(path="/postgres"))


def postgres_available() -> bool:
    try:
        import psycopg

        with psycopg.connect(postgres_admin_url(), connect_timeout=3):
            return True
    except Exception:
        return False


def redis_available() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping())
    except Exception:
        return False


def raise_open_files(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(needed, soft)), hard))


# --- worker: seeding and board queries (run in a subprocess with DATABASE_URL set) -------------


def setup_django() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canfield_site.settings")
    django.setup()


def seed(
    day: dt.date, attempts: int, prefix: str, rng: random.Random, low: bool = False
) -> list[int]:
    """Bulk-create ``attempts`` players, each with a daily attempt of ``day``; returns their ids.
    ``low``: every attempt with its base card alone on the foundations, so that a player with one
    card more ranks above them all."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    from games.models import Game
    from leaderboard.models import DailyDeal
    from leaderboard.services import daily_deal

    DailyDeal.objects.get_or_create(date=day)
    code = str(daily_deal(day))
    now = timezone.now()
    day_start = dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)
    span = max(60.0, (min(now, day_start + dt.timedelta(days=1)) - day_start).total_seconds() - 60)
    ids: list[int] = []
    batch = 5000
    for first in range(0, attempts, batch):
        size = min(batch, attempts - first)
        users = User.objects.bulk_create(
            [User(username=f"{prefix}{first + i:06}", password="!") for i in range(size)]
        )
        games = []
        for user in users:
            start = day_start + dt.timedelta(seconds=rng.uniform(0, span - 30))
            roll = rng.random()
            if low:
                status, cards = rng.choice(["resigned", "in_progress"]), 1
            elif roll < 0.08:
                status, cards = "won", 52
            elif roll < 0.5:
                status, cards = "resigned", rng.choice([1, 2, 3, 4, 5, 6, 8, 10, 13, 20, 30, 45])
            else:
                status, cards = "in_progress", rng.randint(1, 40)
            actions = rng.randint(cards, cards * 4 + 200)
            finished = None
            if status != "in_progress":
                finished = min(now, start + dt.timedelta(seconds=rng.uniform(30, 1800)))
            games.append(
                Game(
                    owner=user,
                    code=code,
                    kind="daily",
                    daily_date=day,
                    status=status,
                    score=(cards - 1) * 5 + rng.choice([0, 0, 0, 5, 10]),
                    ply=actions,
                    foundation_cards=cards,
                    started_at=start,
                    finished_at=finished,
                )
            )
        Game.objects.bulk_create(games)
        ids.extend(user.pk for user in users)
    return ids


def timed(call: Any, repeat: int) -> tuple[float, float]:
    call()  # warm-up
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.9))]


def board_worker(args: argparse.Namespace) -> None:
    setup_django()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from games.clock import utc_today
    from leaderboard import ranking, services

    call_command("migrate", verbosity=0)
    rng = random.Random(7)
    today = utc_today()
    t0 = time.perf_counter()
    seed(today - dt.timedelta(days=1), args.attempts // 10, "y", rng)  # another day beside it
    seed(today, args.attempts, "p", rng)
    seeded = time.perf_counter() - t0
    if connection.vendor == "postgresql":  # what autovacuum does to a table after bulk loads
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE games_game")
    viewer = User.objects.get(username=f"p{args.attempts // 2:06}")
    count = ranking.attempts(today).count()
    pages = -(-count // ranking.PAGE_SIZE)
    measures = {
        "board page 1 (count, 100 rows, seq)": lambda: services.board(today, 1, None),
        "board page 1 with my row ranked (me)": lambda: services.board(today, 1, viewer),
        f"board page {pages} (the last)": lambda: services.board(today, pages, None),
        "live snapshot / update rows (top 100 + count)": lambda: services.snapshot_frame(today, 1),
        "rank of one attempt (rank_of)": lambda: ranking.rank_of(
            viewer.games.get(daily_date=today), timezone.now()
        ),
        "player page (stats, history with ranks)": lambda: services.player(viewer.username),
    }
    results = {name: timed(call, args.repeat) for name, call in measures.items()}
    print(
        json.dumps(
            {
                "vendor": connection.vendor,
                "attempts": count,
                "seeded_seconds": round(seeded, 1),
                "results": results,
            }
        )
    )


def seed_worker(args: argparse.Namespace) -> None:
    setup_django()
    from django.core.management import call_command

    from games.clock import utc_today

    call_command("migrate", verbosity=0)
    seed(utc_today(), args.attempts, "f", random.Random(11), low=True)


# --- (b) board ----------------------------------------------------------------------------------


def run_board(database: str, url: str, args: argparse.Namespace) -> dict[str, Any]:
    print(f"  board: seeding {args.attempts:,} attempts in {database} ...", file=sys.stderr)
    out = subprocess.run(
        [
            PYTHON,
            __file__,
            "_board",
            "--attempts",
            str(args.attempts),
            "--repeat",
            str(args.repeat),
        ],
        cwd=ROOT,
        env=django_env(url),
        check=True,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    result["database"] = database
    return result


# --- (a) live -----------------------------------------------------------------------------------


def secret_for(day: dt.date) -> str:
    """A DAILY_DEAL_SECRET whose deal of ``day`` offers a scoring move within a few actions."""
    from games.engine import Action, Canfield, DealCode

    while True:
        secret = secrets.token_hex(16)
        # leaderboard.services.deal_number, without setting Django up in this process.
        digest = hmac.new(secret.encode(), day.isoformat().encode(), hashlib.sha256).digest()
        engine = Canfield(DealCode(int.from_bytes(digest, "big") % 26**7, 3, "app"))
        for _ in range(20):
            token, scoring = next_action([a.token() for a in engine.legal_moves])
            if scoring:
                return secret
            engine.push(Action.parse(token))


class Player:
    """A player whose attempt stands one action before a scoring move."""

    def __init__(self, base: str, name: str) -> None:
        self.base, self.name = base, name
        self.token = self.post("/api/auth/signup/", {"username": name, "password": PASSWORD})[
            "token"
        ]
        self.game = self.post("/api/daily/")
        for _ in range(60):
            action, scoring = next_action(self.game["state"]["legal"])
            if scoring:
                self.scoring = action
                return
            self.move(action)
        raise SystemExit(f"{name}: no scoring move found")

    def move(self, action: str) -> None:
        self.game = self.post(
            f"/api/games/{self.game['id']}/actions/", {"ply": self.game["ply"], "action": action}
        )

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        status, answer = post_json(self.base + path, body, getattr(self, "token", ""))
        if status >= 400:
            raise SystemExit(f"{self.name}: {path} answered {status} {answer}")
        return answer


async def watch(
    url: str, origin: str, name_box: list[str], arrivals: dict[int, float], index: int
) -> Any:
    from websockets.asyncio.client import connect

    ws = await connect(url, origin=origin, open_timeout=60, max_size=2**22)  # type: ignore[arg-type]
    snapshot = json.loads(await ws.recv())
    assert snapshot["type"] == "snapshot"

    async def listen() -> None:
        async for text in ws:
            name = name_box[0]
            if name and index not in arrivals and f'"player":"{name}"' in text:
                message = json.loads(text)
                row = next((r for r in message["results"] if r["player"] == name), None)
                if row is not None and row["score"] >= 5:
                    arrivals[index] = time.monotonic()

    return ws, asyncio.get_running_loop().create_task(listen())


async def fan_out(
    port: int, watchers: int, players: list[Player], deadline: float
) -> tuple[list[float], float]:
    day = dt.datetime.now(dt.UTC).date().isoformat()
    url = f"ws://127.0.0.1:{port}/ws/daily/{day}/"
    origin = f"http://127.0.0.1:{port}"
    name_box = [""]
    arrivals: dict[int, float] = {}
    gate = asyncio.Semaphore(50)

    async def one(i: int) -> Any:
        async with gate:
            return await watch(url, origin, name_box, arrivals, i)

    t0 = time.monotonic()
    clients = await asyncio.gather(*(one(i) for i in range(watchers)))
    connected = time.monotonic() - t0
    print(f"    {watchers} watchers connected in {connected:.1f} s", file=sys.stderr)
    latencies = []
    try:
        for player in players:
            await asyncio.sleep(1.0)  # a quiet board: nothing pending
            arrivals.clear()
            name_box[0] = player.name
            await asyncio.to_thread(player.move, player.scoring)
            moved = time.monotonic()
            while len(arrivals) < watchers and time.monotonic() - moved < deadline:
                await asyncio.sleep(0.005)
            if len(arrivals) < watchers:
                print(
                    f"    gave up after {deadline} s: {len(arrivals)}/{watchers} received",
                    file=sys.stderr,
                )
                latencies.append(float("inf"))
            else:
                latencies.append(max(arrivals.values()) - moved)
            print(f"    move by {player.name}: {latencies[-1] * 1000:.0f} ms", file=sys.stderr)
    finally:
        for ws, task in clients:
            task.cancel()
            await ws.close()
    return latencies, connected


def run_live(layer: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    results = []
    today = dt.datetime.now(dt.UTC).date()
    with tempfile.TemporaryDirectory(prefix="canfield-bench-lb-") as tmp:
        url = f"sqlite:///{tmp}/bench.sqlite3"
        redis_url = REDIS_URL if layer == "Redis" else None
        env = django_env(url, redis_url, DAILY_DEAL_SECRET=secret_for(today))
        print(f"  live ({layer}): seeding {args.filler} attempts ...", file=sys.stderr)
        subprocess.run(
            [PYTHON, __file__, "_seed", "--attempts", str(args.filler)],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=600,
        )
        with Daphne(env) as server:
            run_id = secrets.token_hex(3)
            for watchers in args.watchers:
                players = [
                    Player(server.url, f"b{run_id}w{watchers}m{i}") for i in range(args.moves)
                ]
                latencies, connected = asyncio.run(
                    fan_out(server.port, watchers, players, args.deadline)
                )
                results.append(
                    {
                        "layer": layer,
                        "watchers": watchers,
                        "latencies": latencies,
                        "connected": connected,
                    }
                )
    return results


# --- the report ---------------------------------------------------------------------------------


def live_table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| channel layer | watchers | moves | median ms | max ms | all connected in s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lat = [x * 1000 for x in row["latencies"]]
        lines.append(
            f"| {row['layer']} | {row['watchers']:,} | {len(lat)} "
            f"| {statistics.median(lat):.0f} | {max(lat):.0f} | {row['connected']:.1f} |"
        )
    return "\n".join(lines)


def board_table(rows: list[dict[str, Any]]) -> str:
    lines = ["| database | query | median ms | p90 ms |", "|---|---|---:|---:|"]
    for row in rows:
        for name, (median, p90) in row["results"].items():
            lines.append(f"| {row['database']} | {name} | {median:.1f} | {p90:.1f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("worker", nargs="?", choices=["_board", "_seed"], help=argparse.SUPPRESS)
    parser.add_argument("--watchers", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--moves", type=int, default=5, help="scoring moves per fan-out")
    parser.add_argument("--filler", type=int, default=300, help="attempts on the live board")
    parser.add_argument("--attempts", type=int, default=100_000, help="attempts for (b)")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--deadline", type=float, default=10.0, help="seconds per fan-out")
    parser.add_argument("--skip-live", action="store_true")
    parser.add_argument("--skip-board", action="store_true")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    if args.worker == "_board":
        board_worker(args)
        return 0
    if args.worker == "_seed":
        seed_worker(args)
        return 0

    host = machine()
    raise_open_files(4 * max(args.watchers) + 256)
    live: list[dict[str, Any]] = []
    board: list[dict[str, Any]] = []
    if not args.skip_live:
        live += run_live("in-memory", args)
        if redis_available():
            live += run_live("Redis", args)
        else:
            print("  live: Redis does not answer, skipped", file=sys.stderr)
    if not args.skip_board:
        with tempfile.TemporaryDirectory(prefix="canfield-bench-lb-") as tmp:
            board.append(run_board("SQLite", f"sqlite:///{tmp}/bench.sqlite3", args))
        if postgres_available():
            name = f"canfield_bench_lb_{secrets.token_hex(4)}"
            with postgres_database(postgres_admin_url(), name) as url:
                board.append(run_board("PostgreSQL", url, args))
        else:
            print("  board: PostgreSQL does not answer, skipped", file=sys.stderr)

    parts = []
    if live:
        parts.append(live_table(live))
        print(parts[-1])
    if board:
        parts.append(board_table(board))
        print(parts[-1])
    if args.write_docs:
        command = "python benchmarks/board.py " + " ".join(sys.argv[1:])
        write_section("Leaderboard", docs_section(command.strip(), host, live, board, parts))
    return 0


def docs_section(
    command: str,
    host: str,
    live: list[dict[str, Any]],
    board: list[dict[str, Any]],
    parts: list[str],
) -> str:
    text = f"## Leaderboard\n\nCommand: `{command}` ({host}).\n\n"
    if live:
        filler = live and "a day with a full board (100 rows in every update)"
        text += (
            "**Live fan-out.** One Daphne process on SQLite, "
            f"{filler}; N websocket clients (asyncio, `websockets`) in one process on the same "
            "machine watch today's board. Each move is one player's scoring move over HTTP; "
            "the time runs from its HTTP response until the last of the N watchers has received "
            "the update that shows it. That includes the broadcast window "
            "(`LEADERBOARD_BROADCAST_DELAY`, 0.25 s): changes are coalesced, one update per "
            "window and day.\n\n"
            f"{parts[0]}\n\n"
            "Most of it is the window; the rest is one board query, the fan-out by the channel "
            "layer and, with 1,000 watchers, writing 1,000 frames of ~20 KB and reading them in "
            "one client process. The last column is the time for all N to connect and get their "
            "snapshot (one board query each, run one at a time by Daphne's database thread).\n\n"
        )
    if board:
        sizes = ", ".join(
            f"{r['database']}: {r['attempts']:,} attempts seeded in {r['seeded_seconds']} s"
            for r in board
        )
        text += (
            "**Board queries** for one day of 100,000 attempts (plus 10,000 the day before), "
            f"bulk-created ({sizes}); median and p90 of the service calls, after a warm-up. "
            "PostgreSQL's table is vacuumed and analysed after the load, as autovacuum would.\n\n"
            f"{parts[-1]}\n\n"
            "How (leaderboard/ranking.py): one ORDER BY over the five keys sorted the whole day "
            "(540 ms on SQLite, 58 ms on PostgreSQL for page 1). Instead the board counts the "
            "day's attempts per (won, cards) from the `games_daily_board` index alone (at most 53 "
            "groups), then per actions inside the one or two groups where the page begins and "
            "ends, and fetches and sorts only the attempts between those keys; a rank is the "
            "same counts plus the ties of its own (won, cards, actions). Any page costs the same. "
            "On SQLite `kind = 'daily'` is written as a literal, as in the partial index's WHERE "
            "clause: with a bound parameter SQLite checks every row (a count of 100,000 takes "
            "100 ms instead of 7). A past day's counts are final and cached.\n"
        )
    return text


if __name__ == "__main__":
    sys.exit(main())
