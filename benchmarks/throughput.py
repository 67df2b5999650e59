"""Sustained action throughput of the deployed shape: two Daphne processes on PostgreSQL and Redis
behind nginx (deploy/nginx.conf, as docker-compose runs them), N concurrent players for S seconds.

Starts the deployment on 127.0.0.1 (a scratch PostgreSQL database, created and dropped; a private
redis-server unless --redis-url; the environment docker-compose gives the web processes:
NUM_PROXIES=1, DB_SYNCHRONOUS_COMMIT=0), signs up the players, then runs them from client
processes of their own (--client-processes, threads inside, one keep-alive connection each). Each
player plays its ranked daily attempt, then practice games, one legal action at a time with its
ply (a hurried player: scoring moves first), so the leaderboard's Redis ranking and live
broadcasts run too. The same run's baseline is GET /api/health/ through the same nginx, at the
same concurrency, for --baseline-seconds.

    .venv/bin/python benchmarks/throughput.py [--players 32] [--seconds 60]
        [--postgres-url postgres://postgres@127.0.0.1:5432/postgres] [--redis-url URL]
        [--write-docs]    # also replace the "Throughput" section of docs/performance.md

Prints requests/s, p50/p99, errors, and the aims (>= 300 actions/s sustained, p99 <= 150 ms,
0 errors) marked met or not. Loopback only, bounded by --seconds.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import resource
import secrets
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from common import (
    Deployment,
    RedisServer,
    deal_days,
    django_env,
    machine,
    migrate,
    player_action,
    postgres_database,
    write_section,
)

POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres"
AIM_RATE, AIM_P99 = 300, 150.0


class Client:
    """One keep-alive HTTP connection to the site."""

    def __init__(self, port: int, token: str = "") -> None:
        self.port = port
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Token {token}"
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body)
        try:
            self.conn.request(method, path, body=data, headers=self.headers)
            response = self.conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            return 599, None
        return response.status, json.loads(payload) if payload else None


def sign_up(port: int, name: str) -> str:
    status, body = Client(port).request(
        "POST", "/api/auth/signup/", {"username": name, "password": secrets.token_hex(8)}
    )
    assert status == 201, (status, body)
    return str(body["token"])


def play(port: int, token: str, deadline: float, out: list[tuple[float, int]]) -> None:
    """Play until ``deadline``: the daily attempt, then practice games; every action's latency
    and status appended to ``out``."""
    client = Client(port, token)
    status, game = client.request("POST", "/api/daily/")
    if status != 201:
        status, game = client.request("POST", "/api/games/", {})
    while time.monotonic() < deadline:
        action = player_action(game)
        if action is None:
            status, game = client.request("POST", "/api/games/", {})
            continue
        t0 = time.perf_counter()
        status, body = client.request(
            "POST", f"/api/games/{game['id']}/actions/", {"ply": game["ply"], "action": action}
        )
        out.append((time.perf_counter() - t0, status))
        if status == 200:
            game = body
        else:  # read the game again and go on
            _, game = client.request("GET", f"/api/games/{game['id']}/")


def health(port: int, token: str, deadline: float, out: list[tuple[float, int]]) -> None:
    client = Client(port)
    while time.monotonic() < deadline:
        t0 = time.perf_counter()
        status, _ = client.request("GET", "/api/health/")
        out.append((time.perf_counter() - t0, status))


def client_process(
    kind: str, port: int, tokens: list[str], start: float, seconds: float, queue: Any
) -> None:
    """One client process: a thread per player from ``start`` (monotonic) for ``seconds``."""
    while time.monotonic() < start:
        time.sleep(0.001)
    deadline = start + seconds
    results: list[list[tuple[float, int]]] = [[] for _ in tokens]
    target = play if kind == "action" else health
    threads = [
        threading.Thread(target=target, args=(port, token, deadline, results[i]))
        for i, token in enumerate(tokens)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    queue.put([item for result in results for item in result])


def measure(
    kind: str, port: int, tokens: list[str], seconds: float, processes: int
) -> dict[str, Any]:
    queue: Any = multiprocessing.get_context("fork").Queue()
    start = time.monotonic() + 1.0
    shares = [tokens[i::processes] for i in range(processes)]
    procs = [
        multiprocessing.get_context("fork").Process(
            target=client_process, args=(kind, port, share, start, seconds, queue)
        )
        for share in shares
    ]
    for proc in procs:
        proc.start()
    items: list[tuple[float, int]] = []
    for _ in procs:
        items += queue.get(timeout=seconds + 120)
    for proc in procs:
        proc.join(timeout=30)
    ok = sorted(t for t, status in items if status == 200)
    errors = len(items) - len(ok)

    def pct(p: float) -> float:
        return ok[min(len(ok) - 1, int(p / 100 * len(ok)))] * 1000 if ok else float("nan")

    return {
        "kind": kind,
        "requests": len(items),
        "ok": len(ok),
        "errors": errors,
        "statuses": sorted({status for _, status in items if status != 200}),
        "rate": len(ok) / seconds,
        "p50": pct(50),
        "p99": pct(99),
    }


def report(rows: list[dict[str, Any]], args: argparse.Namespace) -> str:
    lines = [
        "| endpoint | players | seconds | requests | errors | req/s | p50 ms | p99 ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        name = "POST actions" if row["kind"] == "action" else "GET health (baseline)"
        seconds = args.seconds if row["kind"] == "action" else args.baseline_seconds
        lines.append(
            f"| {name} | {args.players} | {seconds:g} | {row['requests']:,} | {row['errors']} "
            f"| {row['rate']:.0f} | {row['p50']:.1f} | {row['p99']:.1f} |"
        )
    action = rows[-1]
    base = rows[0]
    met = {
        f"≥ {AIM_RATE} actions/s sustained": action["rate"] >= AIM_RATE,
        f"p99 ≤ {AIM_P99:g} ms": action["p99"] <= AIM_P99,
        "0 errors": action["errors"] == 0,
    }
    lines.append("")
    lines.append(
        f"- actions/s ÷ health req/s (same run, same concurrency) = "
        f"{action['rate'] / base['rate']:.2f}; action p50 ÷ health p50 = "
        f"{action['p50'] / base['p50']:.1f}"
    )
    for aim, ok in met.items():
        lines.append(f"- aim {aim}: {'met' if ok else 'not met'}")
    if action["statuses"]:
        lines.append(f"- error statuses: {action['statuses']}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--baseline-seconds", type=float, default=10)
    parser.add_argument("--client-processes", type=int, default=2)
    parser.add_argument("--postgres-url", default=POSTGRES_URL, help="a server to create it on")
    parser.add_argument("--redis-url", default="", help="default: a private redis-server")
    parser.add_argument("--direct", action="store_true", help="no nginx: the first process")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    args.seconds = min(args.seconds, 300)  # bounded

    host = machine()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with tempfile.TemporaryDirectory(prefix="canfield-tp-") as tmp:
        work = Path(tmp)
        name = f"canfield_scale_tp_{secrets.token_hex(3)}"
        with postgres_database(args.postgres_url, name) as url, RedisServer(work) as redis:
            env = django_env(
                url,
                args.redis_url or redis.url,
                NUM_PROXIES="1",
                DB_SYNCHRONOUS_COMMIT="0",
            )
            migrate(env)
            deal_days(env)  # (today dealt, as the worker tier deals it)
            with Deployment(env, work / "site", proxy=not args.direct) as site:
                port = int(site.url.rsplit(":", 1)[1])
                run = secrets.token_hex(3)
                tokens = [sign_up(port, f"tp{run}n{i}") for i in range(args.players)]
                print(f"  {len(tokens)} players signed up; baseline ...", file=sys.stderr)
                base = measure("health", port, tokens, args.baseline_seconds, args.client_processes)
                print(f"  actions for {args.seconds:g} s ...", file=sys.stderr)
                action = measure("action", port, tokens, args.seconds, args.client_processes)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    text = report([base, action], args)
    print(text)
    print(f"(load average after the run: {load})")
    if args.write_docs:
        command = "python benchmarks/throughput.py " + " ".join(sys.argv[1:])
        write_section(
            "Throughput",
            "## Throughput\n\n"
            f"Command: `{command.strip()}` ({host}; after the run {load}).\n\n"
            "Two Daphne processes behind nginx (`deploy/nginx.conf`), PostgreSQL and Redis, as "
            "docker-compose deploys them, all on this machine with the clients (separate "
            f"processes). {args.players} players each play their daily attempt, then practice "
            "games, one legal action at a time with its ply; the baseline is the trivial "
            "endpoint through the same nginx at the same concurrency.\n\n"
            f"{text}\n",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
