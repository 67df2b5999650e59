"""Sustained action throughput of the deployed shape: two Daphne processes on PostgreSQL and Redis
behind nginx (deploy/nginx.conf, as docker-compose runs them), N concurrent players for S seconds,
over REST and over the game's websocket.

Starts the deployment on 127.0.0.1 (a scratch PostgreSQL database, created and dropped; a private
redis-server unless --redis-url; a worker of the worker tier, which builds the day's Redis sets as
deployed; the environment docker-compose gives the web processes: NUM_PROXIES=1,
DB_SYNCHRONOUS_COMMIT=0), signs up the players, then runs them from client
processes of their own (--client-processes, threads inside). Each player plays its ranked daily
attempt, then practice games, one legal action at a time with its ply (a hurried player: scoring
moves first), so the leaderboard's Redis ranking and live broadcasts run too. By --transport:

- ``rest``: POST /api/games/<id>/actions/, one keep-alive connection each;
- ``socket``: the game's socket, /ws/games/<id>/ (docs/api.md, "The game socket"; a synchronous
  ``websockets`` client), one socket per game, authenticated by the token's first message, each
  ``action`` message timed until its answer; games are started over REST, as the page does;
- ``both`` (the default): the two, one after the other, each with players of its own (each
  plays its own daily attempt).

Each transport's players are signed up for it. The same run's baseline is GET /api/health/
through the same nginx, at the same concurrency, for --baseline-seconds. As the action limit is
off (THROTTLE_ACTIONS=off: a guard per player, not a capacity), so is a socket's message rate
(SOCKET_MESSAGES_PER_SECOND: a guard per client, which a hurried player passes at once).

    .venv/bin/python benchmarks/throughput.py [--players 32] [--seconds 60]
        [--transport rest|socket|both] [--baseline-seconds 10]
        [--postgres-url postgres://postgres@127.0.0.1:5432/postgres] [--redis-url URL]
        [--write-docs]    # also replace the "Throughput" section of docs/performance.md

Prints requests/s, p50/p99, errors for each transport, the CPU time each answered request cost
each process of the machine (the web processes, the worker, PostgreSQL, Redis, nginx, the
clients; from /proc), their ratios to the health baseline, and the aims marked met or not:
over the socket >= 1.0 x health and p99 <= 150 ms; over REST >= 0.5 x
health; >= 300 actions/s sustained and 0 errors each. Loopback only, bounded by --seconds.
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
    Worker,
    deal_days,
    django_env,
    machine,
    migrate,
    player_action,
    postgres_database,
    write_section,
)
from websockets.exceptions import WebSocketException
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from tests.site.sockets import pong_for

POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres"
AIM_RATE, AIM_P99 = 300, 150.0
#: The aims of each transport's actions/s ÷ health requests/s, in the same run.
AIM_RATIO = {"rest": 0.5, "socket": 1.0}
TRANSPORTS = ("rest", "socket")
#: An answer: 200, another HTTP status, 599 for a lost connection, or a socket's refusal code.
Outcome = int | str
#: A row's name in the report.
NAMES = {
    "health": "GET health (baseline)",
    "rest": "POST actions (REST)",
    "socket": "actions over /ws/games/ (socket)",
}


#: What the machine's CPU time is counted under, by process: the web processes (Daphne), the
#: worker tier, the database, Redis, nginx; the client processes count their own (``os.times``).
PARTS = ("daphne", "worker", "postgres", "redis", "nginx")
TICK = os.sysconf("SC_CLK_TCK")


def part_of(pid: str) -> str | None:
    try:
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    if b"canfield_site.serve" in cmdline:  # (Daphne, as every web process is started)
        return "daphne"
    if b"manage.py\x00worker" in cmdline or b"manage.py\x00db_worker" in cmdline:
        return "worker"  # (the supervisor and the library's worker it runs)
    if comm == "postgres":
        return "postgres"
    if comm.startswith("redis-server"):
        return "redis"
    if comm == "nginx":
        return "nginx"
    return None


def cpu_seconds() -> dict[str, float]:
    """CPU seconds (user + system) so far of every running process, summed by part, and the
    machine's (``total``: every CPU's busy time)."""
    seconds = dict.fromkeys(PARTS, 0.0)
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or (part := part_of(pid)) is None:
            continue
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds[part] += (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
    busy = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    idle = int(busy[3]) + int(busy[4])  # idle, iowait
    seconds["total"] = (sum(int(x) for x in busy[:8]) - idle) / TICK
    return seconds


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


def play(port: int, token: str, deadline: float, out: list[tuple[float, Outcome]]) -> None:
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


class GameSocket:
    """A game's open socket (/ws/games/<id>/): messages sent with a ``ref`` each, answered in
    turn."""

    def __init__(self, conn: ClientConnection) -> None:
        self.conn = conn
        self.ref = 0

    def admit(self, token: str) -> dict[str, Any]:
        """Authenticate with the token's first message: the game its ``ready`` frame gives."""
        ready = self.ask({"type": "auth", "token": token})
        if ready["type"] != "ready":
            raise ConnectionError(f"the game's socket refused: {ready}")
        game: dict[str, Any] = ready["game"]
        return game

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send ``message`` with a new ``ref``; its answer (the server's pings on the way
        answered, as the page does)."""
        self.ref += 1
        self.conn.send(json.dumps({**message, "ref": self.ref}))
        while (pong := pong_for(text := self.conn.recv(timeout=30))) is not None:
            self.conn.send(pong)
        frame: dict[str, Any] = json.loads(text)
        if frame.get("ref") != self.ref:
            raise ConnectionError(f"an answer to another message: {frame}")
        return frame


def play_socket(port: int, token: str, deadline: float, out: list[tuple[float, Outcome]]) -> None:
    """As :func:`play`, over each game's socket (the game started, and read again after a
    refusal, over REST); a refusal is counted by its code, a lost socket as 599."""
    client = Client(port, token)
    status, game = client.request("POST", "/api/daily/")
    if status != 201:
        status, game = client.request("POST", "/api/games/", {})
    while time.monotonic() < deadline:
        try:
            with connect(
                f"ws://127.0.0.1:{port}/ws/games/{game['id']}/",
                origin=Origin(f"http://127.0.0.1:{port}"),
                compression=None,
                proxy=None,
                open_timeout=30,
                close_timeout=5,
                ping_interval=None,
            ) as conn:
                socket = GameSocket(conn)
                game = socket.admit(token)
                while time.monotonic() < deadline:
                    action = player_action(game)
                    if action is None:
                        break
                    t0 = time.perf_counter()
                    frame = socket.ask({"type": "action", "ply": game["ply"], "action": action})
                    played = frame["type"] == "played"
                    out.append((time.perf_counter() - t0, 200 if played else frame["code"]))
                    if played:
                        game = frame
                    else:  # read the game again and go on
                        _, game = client.request("GET", f"/api/games/{game['id']}/")
        except (OSError, WebSocketException):  # (ConnectionError too)
            out.append((0.0, 599))
            time.sleep(0.1)
            _, game = client.request("GET", f"/api/games/{game['id']}/")
            continue
        if player_action(game) is None and time.monotonic() < deadline:
            status, game = client.request("POST", "/api/games/", {})


def health(port: int, token: str, deadline: float, out: list[tuple[float, Outcome]]) -> None:
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
    results: list[list[tuple[float, Outcome]]] = [[] for _ in tokens]
    target = {"rest": play, "socket": play_socket, "health": health}[kind]
    threads = [
        threading.Thread(target=target, args=(port, token, deadline, results[i]))
        for i, token in enumerate(tokens)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    times = os.times()
    queue.put(([item for result in results for item in result], times.user + times.system))


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
    while time.monotonic() < start:
        time.sleep(0.001)
    before = cpu_seconds()
    items: list[tuple[float, Outcome]] = []
    clients = 0.0
    for _ in procs:
        got, cpu = queue.get(timeout=seconds + 120)
        if not items:
            after = cpu_seconds()  # (the first process's end: all were stopping)
        items += got
        clients += cpu
    for proc in procs:
        proc.join(timeout=30)
    cpu = {part: after[part] - before[part] for part in before}
    cpu["clients"] = clients
    ok = sorted(t for t, status in items if status == 200)
    errors = len(items) - len(ok)

    def pct(p: float) -> float:
        return ok[min(len(ok) - 1, int(p / 100 * len(ok)))] * 1000 if ok else float("nan")

    return {
        "kind": kind,
        "requests": len(items),
        "ok": len(ok),
        "errors": errors,
        "statuses": sorted({status for _, status in items if status != 200}, key=str),
        "rate": len(ok) / seconds,
        "cpu": cpu,
        "p50": pct(50),
        "p99": pct(99),
    }


def report(rows: list[dict[str, Any]], args: argparse.Namespace) -> str:
    lines = [
        "| endpoint | players | seconds | requests | errors | req/s | p50 ms | p99 ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        seconds = args.baseline_seconds if row["kind"] == "health" else args.seconds
        lines.append(
            f"| {NAMES[row['kind']]} | {args.players} | {seconds:g} | {row['requests']:,} "
            f"| {row['errors']} | {row['rate']:.0f} | {row['p50']:.1f} | {row['p99']:.1f} |"
        )
    lines += [
        "",
        "CPU time per answered request, by process (ms; user + system, from /proc), and the "
        "share of the two CPUs' time the run had:",
        "",
        "| endpoint | Daphne | worker | PostgreSQL | Redis | nginx | clients | machine | busy |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        seconds = args.baseline_seconds if row["kind"] == "health" else args.seconds
        cpu, n = row["cpu"], max(row["ok"], 1)
        cells = " | ".join(f"{cpu[part] / n * 1000:.2f}" for part in (*PARTS, "clients", "total"))
        busy = cpu["total"] / (seconds * (os.cpu_count() or 1))
        lines.append(f"| {NAMES[row['kind']]} | {cells} | {busy:.0%} |")
    base = rows[0]
    lines.append("")
    for row in rows[1:]:
        kind = row["kind"]
        ratio = row["rate"] / base["rate"]
        lines.append(
            f"- {kind}: actions/s ÷ health req/s (same run, same concurrency) = {ratio:.2f}; "
            f"action p50 ÷ health p50 = {row['p50'] / base['p50']:.1f}"
        )
        met = {
            f"≥ {AIM_RATIO[kind]:.1f} × health": ratio >= AIM_RATIO[kind],
            f"p99 ≤ {AIM_P99:g} ms at {args.players} players": row["p99"] <= AIM_P99,
            f"≥ {AIM_RATE} actions/s sustained": row["rate"] >= AIM_RATE,
            "0 errors": row["errors"] == 0,
        }
        for aim, ok in met.items():
            lines.append(f"- aim, {kind}: {aim}: {'met' if ok else 'not met'}")
        if row["statuses"]:
            lines.append(f"- {kind}: error statuses: {row['statuses']}")
    if len(rows) == 3:
        rest, socket = rows[1], rows[2]
        lines.append(
            f"- socket ÷ REST: actions/s × {socket['rate'] / rest['rate']:.2f}, "
            f"p50 × {socket['p50'] / rest['p50']:.2f}, p99 × {socket['p99'] / rest['p99']:.2f}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--baseline-seconds", type=float, default=10)
    parser.add_argument("--client-processes", type=int, default=2)
    parser.add_argument("--transport", choices=["rest", "socket", "both"], default="both")
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
                SOCKET_MESSAGES_PER_SECOND="10000",
                SOCKET_MESSAGE_BURST="10000",
            )
            migrate(env)
            deal_days(env)  # (today dealt, as the worker tier deals it)
            with (
                Deployment(env, work / "site", proxy=not args.direct) as site,
                Worker(env, work / "worker.log"),  # (as deployed: it builds the day's sets)
            ):
                port = int(site.url.rsplit(":", 1)[1])
                run = secrets.token_hex(3)
                transports = TRANSPORTS if args.transport == "both" else (args.transport,)
                players = {  # (each transport's own players: each plays its daily attempt)
                    kind: [sign_up(port, f"tp{run}{kind[0]}{i}") for i in range(args.players)]
                    for kind in transports
                }
                print(
                    f"  {args.players} players a transport signed up; baseline ...", file=sys.stderr
                )
                rows = [
                    measure(
                        "health",
                        port,
                        players[transports[0]],
                        args.baseline_seconds,
                        args.client_processes,
                    )
                ]
                for kind in transports:
                    print(f"  {kind} actions for {args.seconds:g} s ...", file=sys.stderr)
                    rows.append(
                        measure(kind, port, players[kind], args.seconds, args.client_processes)
                    )
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    text = report(rows, args)
    print(text)
    print(f"(load average after the run: {load})")
    if args.write_docs:
        command = "python benchmarks/throughput.py " + " ".join(sys.argv[1:])
        write_section(
            "Throughput",
            "## Throughput\n\n"
            f"Command: `{command.strip()}` ({host}; after the run {load}).\n\n"
            "Two Daphne processes behind nginx (`deploy/nginx.conf`), PostgreSQL, Redis and a "
            "worker of the worker tier, as docker-compose deploys them, all on this machine with "
            f"the clients (separate processes). {args.players} players each play their daily "
            "attempt (then practice games, should it end), one legal action at a time with its "
            "ply: over REST (POST "
            "/api/games/<id>/actions/, a keep-alive connection each), and, with players of their "
            "own, over the game's socket (/ws/games/<id>/, a socket per game, each action "
            "timed from its message to its answer); the baseline is the trivial endpoint "
            "through the same nginx at the same concurrency. The action limit is off "
            "(THROTTLE_ACTIONS), and so is a socket's message rate "
            "(SOCKET_MESSAGES_PER_SECOND): guards per player, which a hurried player passes at "
            "once.\n\n"
            f"{text}\n",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
