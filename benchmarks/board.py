"""The daily leaderboard at scale: live fan-out to many watchers, and board queries on a big day.

(a) live: the deployed shape — two Daphne processes on one PostgreSQL database (scratch, created
    and dropped) and one Redis (a private redis-server unless --redis-url) — with a full board
    (--filler attempts, so that every snapshot carries 100 rows). N watchers (--watchers; the
    first figure, 100, is the same run's baseline) connect to /ws/daily/<today>/, half to each
    process, from --watcher-processes client processes of their own (asyncio, `websockets`), so
    that the clients do not measure themselves. Each socket behaves as the page's (live.js): it
    asks for a snapshot when an update's seq skips one, and reconnects with jitter (0.5 s doubled
    per attempt) whenever it is closed, its new snapshot bringing it up to date; each comes from
    a client network of its own (X-Forwarded-For, through the one proxy the servers trust), as a
    crowd does. Measured: the time for all N to connect and receive their snapshot; then two
    boards, on the same sockets, each with --moves players' actions (made over HTTP, a second
    apart, to the two processes in turn):
    - steady: an action of a player already on the board (its row changes and may pass a few);
    - shift: a newcomer's first action, which enters the board above most of it (every row
      below moves down one rank);
    for each, the time from the action's HTTP answer until each watcher has received the update
    that shows it, or a snapshot that does (every watcher: p50, p99 and max; one that never did
    counts as infinitely late, and as a delivery that never arrived), the sockets the server
    closed (by code and reason), the reconnects and resyncs, and the size of the updates one
    socket received — next to the size of the same changes sent by position, as the live board
    sent them before it sent changes by player (the same run's baseline: computed from the
    socket's boards, held with the client's model).
(b) board: a day of --attempts attempts (default 1,000,000; another day of a tenth beside it)
    bulk-created in a scratch PostgreSQL database, the day's Redis sorted sets rebuilt from it;
    the service calls' time (median and p90 of --repeat) from Redis, next to the same calls
    answered by SQL alone (the same run's baseline): board page 1, a page anywhere, the last
    page, my rank, a live snapshot.

    .venv/bin/python benchmarks/board.py [--watchers 100 10000] [--moves 10]
        [--attempts 1000000] [--skip-live] [--skip-board] [--write-docs] [--logs DIR]

Aims (printed met or not): every update <= 2 KB, ranks shifting or not; no update lost for a
watcher; 10,000 watchers receive an update <= 1 s after the move's HTTP answer (p99, both boards);
10,000 sockets connect and get their snapshot in <= 10 s; board page 1, any page and my rank <=
5 ms (p50, service call, Redis). Loopback only; every wait has a deadline. The open-files limit
is raised to the hard limit. --logs DIR keeps the servers' logs; their warnings are counted on
stderr after each phase.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import multiprocessing
import os
import random
import re
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import (
    TEST_DEAL_POSITIONS,
    TEST_DIFFICULTY_GAMES,
    TEST_DIFFICULTY_WEEK,
    Deployment,
    RedisServer,
    django_env,
    machine,
    migrate,
    next_action,
    player_action,
    post_json,
    postgres_database,
    timed,
    write_section,
)

from tests.site.sockets import pong_for

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres"
PASSWORD = "bench-password-0123"
AIM_UPDATE_BYTES = 2048
AIM_LATENCY = 1.0
AIM_CONNECT = 10.0
AIM_QUERY_MS = 5.0


def raise_open_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


# --- workers that run Django (subprocesses with DATABASE_URL and REDIS_URL set) ----------------


def setup_django() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canfield_site.settings")
    django.setup()


def seed(day: dt.date, attempts: int, prefix: str, rng: random.Random, low: bool = False) -> None:
    """Bulk-create ``attempts`` players, each with a daily attempt of ``day``. ``low``: every
    attempt with its base card alone on the foundations, so that the live test's players rank
    among them."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    from games.models import Game
    from leaderboard.deals import deal_of

    code = deal_of(day).code  # dealt here (the solver pool) if nobody has dealt it yet
    now = timezone.now()
    day_start = dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)
    span = max(60.0, (min(now, day_start + dt.timedelta(days=1)) - day_start).total_seconds() - 60)
    batch = 10_000
    for first in range(0, attempts, batch):
        size = min(batch, attempts - first)
        users = User.objects.bulk_create(
            [User(username=f"{prefix}{first + i:07}", password="!") for i in range(size)]
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
                    score=(cards - 1) * 5,
                    ply=actions,
                    foundation_cards=cards,
                    started_at=start,
                    finished_at=finished,
                )
            )
        Game.objects.bulk_create(games)


def board_worker(args: argparse.Namespace) -> None:
    setup_django()
    from unittest import mock

    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from games.clock import utc_today
    from games.models import Game
    from leaderboard import redis_client, services, standings
    from leaderboard.live import frames
    from leaderboard.standings import sets

    call_command("migrate", verbosity=0)
    rng = random.Random(7)
    today = utc_today()
    t0 = time.perf_counter()
    seed(today - dt.timedelta(days=1), args.attempts // 10, "y", rng)
    seed(today, args.attempts, "p", rng)
    seeded = time.perf_counter() - t0
    with connection.cursor() as cursor:  # what autovacuum does to a table after bulk loads
        cursor.execute("VACUUM ANALYZE games_game")
    t0 = time.perf_counter()
    sets.forget(today)
    assert sets.rebuild(today)
    rebuilt = time.perf_counter() - t0
    memory = redis_client.client().info("memory")["used_memory"]
    count = standings.attempts(today).count()
    pages = -(-count // standings.PAGE_SIZE)
    viewer = User.objects.get(username=f"p{args.attempts // 2:07}")
    mine = Game.objects.select_related("owner").get(owner=viewer, daily_date=today)
    pick = random.Random(3)
    measures = {
        "board page 1 (count, 100 rows, seq)": lambda: services.board(today, 1, None),
        "board, a page anywhere": lambda: services.board(today, pick.randint(1, pages), None),
        f"board page {pages:,} (the last)": lambda: services.board(today, pages, None),
        "my rank (rank_of)": lambda: standings.board(today, timezone.now()).rank_of(mine),
        "board page 1 with my row ranked (me)": lambda: services.board(today, 1, viewer),
        "live snapshot (top 100 + count)": lambda: frames.snapshot_frame(today, 1),
    }
    results: dict[str, dict[str, tuple[float, float]]] = {"Redis": {}, "SQL": {}}
    for name, call in measures.items():
        results["Redis"][name] = timed(call, args.repeat)
        with mock.patch.object(sets, "enabled", return_value=False):
            results["SQL"][name] = timed(call, max(3, args.repeat // 3))
    agree = [g.pk for g in standings.SqlBoard(today, timezone.now()).rows(0, 100)] == [
        g.pk for g in standings.board(today, timezone.now()).rows(0, 100)
    ]
    # Yesterday, settled: its final ranks written once, then its board read from them.
    yesterday = today - dt.timedelta(days=1)
    t0 = time.perf_counter()
    assert standings.settle_day(yesterday)
    settling = time.perf_counter() - t0
    past = standings.attempts(yesterday).count()
    past_pages = -(-past // standings.PAGE_SIZE)
    theirs = Game.objects.select_related("owner").get(
        owner__username=f"y{args.attempts // 20:07}", daily_date=yesterday
    )
    settled_measures = {
        "past day (settled): a page anywhere": lambda: services.board(
            yesterday, pick.randint(1, past_pages), None
        ),
        "past day (settled): a rank": lambda: standings.board(yesterday, timezone.now()).rank_of(
            theirs
        ),
    }
    for name, call in settled_measures.items():
        results["Redis"][name] = timed(call, args.repeat)
        with mock.patch.object(standings.settled, "board", return_value=None):
            results["SQL"][name] = timed(call, max(3, args.repeat // 3))
    print(
        json.dumps(
            {
                "attempts": count,
                "seeded_seconds": round(seeded, 1),
                "rebuild_seconds": round(rebuilt, 1),
                "past_attempts": past,
                "settle_seconds": round(settling, 1),
                "redis_bytes": memory,
                "agree": agree,
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


def run_board(args: argparse.Namespace, redis_url: str) -> dict[str, Any]:
    name = f"canfield_scale_board_{secrets.token_hex(3)}"
    with postgres_database(args.postgres_url, name) as url:
        print(f"  board: seeding {args.attempts:,} attempts ...", file=sys.stderr)
        out = subprocess.run(
            [PYTHON, __file__, "_board", "--attempts", str(args.attempts)]
            + ["--repeat", str(args.repeat)],
            cwd=ROOT,
            env=django_env(url, redis_url),
            check=True,
            capture_output=True,
            text=True,
            timeout=3600,
        )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def board_table(result: dict[str, Any]) -> str:
    lines = [
        "| service call | served from | median ms | p90 ms | SQL median ms | SQL p90 ms "
        "| SQL ÷ served |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for name, (median, p90) in result["results"]["Redis"].items():
        sql, sql90 = result["results"]["SQL"][name]
        source = "final ranks" if "settled" in name else "Redis"
        lines.append(
            f"| {name} | {source} | {median:.1f} | {p90:.1f} | {sql:.1f} | {sql90:.1f} "
            f"| {sql / median:.0f} |"
        )
    lines.append("")
    redis = result["results"]["Redis"]
    for name in list(redis)[:4]:
        ok = redis[name][0] <= AIM_QUERY_MS
        lines.append(
            f"- aim {name} ≤ {AIM_QUERY_MS:g} ms p50: {redis[name][0]:.1f} — "
            f"{'met' if ok else 'not met'}"
        )
    return "\n".join(lines)


# --- (a) live -----------------------------------------------------------------------------------


def secret_for(day: dt.date) -> str:
    """A DAILY_DEAL_SECRET whose deal of ``day`` has no scoring move in its first actions: the
    players' moves then change their rows without sending them to the top (a typical move)."""
    setup_django()  # (the deals' module needs the apps; no database is used here)
    from games.engine import Action, Canfield
    from games.engine.certify import certify
    from games.engine.difficulty import Band

    band = Band.parse(TEST_DIFFICULTY_WEEK.split(",")[day.weekday()])
    while True:
        secret = secrets.token_hex(16)
        # The servers certify on django_env's budgets (DAILY_DEAL_POSITIONS, the difficulty's).
        found = certify(
            secret.encode(),
            day,
            positions=TEST_DEAL_POSITIONS,
            shorten_positions=0,
            candidates=200,
            band=band,
            games=TEST_DIFFICULTY_GAMES,
        )
        engine = Canfield(found.code)
        for _ in range(4):
            token, scoring = next_action([a.token() for a in engine.legal_moves])
            if scoring:
                break
            engine.push(Action.parse(token))
        else:
            return secret


class Player:
    """A player with today's attempt started: with its first action played (on the board), or
    not yet (``started=False``: its first action, measured, makes it enter the board)."""

    def __init__(self, base: str, name: str, started: bool = True) -> None:
        self.base, self.name = base, name
        status, body = post_json(
            f"{base}/api/auth/signup/", {"username": name, "password": PASSWORD}
        )
        assert status == 201, body
        self.token = body["token"]
        status, self.game = post_json(f"{base}/api/daily/", token=self.token)
        assert status == 201, self.game
        if started:
            self.move(base)

    def move(self, base: str) -> int:
        """One action through ``base``; returns the attempt's actions after it."""
        action = player_action(self.game)
        assert action is not None
        status, self.game = post_json(
            f"{base}/api/games/{self.game['id']}/actions/",
            {"ply": self.game["ply"], "action": action},
            self.token,
        )
        assert status == 200, self.game
        return int(self.game["ply"])


def watcher_process(
    urls: list[str], origins: list[str], addresses: list[str], conn: Any, gate: int
) -> None:
    """Connect one websocket per URL, report when all have their snapshot, then record when each
    receives the row (player, actions) it is told to wait for. Each socket behaves as the page's
    (``live.js``): it resyncs on a gap in ``seq``, and reconnects with jitter whenever it is
    closed (its snapshot then brings it up to date). ``addresses``: each watcher's address, as
    the proxy in front of the site reports it (see :func:`client_address`)."""
    raise_open_files()
    asyncio.run(_watch(urls, origins, addresses, conn, gate))


def reconnect_wait(attempt: int) -> float:
    """The page's reconnect backoff (``live.js``): 0.5 s doubled per attempt, at most 30 s, with
    ±25 % jitter."""
    return float(min(30.0, 0.5 * 2**attempt) * random.uniform(0.75, 1.25))


def client_address(n: int) -> str:
    """Watcher ``n``'s address, as the proxy in front of the site reports it (X-Forwarded-For;
    the servers trust one proxy): one client network (/24) of its own per watcher, as a crowd of
    households is, so that the per-network cap (``SOCKET_MAX_PER_NETWORK``) is not what is
    measured."""
    return f"10.{(n >> 8) & 255}.{n & 255}.7"


class Watcher:
    """One watcher's board as the page holds it: the ``seq`` it is at, and which awaited rows
    reached it (in an update, or in a snapshot at a ``seq`` that shows them)."""

    def __init__(self) -> None:
        self.seq = -1
        self.attempt = 0
        self.seen: set[tuple[str, int]] = set()
        self.resyncing = False


async def _watch(
    urls: list[str], origins: list[str], addresses: list[str], conn: Any, gate_size: int
) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed
    from websockets.typing import Origin

    loop = asyncio.get_running_loop()
    wanted: dict[str, int] = {}
    arrivals: dict[str, list[float]] = {}
    texts: list[str] = []  # the first socket's frames since the last report
    snapshot: list[str] = []
    gate = asyncio.Semaphore(gate_size)
    watchers = [Watcher() for _ in urls]
    open_sockets: set[Any] = set()
    ready: set[int] = set()  # watchers that got their first snapshot or failed to
    failed = 0
    stopping = False
    counts: dict[str, Any] = {"closes": {}, "reconnects": 0, "gaps": 0, "resyncs": 0}

    def take_counts() -> dict[str, Any]:
        """The counts since the last report (they start again from nothing)."""
        taken = {**counts, "closes": dict(counts["closes"])}
        counts.update(closes={}, reconnects=0, gaps=0, resyncs=0)
        return taken

    def arrived(w: Watcher, rows: list[dict[str, Any]], text: str, now: float) -> None:
        for name, actions in wanted.items():
            if (name, actions) in w.seen or f'"player":"{name}"' not in text:
                continue
            if any(r["player"] == name and r["actions"] >= actions for r in rows):
                w.seen.add((name, actions))
                arrivals.setdefault(name, []).append(now)

    async def resync(w: Watcher, ws: Any, wait: float = 0.0) -> None:
        """Ask for a snapshot (the server allows one a second: a refusal says how long to wait)."""
        await asyncio.sleep(wait)
        counts["resyncs"] += 1
        with contextlib.suppress(ConnectionClosed):
            await ws.send('{"type":"resync"}')

    async def frame(i: int, w: Watcher, ws: Any, text: str) -> None:
        if (pong := pong_for(text)) is not None:  # the server's ping: answered, as the page does
            with contextlib.suppress(ConnectionClosed):
                await ws.send(pong)
            return
        now = time.time()
        if i == 0:
            texts.append(text)
        message = json.loads(text)
        kind = message.get("type")
        if kind == "snapshot":
            if i == 0 and not snapshot:
                snapshot.append(text)
            ready.add(i)
            w.attempt, w.resyncing = 0, False
            if message["seq"] >= w.seq:
                w.seq = message["seq"]
                arrived(w, message["results"], text, now)
        elif kind == "update" and w.seq >= 0 and message["seq"] > w.seq:
            if message["seq"] == w.seq + 1 or message["full"]:
                w.seq = message["seq"]
                arrived(w, message["rows"], text, now)
            elif not w.resyncing:  # an update was lost: ask for a snapshot, as the page does
                counts["gaps"] += 1
                w.resyncing = True
                loop.create_task(resync(w, ws))
        elif kind == "error" and message.get("code") == "throttled":
            loop.create_task(resync(w, ws, float(message.get("retry_after", 1.0))))

    async def one(i: int, url: str, origin: str) -> None:
        nonlocal failed
        w = watchers[i]
        headers = {"X-Forwarded-For": addresses[i]}
        while not stopping:
            try:
                async with gate:
                    ws = await connect(
                        url,
                        origin=Origin(origin),
                        additional_headers=headers,
                        open_timeout=60,
                        max_size=2**22,
                        compression=None,
                        ping_interval=None,  # as a browser: the server pings
                    )
            except Exception as exc:
                counts["closes"]["no connection"] = counts["closes"].get("no connection", 0) + 1
                if i not in ready:
                    ready.add(i)
                    failed += 1
                    if failed <= 3:
                        print(f"    a watcher failed to connect: {exc!r}", file=sys.stderr)
            else:
                open_sockets.add(ws)
                try:
                    async for text in ws:
                        await frame(i, w, ws, str(text))
                except ConnectionClosed:
                    pass
                open_sockets.discard(ws)
                code = str(ws.close_code or 1006)
                if ws.close_reason:
                    code += f" {ws.close_reason}"
                if stopping:
                    return
                counts["closes"][code] = counts["closes"].get(code, 0) + 1
            counts["reconnects"] += 1
            await asyncio.sleep(reconnect_wait(w.attempt))
            w.attempt += 1

    start = await loop.run_in_executor(None, conn.recv)  # the go signal
    while time.time() < start:
        await asyncio.sleep(0.001)
    tasks = [loop.create_task(one(i, url, origins[i])) for i, url in enumerate(urls)]
    while len(ready) < len(urls):
        await asyncio.sleep(0.005)
    conn.send(("connected", time.time(), failed, snapshot[:1], take_counts()))
    while True:
        message = await loop.run_in_executor(None, conn.recv)
        if message[0] == "wait":
            wanted[message[1]] = message[2]
        elif message[0] == "report":
            missing = sum(1 for w in watchers for key in wanted.items() if key not in w.seen)
            conn.send(("arrivals", dict(arrivals), missing, list(texts), take_counts()))
            arrivals.clear()
            texts.clear()
            wanted.clear()
        elif message[0] == "stop":
            break
    stopping = True
    await asyncio.gather(*(ws.close() for ws in list(open_sockets)), return_exceptions=True)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def by_position(previous: list[Any], current: list[Any]) -> int:
    """The bytes of the update the live board sent before it sent changes by player (the same
    run's baseline): every row whose place or values changed, at its rank."""
    from leaderboard.live.frames import same_row

    rows = [
        row for i, row in enumerate(current) if i >= len(previous) or not same_row(previous[i], row)
    ]
    frame = {"type": "update", "date": "", "seq": 0, "at": "", "count": 0, "size": 0,
             "rows": rows, "full": False}  # fmt: skip
    return len(json.dumps(frame, separators=(",", ":")))


def frame_sizes(snapshot: str, texts: list[str]) -> tuple[list[int], list[int], str]:
    """The sizes of the updates one socket received, of the same changes sent by position, and
    the socket's board after them: it is followed with the client's model
    (``leaderboard.live.model``)."""
    from leaderboard.live import model

    held = json.loads(snapshot)
    sizes, baseline = [], []
    for text in texts:
        update = json.loads(text)
        if update.get("type") != "update":
            continue
        try:
            after = model.apply_update(held, update)
        except model.NotFollowing:
            after = json.loads(json.dumps({**held, "seq": update["seq"]}))
        sizes.append(len(text.encode()))
        baseline.append(by_position(held["results"], after["results"]))
        held = after
    return sizes, baseline, json.dumps(held)


#: The boards a fan-out measures: each measured move is an action of a player already on the
#: board (``steady``: its row changes, it may pass a few), or the first action of a player who
#: then enters the board above most of it (``shift``: every row below moves down one rank).
MODES = ("steady", "shift")


def merge(into: dict[str, Any], counts: dict[str, Any]) -> dict[str, Any]:
    """Add one watcher process's counts (closes by code, reconnects, gaps, resyncs) to ``into``."""
    for key, value in counts.items():
        if key == "closes":
            closes = into.setdefault("closes", {})
            for code, n in value.items():
                closes[code] = closes.get(code, 0) + n
        else:
            into[key] = into.get(key, 0) + value
    return into


def closes_text(counts: dict[str, Any]) -> str:
    closes = counts.get("closes") or {}
    return ", ".join(f"{code} × {n:,}" for code, n in sorted(closes.items())) or "none"


class ServerLogs:
    """The Daphne processes' warnings and errors since the last :meth:`take` (their logs, which
    the deployment keeps), counted by message with its numbers and addresses left out."""

    def __init__(self, site: Deployment) -> None:
        self.paths = [d.log for d in site.daphnes if d.log is not None]
        self.offsets = {path: 0 for path in self.paths}

    def take(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for path in self.paths:
            if not path.exists():
                continue
            with path.open("rb") as f:
                f.seek(self.offsets[path])
                text = f.read().decode(errors="replace")
                self.offsets[path] = f.tell()
            for line in text.splitlines():
                if " WARNING " not in line and " ERROR " not in line:
                    continue
                message = line.split(" ", 2)[-1]
                key = re.sub(r"[0-9]+", "N", message)[:120]
                found[key] = found.get(key, 0) + 1
        return found


def print_notes(what: str, counts: dict[str, Any], logs: dict[str, int]) -> None:
    print(
        f"    {what}: closes {closes_text(counts)}; reconnects {counts.get('reconnects', 0):,}, "
        f"gaps {counts.get('gaps', 0):,}, resyncs {counts.get('resyncs', 0):,}",
        file=sys.stderr,
    )
    for message, n in sorted(logs.items(), key=lambda item: -item[1])[:8]:
        print(f"      server × {n:,}: {message}", file=sys.stderr)


def fan_out(site: Deployment, watchers: int, args: argparse.Namespace, run: str) -> dict[str, Any]:
    today = dt.datetime.now(dt.UTC).date().isoformat()
    ports = [d.port for d in site.daphnes]
    urls = [f"ws://127.0.0.1:{ports[i % 2]}/ws/daily/{today}/" for i in range(watchers)]
    origins = [f"http://127.0.0.1:{ports[i % 2]}" for i in range(watchers)]
    addresses = [client_address(i) for i in range(watchers)]
    procs = min(args.watcher_processes, max(1, watchers // 50))
    ctx = multiprocessing.get_context("spawn")
    logs = ServerLogs(site)
    logs.take()  # (what came before)
    pipes, workers = [], []
    for k in range(procs):
        mine, theirs = ctx.Pipe()
        share = slice(k, None, procs)
        proc = ctx.Process(
            target=watcher_process,
            args=(urls[share], origins[share], addresses[share], theirs, args.gate),
        )
        proc.start()
        pipes.append(mine)
        workers.append(proc)
    players = {
        mode: [
            Player(site.daphnes[i % 2].url, f"b{run}w{watchers}{mode[:2]}{i}", mode == "steady")
            for i in range(args.moves)
        ]
        for mode in MODES
    }
    time.sleep(1.0)  # the players' own updates go out before the watchers connect
    go = time.time() + 0.5
    for pipe in pipes:
        pipe.send(go)
    connected, failed = 0.0, 0
    counts: dict[str, Any] = {}
    snapshot = ""
    for pipe in pipes:
        if not pipe.poll(args.deadline + 120):
            for daphne in site.daphnes:
                print(daphne.output(), file=sys.stderr)
            raise SystemExit("watchers did not connect in time")
        _, at, lost, first, theirs = pipe.recv()
        connected, failed = max(connected, at - go), failed + lost
        merge(counts, theirs)
        snapshot = first[0] if first else snapshot
    print(f"    {watchers:,} watchers connected in {connected:.1f} s", file=sys.stderr)
    print_notes("connecting", counts, logs.take())
    result: dict[str, Any] = {
        "watchers": watchers,
        "failed": failed,
        "connected": connected,
        "snapshot_bytes": len(snapshot.encode()),
        "connecting": counts,
        "modes": {},
    }
    for mode in MODES:
        found = measure(site, pipes, workers, players[mode], args, snapshot)
        snapshot = found.pop("held")
        print_notes(mode, found, logs.take())
        result["modes"][mode] = found
    for pipe, proc in zip(pipes, workers, strict=True):
        pipe.send(("stop",))
        proc.join(timeout=60)
    return result


def measure(
    site: Deployment,
    pipes: list[Any],
    workers: list[Any],
    players: list[Player],
    args: argparse.Namespace,
    snapshot: str,
) -> dict[str, Any]:
    """Each player moves once, a second apart; when each watcher received each move's row (in
    an update, or in a snapshot that shows it), how many never did, what closed their sockets,
    and the first socket's frames."""
    answered: dict[str, float] = {}
    for i, player in enumerate(players):
        time.sleep(1.0)  # a quiet board: nothing pending
        target = player.game["ply"] + 1
        for pipe in pipes:
            pipe.send(("wait", player.name, target))
        time.sleep(0.05)
        t0 = time.time()
        player.move(site.daphnes[i % 2].url)
        answered[player.name] = time.time()
        print(f"    move {i + 1}: answered in {answered[player.name] - t0:.2f} s", file=sys.stderr)
    time.sleep(min(args.deadline, 5.0))
    latencies: list[float] = []
    texts: list[str] = []
    missing = 0
    counts: dict[str, Any] = {}
    for pipe, proc in zip(pipes, workers, strict=True):
        pipe.send(("report",))
        if not pipe.poll(120):
            for daphne in site.daphnes:
                print(daphne.output(), file=sys.stderr)
            raise SystemExit(f"a watcher process did not report (alive: {proc.is_alive()})")
        _, arrivals, theirs_missing, received, theirs = pipe.recv()
        texts = texts or received
        missing += theirs_missing
        merge(counts, theirs)
        for name, at in answered.items():
            latencies += [t - at for t in arrivals.get(name, [])]
    latencies += [float("inf")] * missing  # a watcher that never received it: infinitely late
    latencies.sort()

    def pct(p: float) -> float:
        if not latencies:
            return float("inf")
        return latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))]

    sizes, baseline, held = frame_sizes(snapshot, texts)
    return {
        "moves": len(players),
        "p50": pct(50),
        "p99": pct(99),
        "max": latencies[-1] if latencies else float("inf"),
        "missing": missing,
        "deliveries": len(latencies),
        **counts,
        "update_bytes": statistics.median(sizes) if sizes else 0,
        "update_max": max(sizes, default=0),
        "baseline_bytes": statistics.median(baseline) if baseline else 0,
        "baseline_max": max(baseline, default=0),
        "held": held,
    }


def run_live(args: argparse.Namespace, redis_url: str) -> list[dict[str, Any]]:
    today = dt.datetime.now(dt.UTC).date()
    results = []
    name = f"canfield_scale_live_{secrets.token_hex(3)}"
    with (
        tempfile.TemporaryDirectory(prefix="canfield-live-") as tmp,
        postgres_database(args.postgres_url, name) as url,
    ):
        env = django_env(url, redis_url, DAILY_DEAL_SECRET=secret_for(today), NUM_PROXIES="1")
        env["DB_SYNCHRONOUS_COMMIT"] = "0"
        migrate(env)
        print(f"  live: seeding {args.filler} attempts ...", file=sys.stderr)
        subprocess.run(
            [PYTHON, __file__, "_seed", "--attempts", str(args.filler)],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=600,
        )
        try:
            with Deployment(env, Path(tmp), proxy=False) as site:
                run = secrets.token_hex(3)
                for watchers in args.watchers:
                    print(f"  live: {watchers:,} watchers (load {load()}) ...", file=sys.stderr)
                    results.append({**fan_out(site, watchers, args, run), "load": load()})
        finally:
            if args.logs:  # the servers' logs, kept
                Path(args.logs).mkdir(parents=True, exist_ok=True)
                for log in Path(tmp).glob("web*.log"):
                    shutil.copy(log, Path(args.logs) / log.name)
    return results


def live_table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| watchers | board | moves | update p50 ms | p99 ms | max ms | never arrived "
        "| update bytes (median / max) | the same by position (median / max) "
        "| all connected, snapshot received, s | snapshot bytes | load before |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        for mode, m in r["modes"].items():
            lines.append(
                f"| {r['watchers']:,} | {mode} | {m['moves']} | {m['p50'] * 1000:.0f} "
                f"| {m['p99'] * 1000:.0f} | {m['max'] * 1000:.0f} "
                f"| {m['missing']:,} of {m['deliveries']:,} "
                f"| {m['update_bytes']:,.0f} / {m['update_max']:,} "
                f"| {m['baseline_bytes']:,.0f} / {m['baseline_max']:,} "
                f"| {r['connected']:.1f} | {r['snapshot_bytes']:,} | {r['load']} |"
            )
    base, top = rows[0], rows[-1]
    worst = max(top["modes"].values(), key=lambda m: m["p99"])
    shift = top["modes"]["shift"]
    biggest = max(m["update_max"] for r in rows for m in r["modes"].values())
    shift_ratio = shift["baseline_bytes"] / max(shift["update_bytes"], 1)
    missing = sum(m["missing"] for r in rows for m in r["modes"].values())
    deliveries = sum(m["deliveries"] for r in rows for m in r["modes"].values())
    lines.append("")
    if len(rows) > 1:
        ratio = worst["p99"] / max(m["p99"] for m in base["modes"].values())
        lines.append(
            f"- {top['watchers']:,} watchers ÷ {base['watchers']:,} (same run): update p99 "
            f"× {ratio:.1f}, connecting × {top['connected'] / max(base['connected'], 0.001):.0f}"
        )
    for r in rows:
        parts = {"connecting": r["connecting"], **r["modes"]}
        every: dict[str, Any] = {}
        for counts in parts.values():
            merge(every, {k: counts.get(k, 0) for k in ("reconnects", "gaps", "resyncs")})
        lines.append(
            f"- {r['watchers']:,} watchers, sockets the server closed: "
            + "; ".join(f"{name} {closes_text(counts)}" for name, counts in parts.items())
            + f" — reconnects {every['reconnects']:,}, updates missed in a gap of seq "
            f"{every['gaps']:,}, resyncs asked {every['resyncs']:,}"
        )
    lines += [
        f"- shifting board, {top['watchers']:,} watchers: an update by player is "
        f"{shift['update_bytes']:,.0f} bytes (median), the same change by position "
        f"{shift['baseline_bytes']:,.0f}: ÷ {shift_ratio:.0f}",
        f"- aim every update ≤ {AIM_UPDATE_BYTES:,} bytes, ranks shifting or not: largest "
        f"{biggest:,} — {'met' if biggest <= AIM_UPDATE_BYTES else 'not met'}",
        f"- aim no update lost for a watcher (it arrives in an update, or in a snapshot at its "
        f"seq or later): {missing:,} of {deliveries:,} never arrived — "
        f"{'met' if missing == 0 else 'not met'}",
        f"- aim {top['watchers']:,} watchers receive an update ≤ {AIM_LATENCY:g} s (p99, both "
        f"boards): {worst['p99']:.2f} s — {'met' if worst['p99'] <= AIM_LATENCY else 'not met'}",
        f"- aim {top['watchers']:,} sockets connected with their snapshot ≤ {AIM_CONNECT:g} s: "
        f"{top['connected']:.1f} s — {'met' if top['connected'] <= AIM_CONNECT else 'not met'}"
        + (f" ({top['failed']} failed to connect)" if top["failed"] else ""),
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("worker", nargs="?", choices=["_board", "_seed"], help=argparse.SUPPRESS)
    parser.add_argument("--watchers", type=int, nargs="+", default=[100, 10_000])
    parser.add_argument("--watcher-processes", type=int, default=4)
    parser.add_argument("--gate", type=int, default=100, help="connections opening at once")
    parser.add_argument("--moves", type=int, default=10, help="measured moves per fan-out")
    parser.add_argument("--filler", type=int, default=300, help="attempts on the live board")
    parser.add_argument("--attempts", type=int, default=1_000_000, help="attempts for (b)")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--deadline", type=float, default=10.0, help="seconds per fan-out")
    parser.add_argument("--postgres-url", default=POSTGRES_URL)
    parser.add_argument("--redis-url", default="", help="default: a private redis-server")
    parser.add_argument("--skip-live", action="store_true")
    parser.add_argument("--skip-board", action="store_true")
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--logs", default="", help="a folder to keep the servers' logs in")
    args = parser.parse_args()
    if args.worker == "_board":
        board_worker(args)
        return 0
    if args.worker == "_seed":
        seed_worker(args)
        return 0

    raise_open_files()
    host = machine()
    live: list[dict[str, Any]] = []
    board: dict[str, Any] | None = None
    with (
        tempfile.TemporaryDirectory(prefix="canfield-redis-") as tmp,
        RedisServer(Path(tmp)) as redis,
    ):
        redis_url = args.redis_url or redis.url
        if not args.skip_live:
            live = run_live(args, redis_url)
        if not args.skip_board:
            board = run_board(args, redis_url)
    parts = []
    if live:
        parts.append(live_table(live))
        print(parts[-1])
    if board is not None:
        parts.append(board_table(board))
        print(parts[-1])
        print(
            f"({board['attempts']:,} attempts seeded in {board['seeded_seconds']} s; Redis sets "
            f"rebuilt in {board['rebuild_seconds']} s, {board['redis_bytes'] / 2**20:.0f} MiB; "
            f"Redis and SQL page 1 agree: {board['agree']})"
        )
    print(f"(load average after the run: {load()})")
    if args.write_docs:
        command = "python benchmarks/board.py " + " ".join(sys.argv[1:])
        write_section("Leaderboard", docs_section(command.strip(), host, live, board, parts))
    return 0


def docs_section(
    command: str,
    host: str,
    live: list[dict[str, Any]],
    board: dict[str, Any] | None,
    parts: list[str],
) -> str:
    text = f"## Leaderboard\n\nCommand: `{command}` ({host}; after the run {load()}).\n\n"
    if live:
        text += (
            "**Live fan-out.** Two Daphne processes on PostgreSQL and Redis, a day with a full "
            "board; the watchers connect half to each process, from client processes of their "
            "own (asyncio, `websockets`), each from a client network of its own (as the proxy "
            "reports it: the servers cap a network's sockets), and each as the page does: it "
            "asks for a snapshot when an update's `seq` skips one, and reconnects with jitter "
            "whenever it is closed. Each move is one player's action over HTTP, a second "
            "apart, to the two processes in turn: on the *steady* board an action of a player "
            "already on it, on the *shift* board a newcomer's first action, which enters above "
            "most of the board and moves every row below it down one rank. The latency runs "
            "from the action's HTTP answer until a watcher has received the update that shows "
            "it, or a snapshot that does, for every watcher (p99 over all watchers and moves; "
            "one that never did is counted under *never arrived*); a change on a quiet board "
            "goes out at once, a change within a window (`LEADERBOARD_BROADCAST_DELAY`, 0.25 s) "
            "of the day's latest broadcast waits for its end. Update bytes are those one socket "
            'received; "by position" is the size of the same changes as the live board sent '
            "them before it sent changes by player (every row whose place or values changed), "
            "computed from that socket's boards in the same run. The first rows are the same "
            "run's baseline.\n\n"
            f"{parts[0]}\n\n"
        )
    if board is not None:
        text += (
            f"**Board queries** on a day of {board['attempts']:,} attempts (and a tenth of that "
            f"the day before) in PostgreSQL, bulk-created in {board['seeded_seconds']} s, "
            f"vacuumed and analysed; the day's Redis sorted sets rebuilt from SQL in "
            f"{board['rebuild_seconds']} s ({board['redis_bytes'] / 2**20:.0f} MiB in Redis). "
            f"The day before, {board['past_attempts']:,} attempts, was then settled "
            f"(`standings.settle_day`: its final ranks written in one INSERT … SELECT) in "
            f"{board['settle_seconds']} s. "
            "Median and p90 of the service calls (`leaderboard.services.board`, "
            "`standings.board(...).rank_of`, `live.frames.snapshot_frame`), after a warm-up; the "
            "SQL column is the same calls answered by SQL alone (`standings.SqlBoard`: Redis "
            "turned off, or the settled day's final ranks not read), the same run's "
            "baseline.\n\n"
            f"{parts[-1]}\n"
        )
    return text


if __name__ == "__main__":
    sys.exit(main())
