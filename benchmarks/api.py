"""Latency and throughput of POST /api/games/<id>/actions/ against GET /api/health/.

Starts Daphne (127.0.0.1, a free port) on a fresh database — a temporary SQLite file, and with
--postgres also a PostgreSQL database created and dropped for the run (synchronous_commit off,
as docker-compose deploys it: DB_SYNCHRONOUS_COMMIT=0) — signs up one player per client, and
measures both endpoints (one keep-alive connection per client thread). Every client plays its
own game: draw (D), or recycle (C) when the stock is empty, so actions never run out.

- One client, by game length (--lengths, default 10, 1,000 and 3,000 actions): a game per length
  is first played to it (not measured), then --requests actions are measured on each, taking the
  games in turn so that all lengths share the same conditions (at 10: a new game every 20
  actions). The aim: action p50 <= 1.5 x health p50, flat in game length.
- 16 clients, games of up to --game-length actions.

The action throttle is off for the run.

    .venv/bin/python benchmarks/api.py [--postgres] [--requests 300] [--seconds 30]
        [--lengths 10 1000 3000] [--write-docs]    # also replace the "API" section

Prints a table, the ratios action p50 / health p50, and the aims met or not.
"""

from __future__ import annotations

import argparse
import http.client
import json
import secrets
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
AIM_RATIO = 1.5
POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test"
BENCH_DB = f"canfield_bench_{secrets.token_hex(3)}"


# --- the server ---------------------------------------------------------------------------------


@contextmanager
def server(database_url: str) -> Iterator[Daphne]:
    """A migrated database and one Daphne process on it."""
    env = django_env(database_url, DB_SYNCHRONOUS_COMMIT="0")
    migrate(env)
    with Daphne(env) as daphne:
        yield daphne


# --- the clients --------------------------------------------------------------------------------


class Client:
    """One keep-alive HTTP connection."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Token {token}"

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body)
        try:
            self.conn.request(method, path, body=data, headers=self.headers)
            response = self.conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException):  # counted as an error; a new connection
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            return 599, None
        return response.status, json.loads(payload) if payload else None


class Player:
    """A signed-up client that always has a legal action to send: D, or C once the stock is out."""

    def __init__(self, port: int, name: str, game_length: int, start_at: int = 0) -> None:
        status, body = Client(port).request(
            "POST", "/api/auth/signup/", {"username": name, "password": "bench-password-1"}
        )
        assert status == 201, (status, body)
        self.client = Client(port, body["token"])
        self.game_length = game_length
        #: Each new game is first played to this many actions (not measured).
        self.start_at = start_at
        self.new_game()

    def new_game(self) -> None:
        status, game = self.client.request("POST", "/api/games/", {"draw": 3})
        assert status == 201, (status, game)
        self.game = game
        while self.game["ply"] < self.start_at:
            assert self.step() == 200

    def act(self) -> int:
        if self.game["ply"] >= self.game_length:
            self.new_game()
        return self.step()

    def step(self) -> int:
        game = self.game
        action = "D" if game["state"]["stock"]["count"] else "C"
        status, body = self.client.request(
            "POST", f"/api/games/{game['id']}/actions/", {"ply": game["ply"], "action": action}
        )
        if status == 200:
            self.game = body
        elif status == 409 or status == 599:  # a lost answer: read the game again
            code, game = self.client.request("GET", f"/api/games/{game['id']}/")
            if code == 200:
                self.game = game
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
    #: The game length the actions were played at (0: the health endpoint).
    length: int = 0

    def percentile(self, p: float) -> float:
        if not self.latencies:
            return float("nan")
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


def interleaved(
    players: list[Player], lengths: list[int], requests: int, seconds: float
) -> list[Run]:
    """One client, ``requests`` actions per game length, taken in turn on each length's game, so
    that every length meets the same conditions (the database's own work after the games were
    played to their lengths, the machine's load)."""
    runs = [Run("action", 1, length=length) for length in lengths]
    deadline = time.monotonic() + seconds * len(lengths)
    t0 = time.perf_counter()
    for _ in range(requests):
        if time.monotonic() > deadline:
            break
        for player, run in zip(players, runs, strict=True):
            start = time.perf_counter()
            status = player.act()
            if status == 200:
                run.latencies.append(time.perf_counter() - start)
            else:
                run.errors += 1
    wall = time.perf_counter() - t0
    for run in runs:
        run.wall = wall / len(runs)
    return runs


def bench(database: str, database_url: str, args: argparse.Namespace) -> list[Run]:
    runs = []
    with server(database_url) as daphne:
        players = [
            Player(daphne.port, f"bench{i}", args.game_length) for i in range(max(CONCURRENCY))
        ]
        measure("action", players[:1], 50, 5)  # warm up
        long_players = []
        for length in args.lengths:
            print(f"  {database:10} playing a game to {length} actions ...", file=sys.stderr)
            long_players.append(
                Player(
                    daphne.port,
                    f"long{length}",
                    length + (20 if length < 100 else 10**6),
                    start_at=length,
                )  # fmt: skip
            )
        runs.append(measure("health", players[:1], args.requests, args.seconds))
        runs += interleaved(long_players, args.lengths, args.requests, args.seconds)
        for run in runs[-len(args.lengths) :]:
            print(f"  {database:10} action at {run.length}: {len(run.latencies)} ok, "
                  f"{run.errors} errors", file=sys.stderr)  # fmt: skip
        clients = max(CONCURRENCY)
        measure("action", players, min(50, args.requests), 5)  # warm up
        for endpoint in ("health", "action"):
            run = measure(endpoint, players, args.requests, args.seconds)
            run.length = args.game_length if endpoint == "action" else 0
            runs.append(run)
            print(f"  {database:10} {endpoint:7} {clients:2} clients: {len(run.latencies)} ok,"
                  f" {run.errors} errors", file=sys.stderr)  # fmt: skip
    return runs


# --- the report ---------------------------------------------------------------------------------


def table(results: dict[str, list[Run]]) -> str:
    lines = [
        "| database | endpoint | clients | game length | requests | errors | p50 ms | p99 ms "
        "| req/s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    ratios = []
    for database, runs in results.items():
        for run in runs:
            name = "POST actions" if run.endpoint == "action" else "GET health"
            length = f"{run.length:,}" if run.endpoint == "action" else ""
            lines.append(
                f"| {database} | {name} | {run.clients} | {length} | {len(run.latencies)} "
                f"| {run.errors} | {run.percentile(50):.1f} | {run.percentile(99):.1f} "
                f"| {run.throughput:.0f} |"
            )
        for clients in CONCURRENCY:
            health = next(r for r in runs if r.clients == clients and r.endpoint == "health")
            for run in (r for r in runs if r.clients == clients and r.endpoint == "action"):
                ratio = run.percentile(50) / health.percentile(50)
                aim = ""
                if clients == 1:
                    met = "met" if ratio <= AIM_RATIO else "not met"
                    aim = f" — aim ≤ {AIM_RATIO}: {met}"
                ratios.append(
                    f"- {database}, {clients} client{'s' if clients > 1 else ''}, at "
                    f"{run.length:,} actions: action p50 / health p50 = {ratio:.2f}{aim}"
                )
        singles = [r for r in runs if r.clients == 1 and r.endpoint == "action"]
        if len(singles) > 1:
            growth = singles[-1].percentile(50) / singles[0].percentile(50)
            ratios.append(
                f"- {database}: action p50 at {singles[-1].length:,} actions / at "
                f"{singles[0].length:,} = {growth:.2f} (flat: ≈ 1)"
            )
    return "\n".join(lines + [""] + ratios)


def write_docs(report: str, command: str, host: str, sqlite_errors: int) -> None:
    section = (
        "## API\n\n"
        "POST /api/games/<id>/actions/ (a draw or a recycle: lock the game's row, restore the\n"
        "engine from its stored state, apply, log the move, save the counters, views and state)\n"
        "against GET /api/health/ (no database) in the same run: one Daphne process, the clients\n"
        f"on the same machine ({host}). One client plays a game first brought to each length,\n"
        "the lengths' games in turn;\n"
        f"16 clients play their own games of up to {ARGS.game_length} actions. Errors are\n"
        "answers other than 200; they are left out of the latencies. PostgreSQL runs with\n"
        "`DB_SYNCHRONOUS_COMMIT=0`, as docker-compose deploys it.\n\n"
        f"Command: `{command}`\n\n{report}\n"
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
    parser.add_argument("--requests", type=int, default=300, help="per measurement")
    parser.add_argument("--seconds", type=float, default=30, help="time limit per measurement")
    parser.add_argument("--lengths", type=int, nargs="+", default=[10, 1000, 3000])
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
