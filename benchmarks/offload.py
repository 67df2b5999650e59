"""Heavy work off the web processes: the figures of docs/performance.md, "Heavy work off the web".

Each scenario prints its figures next to a baseline measured in the same run, and its aim, met
or not (the aims of the issue that moved searches to the solver pool):

(a) hints: one Daphne (SQLite, throttles off). A probe client plays actions on its own practice
    game and reads /api/health/ between them, for --seconds, alone and then while --hinters
    players ask for hints without a pause (each on a new random deal: a search every time).
    Aim: action p50 <= 1.5 x, health p99 <= 2 x the probe alone.
(b) records: a finished practice game of 5,000 actions, its record with every state read by
    --readers clients at once (throttles off); the probe reads /api/health/ meanwhile.
    Aim: health p99 <= 100 ms during the downloads.
(c) first daily: `make run` on a fresh database (the default solver budgets), up 60 s, then a new
    player's POST /api/daily/. Aim: <= 300 ms.
(d) following the hints from the deal to the win on CF1-D3-AAAAACL, with the default hint limit
    (20 searches a minute): searches (the server's log) and refusals. Aim: 1 search, 0 refusals.
(e) Redis black-holed (a server that accepts and never answers) against a real Redis: the probe's
    action p99, and 5xx. Aim: p99 <= 2 x, 0 5xx.
(f) `make run` restarted with nothing changed: seconds until /api/health/ answers. Aim: <= 10 s.

    .venv/bin/python benchmarks/offload.py [--seconds 20] [--hinters 4] [--readers 30]
        [--skip hints records daily follow redis restart] [--write-docs]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from common import Daphne, RedisServer, django_env, free_port, machine, migrate, write_section

from tests.support import BlackHole

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "offload-bench-canfield-42"
HEADING = "Heavy work off the web"


# --- clients ------------------------------------------------------------------------------------


class Client:
    """One keep-alive HTTP connection to a server, with a player's token."""

    def __init__(self, url: str, token: str = "") -> None:
        host, port = url.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=120)
        self.token = token

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any, float]:
        """Status, JSON answer and milliseconds."""
        headers = {"Accept-Encoding": "identity"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode()
        started = time.perf_counter()
        for attempt in (1, 2):
            try:
                self.connection.request(method, path, data, headers)
                response = self.connection.getresponse()
                raw = response.read()
                break
            except (http.client.HTTPException, OSError):
                self.connection.close()
                if attempt == 2:
                    raise
        ms = (time.perf_counter() - started) * 1000
        return response.status, json.loads(raw) if raw else None, ms


def sign_up(url: str, name: str) -> str:
    status, body, _ = Client(url).call(
        "POST", "/api/auth/signup/", {"username": name, "password": PASSWORD}
    )
    assert status == 201, body
    return str(body["token"])


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Probe(threading.Thread):
    """Plays actions (draw, or recycle) on a practice game and reads /api/health/ between them."""

    def __init__(self, url: str, token: str) -> None:
        super().__init__(daemon=True)
        self.client = Client(url, token)
        self.health = Client(url)
        self.stop = threading.Event()
        self.actions: list[float] = []
        self.healths: list[float] = []
        self.statuses: Counter[int] = Counter()

    def run(self) -> None:
        status, game, _ = self.client.call("POST", "/api/games/", {"code": "CF1-D3-AAAAACL"})
        assert status == 201, game
        while not self.stop.is_set():
            action = "D" if "D" in game["state"]["legal"] else "C"
            status, played, ms = self.client.call(
                "POST", f"/api/games/{game['id']}/actions/", {"ply": game["ply"], "action": action}
            )
            self.statuses[status] += 1
            if status == 200:
                self.actions.append(ms)
                game = played
            status, _, ms = self.health.call("GET", "/api/health/")
            self.statuses[status] += 1
            self.healths.append(ms)

    def measure(self, seconds: float) -> Probe:
        self.start()
        time.sleep(seconds)
        self.stop.set()
        self.join()
        return self


def probe(url: str, seconds: float) -> Probe:
    return Probe(url, sign_up(url, f"probe{os.urandom(3).hex()}")).measure(seconds)


@contextmanager
def server(tmp: Path, **extra: str) -> Iterator[Daphne]:
    env = django_env(f"sqlite:///{tmp / 'db.sqlite3'}", LOG_LEVEL="INFO", **extra)
    migrate(env)
    with Daphne(env, tmp / "daphne.log") as daphne:
        yield daphne


def aim(met: bool) -> str:
    return "met" if met else "**not met**"


# --- (a) hints ----------------------------------------------------------------------------------


def run_hints(args: argparse.Namespace) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="canfield-offload-") as tmp,
        server(Path(tmp), THROTTLE_HINTS="off") as daphne,
    ):
        alone = probe(daphne.url, args.seconds)
        stop = threading.Event()
        outcomes: Counter[int] = Counter()

        def hinter(n: int) -> None:
            # As the game page asks: a hint on a new deal each time (a search each time), and
            # after a 503, the same one again once Retry-After has passed.
            client = Client(daphne.url, sign_up(daphne.url, f"hinter{n}"))
            game = None
            while not stop.is_set():
                if game is None:
                    game = client.call("POST", "/api/games/", {})[1]
                status, body, _ = client.call("GET", f"/api/games/{game['id']}/hint/")
                outcomes[status] += 1
                if status == 503:
                    stop.wait(float(body.get("retry_after", 1)))
                else:
                    game = None

        threads = [
            threading.Thread(target=hinter, args=(n,), daemon=True) for n in range(args.hinters)
        ]
        for thread in threads:
            thread.start()
        time.sleep(2)  # the hinters under way
        loaded = probe(daphne.url, args.seconds)
        stop.set()
        for thread in threads:
            thread.join()
    result = {
        "alone": (pct(alone.actions, 0.5), pct(alone.healths, 0.99)),
        "loaded": (pct(loaded.actions, 0.5), pct(loaded.healths, 0.99)),
        "actions": (len(alone.actions), len(loaded.actions)),
        "hints": dict(outcomes),
        "errors": sum(n for s, n in (alone.statuses + loaded.statuses).items() if s >= 500),
    }
    print(f"hints: {result}", file=sys.stderr)
    return result


def hints_rows(r: dict[str, Any], hinters: int) -> str:
    (a50, h99), (l50, lh99) = r["alone"], r["loaded"]
    hints = ", ".join(f"{n} × {status}" for status, n in sorted(r["hints"].items()))
    return "\n".join(
        [
            "| probe | action p50 | health p99 | actions |",
            "|---|---:|---:|---:|",
            f"| alone | {a50:.1f} ms | {h99:.1f} ms | {r['actions'][0]} |",
            f"| with {hinters} players asking for hints | {l50:.1f} ms | {lh99:.1f} ms "
            f"| {r['actions'][1]} |",
            f"| ratio | {l50 / a50:.2f} × | {lh99 / h99:.2f} × | |",
            "",
            f"Hint answers meanwhile: {hints}. Probe's 5xx: {r['errors']}.",
            f"Aims: action p50 ≤ 1.5 × alone ({aim(l50 <= 1.5 * a50)}); health p99 ≤ 2 × alone "
            f"({aim(lh99 <= 2 * h99)}).",
        ]
    )


# --- (b) records --------------------------------------------------------------------------------

# A finished practice game of MAX_GAME_ACTIONS actions (draws and undos), bulk-written with what
# games.services.play stores (as benchmarks/faults.py builds its long game); prints its id.
LONG_GAME = """
import json, django
django.setup()
from django.conf import settings
from django.contrib.auth.models import User
from games import services
from games.engine import Action, Canfield
from games.models import LoggedAction
user = User.objects.create_user("long", password="long-game-canfield-42")
game = services.new_game(user, code="CF1-D3-AAAAACL")
engine, rows = Canfield(game.deal_code), []
for ply in range(settings.MAX_GAME_ACTIONS):
    token = "D" if ply % 2 == 0 else "U"
    engine.push(Action.parse(token))
    rows.append(LoggedAction(game=game, ply=ply, token=token, score_after=engine.score))
LoggedAction.objects.bulk_create(rows)
services._sync(game, engine)
game.save()
services.resign(game, user)
print(json.dumps({"id": game.pk}))
"""


# Reads a game's record with every state from --readers threads at once, as browsers do (gzip
# accepted, the bytes only); prints their statuses, sizes and times. Arguments: url, id, readers.
READERS = """
import gzip, http.client, json, sys, threading, time
url, game, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
host, port = url.removeprefix("http://").split(":")
found = {"statuses": [], "sizes": [], "unzipped": [], "times": []}
def read():
    connection = http.client.HTTPConnection(host, int(port), timeout=120)
    started = time.perf_counter()
    connection.request("GET", f"/api/games/{game}/record/?states=1",
                       headers={"Accept-Encoding": "gzip"})
    response = connection.getresponse()
    body = response.read()
    found["times"].append((time.perf_counter() - started) * 1000)
    found["statuses"].append(response.status)
    found["sizes"].append(len(body))
    if response.getheader("Content-Encoding") == "gzip":
        found["unzipped"].append(len(gzip.decompress(body)))
threads = [threading.Thread(target=read) for _ in range(n)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps(found))
"""


def run_records(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="canfield-offload-") as tmp:
        env = django_env(f"sqlite:///{tmp}/db.sqlite3", THROTTLE_STATES="off")
        migrate(env)
        built = subprocess.run(
            [sys.executable, "-c", LONG_GAME], cwd=ROOT, env=env, check=True, capture_output=True
        )
        game_id = json.loads(built.stdout)["id"]
        with Daphne(env, Path(tmp) / "daphne.log") as daphne:
            health = Client(daphne.url)
            alone = [health.call("GET", "/api/health/")[2] for _ in range(300)]
            # The readers in a process of their own: threads here, reading 2 MB bodies, would
            # take this process's interpreter lock from the probe and delay its clock.
            readers = subprocess.Popen(
                [sys.executable, "-c", READERS, daphne.url, str(game_id), str(args.readers)],
                stdout=subprocess.PIPE,
                text=True,
            )
            during: list[float] = []
            while readers.poll() is None:
                during.append(health.call("GET", "/api/health/")[2])
            read = json.loads(readers.communicate()[0])
    statuses = Counter(read["statuses"])
    sizes, unzipped, times = read["sizes"], read["unzipped"], read["times"]
    result = {
        "health_alone_p99": pct(alone, 0.99),
        "health_during_p99": pct(during, 0.99),
        "health_reads": len(during),
        "statuses": dict(statuses),
        "record_mb": max(unzipped, default=0) / 1024 / 1024,
        "gzip_kb": max(sizes, default=0) / 1024,
        "download_p50": pct(times, 0.5),
        "download_max": max(times) if times else float("nan"),
    }
    print(f"records: {result}", file=sys.stderr)
    return result


def records_rows(r: dict[str, Any], readers: int) -> str:
    statuses = ", ".join(f"{n} × {status}" for status, n in sorted(r["statuses"].items()))
    return "\n".join(
        [
            "| measure | figure |",
            "|---|---:|",
            f"| the record (5,000 actions, every state) | {r['record_mb']:.2f} MB, "
            f"{r['gzip_kb']:.0f} KB gzipped |",
            f"| {readers} readers at once: answers | {statuses} |",
            f"| their download, p50 / slowest | {r['download_p50']:.0f} / "
            f"{r['download_max']:.0f} ms |",
            f"| /api/health/ p99, alone | {r['health_alone_p99']:.1f} ms |",
            f"| /api/health/ p99, during the downloads ({r['health_reads']} reads) "
            f"| {r['health_during_p99']:.1f} ms |",
            "",
            "Aim: health p99 ≤ 100 ms during the downloads "
            f"({aim(r['health_during_p99'] <= 100)}).",
        ]
    )


# --- (c) the first daily of a fresh `make run` --------------------------------------------------


@contextmanager
def make_run(database: Path, port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env["DATABASE_URL"] = f"sqlite:///{database}"
    with log.open("ab") as out:
        process = subprocess.Popen(
            ["make", "run", f"PORT={port}"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def wait_health(url: str, timeout: float = 120) -> float:
    """Seconds until /api/health/ answers 200."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            if Client(url).call("GET", "/api/health/")[0] == 200:
                return time.monotonic() - started
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


def run_daily(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="canfield-offload-") as tmp:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        with make_run(Path(tmp) / "db.sqlite3", port, Path(tmp) / "make-run.log"):
            wait_health(url)
            time.sleep(args.up)
            token = sign_up(url, "firstplayer")
            status, body, ms = Client(url, token).call("POST", "/api/daily/")
    result = {"status": status, "ms": ms, "code": body.get("code") if status != 201 else None}
    print(f"daily: {result}", file=sys.stderr)
    return result


def daily_rows(r: dict[str, Any], up: float) -> str:
    answer = f"{r['status']}" + (f" {r['code']}" if r["code"] else "")
    return "\n".join(
        [
            "| measure | figure |",
            "|---|---:|",
            f"| `make run` on a fresh database, up {up:.0f} s: first POST /api/daily/ | "
            f"{answer}, {r['ms']:.0f} ms |",
            "",
            f"Aim: ≤ 300 ms ({aim(r['status'] == 201 and r['ms'] <= 300)}). Before: 12.4 s, the "
            "request waiting for the solver.",
        ]
    )


# --- (d) following the hints --------------------------------------------------------------------


def run_follow(args: argparse.Namespace) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="canfield-offload-") as tmp,
        server(Path(tmp), THROTTLE_HINTS="20/min", THROTTLE_ACTIONS="off") as daphne,
    ):
        client = Client(daphne.url, sign_up(daphne.url, "follower"))
        _, game, _ = client.call("POST", "/api/games/", {"code": "CF1-D3-AAAAACL"})
        statuses: Counter[int] = Counter()
        hints = 0
        while game["status"] == "in_progress" and hints < 1000:
            status, hint, _ = client.call("GET", f"/api/games/{game['id']}/hint/")
            statuses[status] += 1
            hints += 1
            if status != 200:
                break
            status, game, _ = client.call(
                "POST",
                f"/api/games/{game['id']}/actions/",
                {"ply": game["ply"], "action": hint["action"]},
            )
        log = (Path(tmp) / "daphne.log").read_text()
    result = {
        "hints": hints,
        "statuses": dict(statuses),
        "searches": log.count("hint: searched game"),
        "won": game["status"] == "won",
        "actions": game["ply"],
    }
    print(f"follow: {result}", file=sys.stderr)
    return result


def follow_rows(r: dict[str, Any]) -> str:
    refused = sum(n for status, n in r["statuses"].items() if status != 200)
    return "\n".join(
        [
            "| measure | figure |",
            "|---|---:|",
            f"| hints asked, CF1-D3-AAAAACL from the deal | {r['hints']} |",
            f"| game won, in actions | {'yes' if r['won'] else 'no'}, {r['actions']} |",
            f"| searches (the server's log) | {r['searches']} |",
            f"| refusals (429) | {refused} |",
            "",
            f"Aim: 1 search, 0 refusals ({aim(r['searches'] == 1 and refused == 0 and r['won'])})."
            ' Before: "Too many hints" about every 20 moves.',
        ]
    )


# --- (e) Redis black-holed ----------------------------------------------------------------------


def run_redis(args: argparse.Namespace) -> dict[str, Any]:
    results = {}
    with tempfile.TemporaryDirectory(prefix="canfield-offload-") as tmp:
        work = Path(tmp)
        with RedisServer(work) as redis, _redis_server(work / "up", redis.url) as daphne:
            results["Redis up"] = probe(daphne.url, args.seconds)
        with BlackHole() as hole, _redis_server(work / "hole", hole.url) as daphne:
            results["Redis black-holed"] = probe(daphne.url, args.seconds)
    result = {
        name: {
            "p50": pct(p.actions, 0.5),
            "p99": pct(p.actions, 0.99),
            "actions": len(p.actions),
            "5xx": sum(n for s, n in p.statuses.items() if s >= 500),
        }
        for name, p in results.items()
    }
    print(f"redis: {result}", file=sys.stderr)
    return result


@contextmanager
def _redis_server(work: Path, redis_url: str) -> Iterator[Daphne]:
    work.mkdir(parents=True, exist_ok=True)
    env = django_env(f"sqlite:///{work / 'db.sqlite3'}", redis_url, THROTTLE_ACTIONS="600/min")
    migrate(env)
    with Daphne(env, work / "daphne.log") as daphne:
        yield daphne


def redis_rows(r: dict[str, Any]) -> str:
    up, hole = r["Redis up"], r["Redis black-holed"]
    lines = [
        "| Redis | action p50 | action p99 | actions | 5xx |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, figures in r.items():
        lines.append(
            f"| {name} | {figures['p50']:.1f} ms | {figures['p99']:.1f} ms "
            f"| {figures['actions']} | {figures['5xx']} |"
        )
    met = hole["p99"] <= 2 * up["p99"] and hole["5xx"] == 0
    lines += [
        "",
        f"Aim: action p99 ≤ 2 × with Redis up ({hole['p99'] / up['p99']:.2f} ×), 0 5xx "
        f"({aim(met)}).",
    ]
    return "\n".join(lines)


# --- (f) make run restarted ---------------------------------------------------------------------


def run_restart(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="canfield-offload-") as tmp:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        times = []
        for _ in range(3):
            started = time.monotonic()
            with make_run(Path(tmp) / "db.sqlite3", port, Path(tmp) / "make-run.log"):
                wait_health(url)
                times.append(time.monotonic() - started)
    result = {"first": times[0], "restarts": times[1:]}
    print(f"restart: {result}", file=sys.stderr)
    return result


def restart_rows(r: dict[str, Any]) -> str:
    worst = max(r["restarts"])
    restarts = ", ".join(f"{t:.1f} s" for t in r["restarts"])
    return "\n".join(
        [
            "| measure | figure |",
            "|---|---:|",
            f"| `make run`, first start on this checkout's state | {r['first']:.1f} s |",
            f"| restarts with nothing changed | {restarts} |",
            "",
            f"Aim: a restart answers within 10 s ({aim(worst <= 10)}). Before: 31–46 s (every "
            "restart recompressed 547 static files).",
        ]
    )


# --- main ---------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--hinters", type=int, default=4)
    parser.add_argument("--readers", type=int, default=30)
    parser.add_argument("--up", type=float, default=60.0, help="(c): seconds up before playing")
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        choices=["hints", "records", "daily", "follow", "redis", "restart"],
    )
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    header = f"Command: `python benchmarks/offload.py --write-docs` ({machine()})"
    parts = [
        f"## {HEADING}\n",
        "Players' searches (hints) and the records they ask for with every state run in each web "
        "process's solver pool (`games.pool`: worker processes), never on a thread of the web "
        "process; background duties (certifying a day's deal, finished games' records) run in the "
        "worker tier (docs/architecture.md), never in the pool; `benchmarks/offload.py` measures "
        "what that buys, each figure next to a baseline of the same run.\n",
        "Why a process pool (pebble's `ProcessPool`) owned by each web process: a Daphne "
        "process serves all its requests and sockets on one event loop, its views on threads, all "
        "under one interpreter lock, so a search on any of its threads slowed everything it "
        "served; a worker process has its own. The pool needs nothing to run (`make run` stays one "
        "command), grows with the web tier (each Daphne brings `SOLVER_WORKERS` workers), and a "
        "task is short and needs nothing but its arguments (pure functions of the engine, "
        "`games/pool_jobs.py`). A task starts at once or is refused at once: the pool holds no "
        "more "
        "tasks than it has workers, a task waits at most `SOLVER_WAIT` and only if a worker is due "
        "to be free by then (`SOLVER_QUEUE` at most waiting), else 503 `busy` with `Retry-After`, "
        "and every task has a deadline (its own budget, plus `SOLVER_WAIT`): past it, its worker "
        "is killed and replaced, and its request answers `busy`. Pebble brings the deadlines, the "
        "workers killed and replaced, and their initializer; the admission is the pool's own "
        "(`games/pool.py`: pebble queues every task it is given, without limit, behind whatever "
        "runs), as are a new pool when pebble finds one broken (a worker that died while none "
        "worked) and the stop that answers every request still waiting `busy`. A player's search "
        "is answered within seconds or not at all, so it stays beside "
        "the web process; work that answers no request went to the worker tier (Django's Tasks "
        "API, `benchmarks/worker.py`).\n",
        header + "\n",
    ]
    sections: list[tuple[str, str, Callable[[], str]]] = [
        (
            "hints",
            "Players asking for hints, one Daphne",
            lambda: hints_rows(run_hints(args), args.hinters),
        ),
        (
            "records",
            "Downloads of a 5,000-action record",
            lambda: records_rows(run_records(args), args.readers),
        ),
        (
            "daily",
            "The first daily of a fresh `make run`",
            lambda: daily_rows(run_daily(args), args.up),
        ),
        ("follow", "Following the hints to the win", lambda: follow_rows(run_follow(args))),
        ("redis", "Redis black-holed", lambda: redis_rows(run_redis(args))),
        ("restart", "`make run` restarted", lambda: restart_rows(run_restart(args))),
    ]
    for name, title, measure in sections:
        if name in args.skip:
            continue
        table = measure()
        print(f"\n### {title}\n\n{table}")
        parts.append(f"### {title}\n\n{table}\n")
    if args.write_docs:
        write_section(HEADING, "\n".join(parts))


if __name__ == "__main__":
    main()
