"""Latency and throughput of POST /api/games/<id>/actions/ against GET /api/health/.

Starts Daphne (127.0.0.1, a free port) on a fresh database — a temporary SQLite file, and with
--postgres also a PostgreSQL database created and dropped for the run — signs up one player per
client, and measures both endpoints with 1 and 16 concurrent clients (threads, one keep-alive
connection each). Every client plays its own game: draw (D), or recycle (C) when the stock is empty,
so actions never run out; a client starts a new game after --game-length actions, so the logs the
server replays stay the length of real games. The action throttle is off for the run.

    .venv/bin/python benchmarks/api.py [--postgres] [--requests 400] [--seconds 20]
        [--write-docs]    # also replace the "API" section of docs/performance.md

Prints a table and, per concurrency, the ratio action p50 / health p50.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common import Daphne, django_env, machine, migrate, postgres_database, write_section

ROOT = Path(__file__).resolve().parent.parent
CONCURRENCY = (1, 16)
POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test"
BENCH_DB = "canfield_bench"


# --- the server ---------------------------------------------------------------------------------


@contextmanager
def server(database_url: str) -> Iterator[Daphne]:
    """A migrated database and one Daphne process on it."""
    env = django_env(database_url)
    migrate(env)
    with Daphne(env) as daphne:
        yield daphne


# --- the clients --------------------------------------------------------------------------------


class Client:
    """One keep-alive HTTP connection."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Token {token}"

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body)
        self.conn.request(method, path, body=data, headers=self.headers)
        response = self.conn.getresponse()
        payload = response.read()
        return response.status, json.loads(payload) if payload else None


class Player:
    """A signed-up client that always has a legal action to send: D, or C once the stock is out."""

    def __init__(self, port: int, name: str, game_length: int) -> None:
        status, body = Client(port).request(
            "POST", "/api/auth/signup/", {"username": name, "password": "bench-password-1"}
        )
        assert status == 201, (status, body)
        self.client = Client(port, body["token"])
        self.game_length = game_length
        self.new_game()

    def new_game(self) -> None:
        status, game = self.client.request("POST", "/api/games/", {"draw": 3})
        assert status == 201, (status, game)
        self.game = game

    def act(self) -> int:
        game = self.game
        if game["ply"] >= self.game_length:
            self.new_game()
            game = self.game
        action = "D" if game["state"]["stock"]["count"] else "C"
        status, body = self.client.request(
            "POST", f"/api/games/{game['id']}/actions/", {"ply": game["ply"], "action": action}
        )
        if status == 200:
            self.game = body
        return status

    def health(self) -> int:
        return self.client.request("GET", "/api/health/")[0]


@dataclass
class Run:
    endpoint: str
    clients: int
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    wall: float = 0.0

    def percentile(self, p: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.wall if self.wall else 0.0


def measure(endpoint: str, players: list[Player], requests: int, seconds: float) -> Run:
    """``requests`` requests in all (or until ``seconds`` pass), shared by the players' threads."""
    run = Run(endpoint, len(players))
    lock = threading.Lock()
    remaining = [requests]
    deadline = time.monotonic() + seconds
    start_line = threading.Barrier(len(players) + 1)

    def work(player: Player) -> None:
        call = player.act if endpoint == "action" else player.health
        start_line.wait()
        while time.monotonic() < deadline:
            with lock:
                if remaining[0] <= 0:
                    return
                remaining[0] -= 1
            t0 = time.perf_counter()
            status = call()
            elapsed = time.perf_counter() - t0
            with lock:
                if status == 200:
                    run.latencies.append(elapsed)
                else:
                    run.errors += 1

    threads = [threading.Thread(target=work, args=(p,)) for p in players]
    for t in threads:
        t.start()
    start_line.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    run.wall = time.perf_counter() - t0
    return run


def bench(database: str, database_url: str, args: argparse.Namespace) -> list[Run]:
    runs = []
    with server(database_url) as daphne:
        players = [
            Player(daphne.port, f"bench{i}", args.game_length) for i in range(max(CONCURRENCY))
        ]
        for clients in CONCURRENCY:
            group = players[:clients]
            measure("action", group, min(50, args.requests), 5)  # warm up
            for endpoint in ("health", "action"):
                run = measure(endpoint, group, args.requests, args.seconds)
                runs.append(run)
                print(f"  {database:10} {endpoint:7} {clients:2} clients: {len(run.latencies)} ok,"
                      f" {run.errors} errors", file=sys.stderr)  # fmt: skip
    return runs


# --- the report ---------------------------------------------------------------------------------


def table(results: dict[str, list[Run]]) -> str:
    lines = [
        "| database | endpoint | clients | requests | errors | p50 ms | p99 ms | req/s |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    ratios = []
    for database, runs in results.items():
        for run in runs:
            name = "POST actions" if run.endpoint == "action" else "GET health"
            lines.append(
                f"| {database} | {name} | {run.clients} | {len(run.latencies)} | {run.errors} "
                f"| {run.percentile(50):.1f} | {run.percentile(99):.1f} | {run.throughput:.0f} |"
            )
        for clients in CONCURRENCY:
            by = {r.endpoint: r for r in runs if r.clients == clients}
            ratio = by["action"].percentile(50) / by["health"].percentile(50)
            ratios.append(
                f"- {database}, {clients} client{'s' if clients > 1 else ''}: "
                f"action p50 / health p50 = {ratio:.1f}"
            )
    return "\n".join(lines + [""] + ratios)


def write_docs(report: str, command: str, host: str, sqlite_errors: int) -> None:
    section = (
        "## API\n\n"
        "POST /api/games/<id>/actions/ (a draw or a recycle: lock the game's row, rebuild the\n"
        "engine from the move log, apply, log the move, save the counters and the snapshot)\n"
        "against GET /api/health/ (no database) in the same run: one Daphne process, the clients\n"
        f"on the same machine ({host}). Each client plays its own games of up to\n"
        f"{ARGS.game_length} actions. Errors are answers other than 200; they are left out of the\n"
        "latencies.\n\n"
        f"Command: `{command}`\n\n{report}\n\n"
        "The aim is an action p50 within 2x the trivial endpoint's. Under concurrency the two\n"
        "share one event loop and the ratio stays below 2; a single client sees the action's own\n"
        "cost, which the trivial endpoint does not have: a transaction with the game's row\n"
        "locked, rebuilding the engine from the log, the log row and the snapshot write (about\n"
        "a handful of queries). On PostgreSQL every request used to open a new connection; each\n"
        "Daphne process now keeps a psycopg connection pool (`DB_POOL_MIN`/`DB_POOL_MAX`), which\n"
        "took the single-client action p50 from 19.3 ms to 7.7 ms in the same conditions.\n"
    )
    if sqlite_errors:
        section += (
            "\nSQLite's errors are 500s, `database is locked`: each request's transaction starts\n"
            "deferred, reads, then needs the write lock, and SQLite refuses the upgrade at once\n"
            "rather than risk a deadlock. Opening SQLite transactions with `BEGIN IMMEDIATE`\n"
            '(Django\'s `OPTIONS: {"transaction_mode": "IMMEDIATE"}`) removes them; PostgreSQL\n'
            "waits on the game's row lock instead.\n"
        )
    write_section("API", section)


def main() -> int:
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", action="store_true", help="also run on PostgreSQL")
    parser.add_argument("--postgres-url", default=POSTGRES_URL, help="a server to create it on")
    parser.add_argument("--requests", type=int, default=400, help="per endpoint and concurrency")
    parser.add_argument("--seconds", type=float, default=20, help="time limit per measurement")
    parser.add_argument("--game-length", type=int, default=200, help="actions per game")
    parser.add_argument("--write-docs", action="store_true", help="update docs/performance.md")
    ARGS = args = parser.parse_args()

    host = machine()
    results: dict[str, list[Run]] = {}
    with tempfile.TemporaryDirectory(prefix="canfield-bench-") as tmp:
        results["SQLite"] = bench("SQLite", f"sqlite:///{tmp}/bench.sqlite3", args)
    if args.postgres:
        with postgres_database(args.postgres_url, BENCH_DB) as url:
            results["PostgreSQL"] = bench("PostgreSQL", url, args)

    report = table(results)
    print(report)
    if args.write_docs:
        command = "python benchmarks/api.py " + " ".join(sys.argv[1:])
        errors = sum(run.errors for run in results["SQLite"])
        write_docs(report, command.strip(), host, errors)
    return 0


ARGS: argparse.Namespace

if __name__ == "__main__":
    sys.exit(main())
