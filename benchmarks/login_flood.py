"""A log-in flood from rotating addresses, and another player meanwhile: the figures of
docs/reliability.md, "Log-ins under a flood".

One Daphne, started as production starts it, with the settings' defaults (rate limits, password
hasher, hashing slots, database pool) — on a scratch PostgreSQL database when a server answers at
--postgres-url (created and dropped; else SQLite), with a redis-server of the script's own (a
free port, nothing kept; the shared one never). --threads attackers send log-ins for --seconds,
each request from the next of --addresses source addresses 127.0.<n>.1 (distinct /24s: loopback
answers every 127.x address), a new unknown username and a wrong password each time (every
attempt costs a hash; no account's limit is reached): first 8 a second in all (the audit's
flood sent 159), then without a pause; then, as a baseline, the same clients without a pause at
an endpoint that refuses them at once (POST /api/health/, 405): what any flood of that many
clients costs the process, hashing or not. Meanwhile another player, in a process of its own
(the attackers' threads share this one's interpreter lock: timed here, a request's latency would
be theirs too), reads ``GET /api/daily/`` with its token every 50 ms.

Printed, per phase: the flood's answers by status and code, and that player's p50/p99 (idle:
--idle seconds before the floods), the ratio of its p99 to idle, its 503s and other answers but
200. Aim (issue 29): during a log-in flood, p99 <= 3 x idle, 0 x 503 to the other player.

    .venv/bin/python benchmarks/login_flood.py [--seconds 20] [--idle 10] [--threads 40]
        [--addresses 40] [--postgres-url URL] [--set NAME=VALUE ...] [--write-docs]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from common import (
    ROOT,
    Daphne,
    RedisServer,
    django_env,
    machine,
    migrate,
    post_json,
    postgres_database,
    write_section,
)

DOCS = ROOT / "docs" / "reliability.md"
HEADING = "Log-ins under a flood"
POSTGRES_URL = (
    os.environ.get("DATABASE_URL", "").strip() or "postgres://postgres@127.0.0.1:5432/postgres"
)
PASSWORD = "login-flood-canfield-42"

#: The other player, a process of its own: one line per request,
#: "<monotonic time> <latency s> <status, or -1 without an answer>".
READER = """
import sys, time, urllib.error, urllib.request
url, token = sys.argv[1], sys.argv[2]
while True:
    started = time.monotonic()
    request = urllib.request.Request(url, headers={"Authorization": "Token " + token})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            answer.read()
            status = answer.status
    except urllib.error.HTTPError as error:
        error.read()
        status = error.code
    except OSError:
        status = -1
    print(started, time.monotonic() - started, status, flush=True)
    time.sleep(0.05)
"""


class Reader:
    """``GET /api/daily/`` every 50 ms from a process of its own; latencies and statuses by phase
    (the phase when each request started)."""

    def __init__(self, url: str, token: str) -> None:
        self.url = f"{url}/api/daily/"
        self.token = token
        self.phases: list[tuple[float, str]] = [(0.0, "idle")]
        self.latencies: dict[str, list[float]] = {}
        self.statuses: dict[str, Counter[int]] = {}

    def begin(self, phase: str) -> None:
        self.phases.append((time.monotonic(), phase))

    def read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            started, latency, status = line.split()
            phase = [name for at, name in self.phases if at <= float(started)][-1]
            self.statuses.setdefault(phase, Counter())[int(status)] += 1
            if int(status) == 200:
                self.latencies.setdefault(phase, []).append(float(latency))

    def p(self, phase: str, q: float) -> float:
        """The ``q`` quantile of the phase's latencies, in milliseconds."""
        values = sorted(self.latencies.get(phase, []))
        if not values:
            return float("nan")
        if q == 0.5:
            return statistics.median(values) * 1000
        return values[min(len(values) - 1, int(len(values) * q))] * 1000

    def __enter__(self) -> Reader:
        self.process = subprocess.Popen(
            [sys.executable, "-c", READER, self.url, self.token], stdout=subprocess.PIPE, text=True
        )
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.thread.join(timeout=5)


def flood(
    port: int,
    threads: int,
    addresses: int,
    seconds: float,
    rate: float = 0.0,
    path: str = "/api/auth/login/",
) -> Counter[str]:
    """Log-ins from ``threads`` threads for ``seconds`` — ``rate`` a second in all, or without a
    pause when 0 —, each request from the next of ``addresses`` source addresses: the answers, by
    status and code. (``path``: the same requests elsewhere, for a baseline.)"""
    answers: Counter[str] = Counter()
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    interval = threads / rate if rate else 0.0

    def attacker(n: int) -> None:
        k = 0
        due = time.monotonic() + interval * n / threads
        while time.monotonic() < deadline:
            if interval:
                time.sleep(max(0.0, due - time.monotonic()))
                due += interval
            source = f"127.0.{(n + k) % addresses + 1}.1"
            k += 1
            body = {"username": f"x{secrets.token_hex(6)}", "password": secrets.token_hex(8)}
            connection = http.client.HTTPConnection(
                "127.0.0.1", port, timeout=60, source_address=(source, 0)
            )
            try:
                connection.request(
                    "POST", path, json.dumps(body), {"Content-Type": "application/json"}
                )
                response = connection.getresponse()
                raw = response.read()
                code = json.loads(raw).get("code", "") if raw else ""
                outcome = f"{response.status} {code}".strip()
            except (OSError, http.client.HTTPException, ValueError) as exc:
                outcome = f"no answer ({type(exc).__name__})"
            finally:
                connection.close()
            with lock:
                answers[outcome] += 1

    workers = [threading.Thread(target=attacker, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return answers


def postgres_reachable(url: str) -> bool:
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=2):
            return True
    except Exception:
        return False


@contextlib.contextmanager
def database(args: argparse.Namespace, tmp: Path) -> Iterator[tuple[str, str]]:
    """The server's database URL and its name for the report."""
    if postgres_reachable(args.postgres_url):
        with postgres_database(args.postgres_url, f"canfield_loginflood_{os.getpid()}") as url:
            yield url, "PostgreSQL"
    else:
        yield f"sqlite:///{tmp / 'db.sqlite3'}", "SQLite"


@contextlib.contextmanager
def redis() -> Iterator[str | None]:
    if shutil.which("redis-server") is None and not Path("/usr/bin/redis-server").exists():
        yield None
        return
    with RedisServer() as server:
        yield server.url


#: The phases after the idle one: (name, what it is, the flood's rate, its path).
PHASES = [
    ("paced", "log-ins, 8 a second", 8.0, "/api/auth/login/"),
    ("flood", "log-ins without a pause", 0.0, "/api/auth/login/"),
    ("baseline", "the same clients, a refused POST /api/health/ (405)", 0.0, "/api/health/"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--idle", type=float, default=10)
    parser.add_argument("--threads", type=int, default=40)
    parser.add_argument("--addresses", type=int, default=40)
    parser.add_argument("--postgres-url", default=POSTGRES_URL)
    parser.add_argument(
        "--set", nargs="*", default=[], metavar="NAME=VALUE", help="more settings for the server"
    )
    parser.add_argument("--write-docs", action="store_true", help="update docs/reliability.md")
    args = parser.parse_args()
    host = machine()
    print(host)
    floods: dict[str, Counter[str]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="canfield-login-flood-") as tmp,
        database(args, Path(tmp)) as (url, engine),
        redis() as redis_url,
    ):
        # The settings' defaults, rate limits included (django_env turns some off for tests).
        env = django_env(url, redis_url, THROTTLE_LOGIN="20/min", THROTTLE_SIGNUP="10/hour")
        env.update(item.split("=", 1) for item in args.set)
        migrate(env)
        with Daphne(env, Path(tmp) / "daphne.log") as daphne:
            status, player = post_json(
                f"{daphne.url}/api/auth/signup/", {"username": "reader", "password": PASSWORD}
            )
            assert status == 201, player
            with Reader(daphne.url, player["token"]) as reader:
                time.sleep(args.idle)
                for name, _, rate, path in PHASES:
                    reader.begin(name)
                    floods[name] = flood(
                        daphne.port, args.threads, args.addresses, args.seconds, rate, path
                    )
                    reader.begin("pause")
                    time.sleep(5)
            log = daphne.output()
    idle_p50, idle_p99 = reader.p("idle", 0.5), reader.p("idle", 0.99)
    rows = []
    met = True
    for name, what, _, _ in [("idle", "idle", 0.0, ""), *PHASES]:
        statuses = reader.statuses.get(name, Counter())
        p99 = reader.p(name, 0.99)
        ratio = p99 / idle_p99 if idle_p99 else float("nan")
        others = sum(n for status, n in statuses.items() if status not in (200, 503))
        if name in ("paced", "flood"):
            met = met and ratio <= 3 and statuses[503] == 0
        answers = floods.get(name, Counter())
        p50 = reader.p(name, 0.5)
        rows.append(
            f"| {what} | {sum(answers.values()) or '—'} | {p50:.0f} ms | {p50 / idle_p50:.2f} "
            f"| {p99:.0f} ms | {ratio:.2f} | {statuses[503]} | {others} "
            f"| {sum(statuses.values())} |"
        )
        print(
            f"{name}: {what}: {json.dumps(dict(answers.most_common()))}; other player's "
            f"GET /api/daily/ p50 {reader.p(name, 0.5):.0f} ms, p99 {p99:.0f} ms "
            f"(x{ratio:.2f} idle), 503: {statuses[503]}, other non-200: {others}, "
            f"{sum(statuses.values())} requests"
        )
    print(f"database: {engine}; Redis: {'a private redis-server' if redis_url else 'none'}")
    print(f"aim (log-in floods: p99 <= 3 x idle, 0 x 503): {'met' if met else 'NOT met'}")
    if "Traceback" in log:
        print("the server logged an exception:\n" + log[-2000:])
    if args.write_docs:
        answer_rows = "\n".join(
            f"| {what} | {outcome} | {n} |"
            for name, what, _, _ in PHASES
            for outcome, n in floods[name].most_common()
        )
        table = "\n".join(rows)
        noisy = (
            "\nThe machine was shared with other work (the load average above): the idle p99 "
            "moved with it, and the p50 column is the steadier comparison.\n"
            if idle_p99 > 5 * idle_p50
            else ""
        )
        section = f"""## {HEADING}

A log-in flood from rotating addresses against one Daphne with the settings' defaults (rate
limits, password hasher, `LOGIN_HASH_SLOTS` = the CPUs, `LOGIN_HASH_WAIT` 0.5 s,
`LOGIN_HASH_NICE` 10, a pool of `DB_POOL_MAX` 10 connections): {args.threads} clients send
log-ins for {args.seconds:.0f} s, each request from the next of {args.addresses} addresses
`127.0.<n>.1` (distinct /24s), an unknown username and a wrong password each time (a hash each;
no account's limit reached) — 8 a second in all, then without a pause; then, for
a baseline, the same clients without a pause at an endpoint that refuses them at once. Meanwhile
another player reads `GET /api/daily/` with its token every 50 ms, from a process of its own.
Before (the audit): 70 of 159 log-ins 503 (the database pool starved: each log-in held a
connection while it hashed), the other players' p99 5.9 s.

Command: `python benchmarks/login_flood.py --write-docs` ({host}); {engine}, Redis.

| phase | requests | other's p50 | / idle | p99 | / idle | 503 | other non-200 | its reads |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
{table}

Aim (log-in floods: p99 ≤ 3 × idle, 0 × 503 to the other player): {"met" if met else "**not met**"}.
{noisy}
| phase | the flood's answers | count |
|---|---|---:|
{answer_rows}
"""
        write_section(HEADING, section, DOCS)
        print(f"wrote the section {HEADING!r} of {DOCS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
