"""``make loadtest``: Locust, headless, against a local two-process deployment behind nginx.

Starts on 127.0.0.1: a scratch PostgreSQL database (created and dropped; on --postgres-url's
server), a private redis-server, migrations, two Daphne processes and Debian's nginx with
``deploy/nginx.conf`` (its port and upstreams substituted); then runs ``loadtest/locustfile.py``
for --seconds with --users users (three players for each watcher), spawned --spawn-rate a second,
and prints, per endpoint, requests, failures, requests/s, p50 and p99. Rate limits are off in
the deployment (the crowd comes from one address), and passwords are hashed cheaply
(``loadtest/settings.py``: the crowd's sign-ups would take the whole run's CPU). Bounded: loopback
only, at most 600 s.

    .venv/bin/python loadtest/run.py [--users 200] [--seconds 60] [--spawn-rate 20]
        [--write-docs]    # also replace the "Load test" section of docs/performance.md
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from common import machine, write_section  # noqa: E402

from tests.support import (  # noqa: E402
    Deployment,
    RedisServer,
    deal_days,
    django_env,
    migrate,
    postgres_database,
)

LOCUST = str(Path(sys.executable).with_name("locust"))


def table(stats: Path) -> tuple[str, int]:
    """The per-endpoint table from Locust's stats CSV, and the failures in all."""
    lines = [
        "| type | endpoint | requests | failures | req/s | p50 ms | p99 ms |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    failures = 0
    with stats.open() as f:
        for row in csv.DictReader(f):
            if row["Name"] == "Aggregated":
                kind, name = "", "**all**"
            else:
                kind, name = row["Type"], row["Name"]
                failures += int(row["Failure Count"])
            lines.append(
                f"| {kind} | {name} | {int(row['Request Count']):,} | {row['Failure Count']} "
                f"| {float(row['Requests/s']):.1f} | {row['50%']} | {row['99%']} |"
            )
    return "\n".join(lines), failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--spawn-rate", type=float, default=20)
    parser.add_argument(
        "--postgres-url",
        default=os.environ.get("LOADTEST_POSTGRES_URL")
        or "postgres://postgres@127.0.0.1:5432/postgres",
    )
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    seconds = max(1, min(args.seconds, 600))

    host = machine()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with tempfile.TemporaryDirectory(prefix="canfield-loadtest-") as tmp:
        work = Path(tmp)
        name = f"canfield_loadtest_{secrets.token_hex(3)}"
        with postgres_database(args.postgres_url, name) as url, RedisServer(work) as redis:
            env = django_env(
                url,
                redis.url,
                settings="loadtest.settings",
                NUM_PROXIES="1",
                DB_SYNCHRONOUS_COMMIT="0",
            )
            migrate(env)
            deal_days(env)  # (today dealt, as the worker tier deals it)
            with Deployment(env, work / "site") as site:
                print(f"== {args.users} users for {seconds} s against {site.url} (nginx)")
                locust = subprocess.run(
                    [LOCUST, "-f", str(ROOT / "loadtest" / "locustfile.py"), "--headless"]
                    + ["--host", site.url, "-u", str(args.users), "-r", str(args.spawn_rate)]
                    + ["-t", f"{seconds}s", "--stop-timeout", "5", "--only-summary"]
                    + ["--csv", str(work / "locust"), "--loglevel", "WARNING"],
                    cwd=ROOT,
                    timeout=seconds + 120,
                    capture_output=True,
                    text=True,
                )
                if locust.returncode not in (0, 1):  # 1: some requests failed
                    print(locust.stdout[-3000:], locust.stderr[-3000:], file=sys.stderr)
                    return locust.returncode
                report, failures = table(work / "locust_stats.csv")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(report)
    print(f"(failures: {failures}; load average after the run: {load})")
    if args.write_docs:
        command = "make loadtest" + (
            f" LOADTEST_ARGS='{' '.join(sys.argv[1:])}'" if len(sys.argv) > 1 else ""
        )
        write_section(
            "Load test",
            "## Load test\n\n"
            f"Command: `{command}` ({host}; after the run {load}).\n\n"
            f"Locust ({args.users} users: three players for each websocket watcher, spawned "
            f"{args.spawn_rate:g} a second, {seconds} s) against two Daphne processes behind "
            "nginx, on PostgreSQL and Redis, all on this machine. Players sign up, start the "
            "daily attempt, play legal actions with their ply (practice games once it is "
            "over), read board pages and their game; watchers hold a websocket on today's "
            "board (`WS update`: from the update's `at` to its arrival). Passwords are hashed "
            "cheaply in this deployment (`loadtest/settings.py`; with the real PBKDF2, 150 "
            "sign-ups at once took the run's CPU: p50 11 s, a quarter failed). Times in ms.\n\n"
            f"{report}\n",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
