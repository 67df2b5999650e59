"""Faults and limits under load: the figures of docs/reliability.md.

(a) kill: players with retries play practice games against one Daphne process, killed with
    SIGKILL --kills times, --interval seconds apart, and started again on the same port; then every
    acknowledged action must be in its game's log, once, and `manage.py verify_games` clean.
    SQLite, and with --postgres a scratch PostgreSQL database too (created and dropped).
(b) redis: a redis-server of the script's own (a free port, no persistence — never the shared
    one), two Daphne processes; players play their daily attempts on one, a watcher follows the
    live board on the other; Redis is killed, and --down seconds later started again, empty.
(c) bodies: request bodies of --body-mb megabytes to the log-in endpoint of a Daphne process, as
    an attacker sends them (Content-Length declared, then streamed until the server stops
    reading): the answer, how long it took, and the process's memory before and after.
(d) length: a game of MAX_GAME_ACTIONS actions (draws and undos): the time of its first and of
    its last action, the refusal of the next one, and its record with every state.
(e) postgres: players with retries against one Daphne on a PostgreSQL server of the script's own
    (initdb in a temporary folder, never the shared one), stopped and started again --pg-down
    seconds later: acknowledged actions lost, the answers while it is away (503 unavailable with
    Retry-After, never 500), and how soon after it is back the service answers again.

The scenarios (a) and (b) are tests/faults/scenarios.py, which the suite runs bounded.

    .venv/bin/python benchmarks/faults.py [--players 16] [--kills 8] [--interval 3]
        [--postgres] [--down 5] [--body-mb 256 768] [--pg-players 8] [--pg-down 2]
        [--skip kill redis bodies length postgres]
        [--write-docs]    # also replace the sections of docs/reliability.md it measured
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from common import Daphne, django_env, machine, migrate, postgres_database, write_section

from tests.faults.scenarios import (
    KillReport,
    Player,
    RedisReport,
    Tally,
    kill_daphne_under_load,
    logged_moves,
    restart_redis_under_load,
    sign_up,
    verify_games,
)
from tests.support import PostgresServer, get_json, post_json

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "reliability.md"
POSTGRES_URL = (
    os.environ.get("DATABASE_URL", "").strip() or "postgres://postgres@127.0.0.1:5432/test"
)


# --- (a) kill -9 ----------------------------------------------------------------------------------


def kill_rows(reports: dict[str, KillReport]) -> str:
    lines = [
        "| database | players | kills | seconds | requests | acknowledged | retries | 5xx "
        "| restart s (max) | logs differing | verify_games |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for database, r in reports.items():
        lines.append(
            f"| {database} | {r.players} | {r.kills} | {r.seconds:.0f} | {r.tally.requests} "
            f"| {r.tally.acknowledged} | {r.tally.retries} | {r.tally.server_errors} "
            f"| {max(r.restarts):.1f} | {len(r.mismatches)} "
            f"| {'clean' if r.verify_status == 0 else 'FAILED'}: {r.verify_output} |"
        )
    return "\n".join(lines)


def run_kill(args: argparse.Namespace) -> dict[str, KillReport]:
    reports = {}
    with tempfile.TemporaryDirectory(prefix="canfield-faults-") as tmp:
        reports["SQLite"] = kill_daphne_under_load(
            Path(tmp), players=args.players, kills=args.kills, interval=args.interval
        )
    if args.postgres:
        name = f"canfield_faults_{os.getpid()}"
        with (
            tempfile.TemporaryDirectory(prefix="canfield-faults-") as tmp,
            postgres_database(args.postgres_url, name) as url,
        ):
            reports["PostgreSQL"] = kill_daphne_under_load(
                Path(tmp),
                database_url=url,
                players=args.players,
                kills=args.kills,
                interval=args.interval,
            )
    for database, report in reports.items():
        print(f"kill ({database}): {report}", file=sys.stderr)
    return reports


# --- (b) Redis ------------------------------------------------------------------------------------


def redis_rows(r: RedisReport) -> str:
    during = ", ".join(f"{n} × {status}" for status, n in sorted(r.during_outage.items()))
    codes = sorted({code for code in r.close_codes if code is not None})
    return "\n".join(
        [
            "| measure | figure |",
            "|---|---|",
            f"| players, seconds of load | {r.players}, {r.seconds:.0f} |",
            f"| Redis away | {r.down_seconds:.1f} s |",
            f"| requests (acknowledged) | {r.tally.requests} ({r.tally.acknowledged}) |",
            f"| answers while Redis was away | {during or 'none'} |",
            f"| 5xx | {r.tally.server_errors} |",
            f"| `/api/health/` while away | `{json.dumps(r.health_while_down[1])}` "
            f"({r.health_while_down[0]}) |",
            f"| watcher's sockets closed while away | {len(r.close_codes)}, codes {codes} |",
            f"| first snapshot after Redis came back | "
            f"{'never' if r.resumed_after is None else f'{r.resumed_after:.2f} s'} |",
            f"| live updates after it | {r.updates_after} |",
            f"| watcher's board = REST board at the end | {'yes' if r.resynced else 'NO'} |",
        ]
    )


def run_redis(args: argparse.Namespace) -> RedisReport:
    with tempfile.TemporaryDirectory(prefix="canfield-faults-") as tmp:
        report = restart_redis_under_load(
            Path(tmp), players=args.players, before=args.before, down=args.down, after=args.after
        )
    print(f"redis: {report}", file=sys.stderr)
    return report


# --- (c) bodies -----------------------------------------------------------------------------------


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    kb = int(next(line for line in status.splitlines() if line.startswith("VmRSS")).split()[1])
    return kb / 1024


def send_body(port: int, megabytes: int) -> tuple[str, float, int]:
    """POST a body of ``megabytes`` to /api/auth/login/ as fast as the server reads it: the
    answer's status line, the seconds until it came, and how many bytes were sent."""
    size = megabytes * 1024 * 1024
    chunk = b"x" * 65536
    sent = 0
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
        conn.sendall(
            f"POST /api/auth/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nContent-Length: {size}\r\n\r\n".encode()
        )
        try:
            while sent < size:
                conn.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass  # the server answered and closed the connection
        answer = conn.recv(200).split(b"\r\n", 1)[0].decode()
    return answer, time.monotonic() - started, sent


def run_bodies(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="canfield-faults-") as tmp:
        env = django_env(f"sqlite:///{tmp}/bodies.sqlite3")
        migrate(env)
        with Daphne(env, Path(tmp) / "daphne.log") as server:
            assert server.process is not None
            for megabytes in args.body_mb:
                before = rss_mb(server.process.pid)
                answer, seconds, sent = send_body(server.port, megabytes)
                time.sleep(0.5)
                rows.append(
                    {
                        "mb": megabytes,
                        "answer": answer,
                        "seconds": seconds,
                        "sent_mb": sent / 1024 / 1024,
                        "before": before,
                        "after": rss_mb(server.process.pid),
                    }
                )
                print(f"body: {rows[-1]}", file=sys.stderr)
    return rows


def bodies_rows(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| body | answer | after | bytes the client got to send | Daphne RSS before → after |",
        "|---:|---|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['mb']} MB | `{r['answer']}` | {r['seconds'] * 1000:.0f} ms | "
            f"{r['sent_mb']:.1f} MB | {r['before']:.0f} → {r['after']:.0f} MB |"
        )
    return "\n".join(lines)


# --- (d) a game's length --------------------------------------------------------------------------

# Builds, in the server's database, a game of (limit - 1) draws and undos, and prints its id and a
# token of its player: the last action and the refusal are then timed over HTTP. The log is
# bulk-written with what games.services.play would store (replaying a growing log 5,000 times
# takes minutes); `manage.py verify_games` checks it after.
SEED_GAME = """
import json, django
django.setup()
from django.conf import settings
from django.contrib.auth.models import User
from core.accounts import auth
from games import services
from games.engine import Action, Canfield
from games.models import LoggedAction
user = User.objects.create_user("long", password="long-game-canfield-42")
games = []
for _ in range(GAMES):
    game = services.new_game(user, code="CF1-D3-AAAAACL")
    engine, rows = Canfield(game.deal_code), []
    for ply in range(settings.MAX_GAME_ACTIONS - 1):
        token = "D" if ply % 2 == 0 else "U"
        engine.push(Action.parse(token))
        rows.append(LoggedAction(game=game, ply=ply, token=token, score_after=engine.score))
    LoggedAction.objects.bulk_create(rows)
    services._sync(game, engine)
    game.save()
    games.append(game.pk)
token = auth.issue(user).key
print(json.dumps({"ids": games, "token": token, "limit": settings.MAX_GAME_ACTIONS}))
"""
#: Long games built, and fresh games played once, to time an action at either end.
GAMES = 5


def timed_post(url: str, body: dict[str, Any], token: str) -> tuple[float, Any]:
    """Milliseconds of one request, and its answer."""
    started = time.perf_counter()
    answer = post_json(url, body, token)
    return (time.perf_counter() - started) * 1000, answer


def run_length(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="canfield-faults-") as tmp:
        env = django_env(f"sqlite:///{tmp}/length.sqlite3")
        migrate(env)
        code = SEED_GAME.replace("range(GAMES)", f"range({GAMES})")
        seeded = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True
        )
        built = json.loads(seeded.stdout)
        token, last = built["token"], built["limit"] - 1
        with Daphne(env, Path(tmp) / "daphne.log") as server:
            first_ms, last_ms = [], []
            for game_id in built["ids"]:
                fresh = post_json(f"{server.url}/api/games/", {"code": "CF1-D3-AAAAACL"}, token)
                actions = f"{server.url}/api/games/{fresh[1]['id']}/actions/"
                first_ms.append(timed_post(actions, {"ply": 0, "action": "D"}, token)[0])
                actions = f"{server.url}/api/games/{game_id}/actions/"
                ms, (status, _) = timed_post(actions, {"ply": last, "action": "D"}, token)
                assert status == 200
                last_ms.append(ms)
            refused = post_json(actions, {"ply": last + 1, "action": "U"}, token)
            started = time.perf_counter()
            status, record = get_json(
                f"{server.url}/api/games/{built['ids'][-1]}/record/?states=1", token
            )
            record_ms = (time.perf_counter() - started) * 1000
            size = len(json.dumps(record, separators=(",", ":")))
        verified = subprocess.run(
            [sys.executable, "manage.py", "verify_games"], cwd=ROOT, env=env, capture_output=True
        )
    result = {
        "limit": built["limit"],
        "first_ms": statistics.median(first_ms),
        "last_ms": statistics.median(last_ms),
        "refused": f"{refused[0]} {refused[1]['code']}",
        "record_status": status,
        "record_mb": size / 1024 / 1024,
        "record_ms": record_ms,
        "verified": verified.returncode == 0,
    }
    print(f"length: {result}", file=sys.stderr)
    return result


def length_rows(r: dict[str, Any]) -> str:
    return "\n".join(
        [
            "| measure | figure |",
            "|---|---|",
            f"| longest game | {r['limit']} actions (`MAX_GAME_ACTIONS`) |",
            f"| an action at ply 0 (median of {GAMES} games) | {r['first_ms']:.1f} ms |",
            f"| the action at ply {r['limit'] - 1}, the last one (median of {GAMES}) "
            f"| {r['last_ms']:.1f} ms |",
            f"| the action after it | `{r['refused']}` |",
            f"| its record with every state | {r['record_status']}, {r['record_mb']:.2f} MB, "
            f"{r['record_ms']:.0f} ms |",
            f"| `verify_games` | {'clean' if r['verified'] else 'FAILED'} |",
        ]
    )


# --- (e) PostgreSQL restarted under load ----------------------------------------------------------


def run_postgres_restart(args: argparse.Namespace) -> dict[str, Any]:
    """``--pg-players`` players with retries against one Daphne on a PostgreSQL server of the
    script's own, stopped (fast shutdown) and started again ``--pg-down`` seconds later; a watcher
    reads a game every 50 ms to see the outage's answers and when the service is back."""
    with tempfile.TemporaryDirectory(prefix="canfield-faults-") as tmp, PostgresServer() as pg:
        env = django_env(pg.url)
        migrate(env)
        with Daphne(env, Path(tmp) / "daphne.log") as server:
            stop, tally = threading.Event(), Tally()
            team = []
            for n in range(args.pg_players):
                token = sign_up(server.url, f"pg{n}")
                status, game = post_json(f"{server.url}/api/games/", {}, token)
                assert status == 201, game
                team.append(Player(lambda: server.url, token, game, stop, tally))
            seen: list[tuple[float, int, str, str]] = []  # (time, status, code, Retry-After)

            def watch() -> None:
                url = f"{server.url}/api/games/{team[0].game['id']}/"
                while not stop.is_set():
                    request = urllib.request.Request(
                        url, headers={"Authorization": f"Token {team[0].token}"}
                    )
                    asked = time.monotonic()  # (an answer counts at the time it was asked)
                    try:
                        with urllib.request.urlopen(request, timeout=10) as answer:
                            seen.append((asked, answer.status, "", ""))
                    except urllib.error.HTTPError as error:
                        code = json.loads(error.read() or b"{}").get("code", "")
                        retry = error.headers.get("Retry-After", "")
                        seen.append((asked, error.code, code, retry))
                    except OSError:
                        seen.append((asked, 0, "no answer", ""))
                    time.sleep(0.05)

            watcher = threading.Thread(target=watch, daemon=True)
            for thread in [*team, watcher]:
                thread.start()
            time.sleep(args.before)
            pg.stop("fast")
            stopped = time.monotonic()
            time.sleep(args.pg_down)
            pg.start()
            restarted = time.monotonic()
            time.sleep(args.after)
            stop.set()
            for thread in [*team, watcher]:
                thread.join(timeout=60)
            mismatches = [
                p.game["id"]
                for p in team
                if logged_moves(server.url, p.token, p.game["id"]) != p.acks
            ]
        status, output = verify_games(env)
    back = next((t for t, code, _, _ in seen if t > restarted and code == 200), None)
    during = [(code, error, retry) for t, code, error, retry in seen if stopped <= t <= restarted]
    result = {
        "players": args.pg_players,
        "down": restarted - stopped,
        "requests": tally.requests,
        "acknowledged": tally.acknowledged,
        "statuses": dict(sorted(tally.statuses.items())),
        "outage_answers": sorted({f"{c} {e} (Retry-After {r or '-'})" for c, e, r in during}),
        "back_after": None if back is None else back - restarted,
        "lost": len(mismatches),
        "verify": status == 0,
        "verify_output": output,
    }
    print(f"postgres: {result}", file=sys.stderr)
    return result


def postgres_rows(r: dict[str, Any]) -> str:
    statuses = ", ".join(f"{n} × {status}" for status, n in r["statuses"].items())
    back = "never" if r["back_after"] is None else f"{r['back_after']:.2f} s"
    met = r["lost"] == 0 and 500 not in r["statuses"] and r["back_after"] is not None
    met = met and r["back_after"] <= 5
    return "\n".join(
        [
            "| measure | figure |",
            "|---|---|",
            f"| players, PostgreSQL away | {r['players']}, {r['down']:.1f} s |",
            f"| requests (acknowledged) | {r['requests']} ({r['acknowledged']}) |",
            f"| answers | {statuses} |",
            "| a game read while PostgreSQL was away (asked then) "
            f"| {'; '.join(r['outage_answers']) or '-'} |",
            f"| first 200 after PostgreSQL was back | {back} |",
            f"| games whose log differs from what was acknowledged | {r['lost']} |",
            f"| `verify_games` | {'clean' if r['verify'] else 'FAILED'}: {r['verify_output']} |",
            "",
            "Aims: 0 acknowledged actions lost, no 500 (503 with Retry-After only), back within "
            f"5 s of PostgreSQL ({'met' if met else '**not met**'}). Before: 8 bare 500s during "
            "the restart.",
        ]
    )


# --- main -----------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--kills", type=int, default=8)
    parser.add_argument("--interval", type=float, default=3.0, help="seconds between kills")
    parser.add_argument("--postgres", action="store_true", help="the kills on PostgreSQL too")
    parser.add_argument("--postgres-url", default=POSTGRES_URL, help="a server to create it on")
    parser.add_argument("--before", type=float, default=4.0, help="load before Redis dies, s")
    parser.add_argument("--down", type=float, default=5.0, help="seconds Redis is away")
    parser.add_argument("--after", type=float, default=6.0, help="load after it is back, s")
    parser.add_argument("--body-mb", type=int, nargs="+", default=[256, 768])
    parser.add_argument("--pg-players", type=int, default=8, help="players while PG restarts")
    parser.add_argument("--pg-down", type=float, default=2.0, help="seconds PostgreSQL is away")
    parser.add_argument(
        "--skip", nargs="*", default=[], choices=["kill", "redis", "bodies", "length", "postgres"]
    )
    parser.add_argument("--write-docs", action="store_true", help="update docs/reliability.md")
    args = parser.parse_args()

    host = machine()
    command = ("python benchmarks/faults.py " + " ".join(sys.argv[1:])).strip()
    sections: dict[str, str] = {}
    if "kill" not in args.skip:
        table = kill_rows(run_kill(args))
        sections["Fault: kill -9 of Daphne under load"] = (
            "Players with retries (a request that gets no answer is sent again as it was) play\n"
            "practice games against one Daphne process, killed with SIGKILL and started again on\n"
            "the same port; then each game's log is compared with the actions its player saw\n"
            "acknowledged, and `manage.py verify_games` replays every game.\n\n"
            f"Command: `{command}` ({host})\n\n{table}\n"
        )
    if "redis" not in args.skip:
        table = redis_rows(run_redis(args))
        sections["Fault: Redis killed and restarted under load"] = (
            "A redis-server of the script's own, two Daphne processes sharing it: players play\n"
            "their daily attempts on one, a websocket watcher follows today's board on the other\n"
            "(reconnecting 0.5 s after a close). Redis is killed (SIGKILL), then started again,\n"
            "empty, on the same port.\n\n"
            f"Command: `{command}` ({host})\n\n{table}\n"
        )
    if "bodies" not in args.skip:
        table = bodies_rows(run_bodies(args))
        sections["Limit: request bodies"] = (
            "A body declared and streamed to `POST /api/auth/login/` of one Daphne process alone\n"
            "(`make run`'s shape), as fast as the process reads it: Daphne reads a body whole\n"
            "before the application's limit (`core/limits.py`) answers 413; in the deployed shape\n"
            "nginx answers 413 first, and no byte of it reaches Daphne (tests/deploy/). Before\n"
            "any limit, 256 MB took the process from 109 to 368 MB and was refused only once it\n"
            "had all arrived (400 `bad_request`).\n\n"
            f"Command: `{command}` ({host})\n\n{table}\n"
        )
    if "length" not in args.skip:
        table = length_rows(run_length(args))
        sections["Limit: the length of a game"] = (
            "A game of the longest length, draws and undos, built in the database; its actions\n"
            "and its record timed over HTTP against one Daphne process (SQLite). Before the\n"
            "limit a 3,000-action record with `?states=1` was 1.4 MB and 0.23 s, read by anyone\n"
            "without a rate limit, and games had no end.\n\n"
            f"Command: `{command}` ({host})\n\n{table}\n"
        )
    if "postgres" not in args.skip:
        table = postgres_rows(run_postgres_restart(args))
        sections["Fault: PostgreSQL restarted under load"] = (
            "Players with retries (a 5xx or no answer: the same request again) play practice\n"
            "games against one Daphne process on a PostgreSQL server of the script's own, which\n"
            "is stopped (fast shutdown) and started again; a watcher reads a game every 50 ms.\n"
            "Then each game's log is compared with what its player saw acknowledged, and\n"
            "`manage.py verify_games` replays every game.\n\n"
            f"Command: `{command}` ({host})\n\n{table}\n"
        )
    for heading, section in sections.items():
        print(f"\n## {heading}\n\n{section}")
        if args.write_docs:
            write_section(heading, f"## {heading}\n\n{section}", DOCS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
