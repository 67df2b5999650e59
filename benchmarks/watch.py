"""A game's spectators, live: what they cost the player's action, and how fast a crowd of them is
told each move.

The deployed shape: two Daphne processes on one PostgreSQL database (scratch, created and
dropped) and one Redis (a private redis-server). Spectators connect to /ws/games/<id>/watch/,
half to each process, from client processes of their own (asyncio, `websockets`), each from a
client network of its own (X-Forwarded-For, through the one proxy the servers trust), and behave
as the replay page does: they answer the site's pings and ask for a snapshot when a frame's ply
skips one. The player plays practice games over REST, on the first process, one action at a time.

(a) the action's cost: two games of one player, one watched by --watched spectators (200), the
    other by nobody (the same run's baseline: the unwatched path still asks whether anyone
    watches); --actions actions on each, alternately, so that the machine's noise falls on both
    alike. The action's time as the player sees it (the HTTP answer), p50 and p90 of each, and
    the frames each spectator received.
(b) the crowd: --crowd spectators (1,000) of one game, WATCHERS_PER_GAME raised to that many;
    --moves moves half a second apart; for each move, the time from its HTTP request until each
    spectator had a frame at its ply (an update, or a snapshot at that ply or later): p50, p99,
    max, and how many never arrived (each counted infinitely late). Then one more spectator,
    past the cap: its refusal.
(c) the probe, in a process of the site's own: what the unwatched path's question costs (one
    EXISTS of the game's count) next to sending its frame to the game's group with nobody in it
    (what the question saves), per call.

    .venv/bin/python benchmarks/watch.py [--watched 200] [--actions 200] [--crowd 1000]
        [--moves 20] [--write-docs]

Aims (printed met or not): with 200 spectators the action's p50 <= 1.2 x the unwatched game's;
1,000 spectators over two processes: every frame delivered, p99 <= 1 s. Loopback only; every
wait has a deadline. The open-files limit is raised to the hard limit.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import resource
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import (
    Deployment,
    RedisServer,
    django_env,
    machine,
    migrate,
    player_action,
    post_json,
    postgres_database,
    write_section,
)

from tests.site.sockets import pong_for

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres"
PASSWORD = "bench-password-0123"
AIM_RATIO = 1.2
AIM_LATENCY = 1.0
#: Spectators' client processes, and the connections each opens at once.
CLIENT_PROCESSES = 2
GATE = 50


def raise_open_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def client_address(n: int) -> str:
    """Spectator ``n``'s address as the proxy reports it: a client network (/24) of its own."""
    return f"10.{(n >> 8) & 255}.{n & 255}.9"


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("inf")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


# --- the player --------------------------------------------------------------------------------


class Player:
    """A player of practice games over REST, on ``base``."""

    def __init__(self, base: str, name: str) -> None:
        self.base = base
        status, body = post_json(
            f"{base}/api/auth/signup/", {"username": name, "password": PASSWORD}
        )
        assert status == 201, body
        self.token = body["token"]

    def new_game(self) -> dict[str, Any]:
        status, game = post_json(f"{self.base}/api/games/", {"draw": 1}, self.token)
        assert status == 201, game
        return dict(game)

    def act(self, game: dict[str, Any]) -> tuple[dict[str, Any], float]:
        """One action of a hurried player (an undo when nothing else is left): the game after
        it, and the seconds its answer took."""
        action = player_action(game) or "U"
        started = time.perf_counter()
        status, after = post_json(
            f"{self.base}/api/games/{game['id']}/actions/",
            {"ply": game["ply"], "action": action},
            self.token,
        )
        took = time.perf_counter() - started
        assert status == 200, after
        return dict(after), took


# --- the spectators (client processes) ---------------------------------------------------------


def spectators_process(
    urls: list[str], origins: list[str], addresses: list[str], conn: Any
) -> None:
    raise_open_files()
    asyncio.run(_spectate(urls, origins, addresses, conn))


async def _spectate(urls: list[str], origins: list[str], addresses: list[str], conn: Any) -> None:
    """Open one socket per URL; report once all have their snapshot (or a refusal); then record,
    for each socket, when it first had each ply; report those on demand."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed
    from websockets.typing import Origin

    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(GATE)
    plies = [-1] * len(urls)
    arrivals: list[dict[int, float]] = [{} for _ in urls]
    ready: set[int] = set()
    counts: dict[str, Any] = {"resyncs": 0, "refused": {}, "closes": {}}
    sockets: set[Any] = set()

    def had(i: int, ply: int, now: float) -> None:
        for p in range(max(plies[i] + 1, 0), ply + 1):
            arrivals[i].setdefault(p, now)
        plies[i] = max(plies[i], ply)

    async def one(i: int) -> None:
        try:
            async with gate:
                ws = await connect(
                    urls[i],
                    origin=Origin(origins[i]),
                    additional_headers={"X-Forwarded-For": addresses[i]},
                    open_timeout=60,
                    max_size=2**22,
                    compression=None,
                    ping_interval=None,
                )
        except Exception as exc:
            counts["closes"]["no connection"] = counts["closes"].get("no connection", 0) + 1
            ready.add(i)
            print(f"    a spectator failed to connect: {exc!r}", file=sys.stderr)
            return
        sockets.add(ws)
        try:
            async for raw in ws:
                text = str(raw)
                if (pong := pong_for(text)) is not None:
                    await ws.send(pong)
                    continue
                now = time.time()
                frame = json.loads(text)
                kind = frame.get("type")
                if kind == "snapshot":
                    if plies[i] < 0:  # (the first: where it starts)
                        plies[i] = frame["ply"] - 1
                    had(i, frame["ply"], now)
                    ready.add(i)
                elif kind == "update":
                    if frame["ply"] > plies[i] + 1:  # a frame missed: a snapshot, as the page
                        counts["resyncs"] += 1
                        await ws.send('{"type":"resync"}')
                    else:
                        had(i, frame["ply"], now)
                elif kind == "refused":
                    code = frame["code"]
                    counts["refused"][code] = counts["refused"].get(code, 0) + 1
                    ready.add(i)
        except ConnectionClosed:
            pass
        sockets.discard(ws)
        code = str(ws.close_code or 1006)
        counts["closes"][code] = counts["closes"].get(code, 0) + 1
        ready.add(i)

    tasks = [loop.create_task(one(i)) for i in range(len(urls))]
    started = time.time()
    while len(ready) < len(urls):
        await asyncio.sleep(0.005)
    conn.send(("connected", time.time() - started, dict(counts)))
    while True:
        message = await loop.run_in_executor(None, conn.recv)
        if message[0] == "report":
            conn.send(("arrivals", [dict(a) for a in arrivals], dict(counts)))
        elif message[0] == "stop":
            break
    await asyncio.gather(*(ws.close() for ws in list(sockets)), return_exceptions=True)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


class Crowd:
    """``count`` spectators of game ``game_id``, half on each process of ``site``, numbered
    from ``first`` (their addresses)."""

    def __init__(
        self, site: Deployment, game_id: int, count: int, first: int = 0, elsewhere: bool = False
    ) -> None:
        ports = [d.port for d in site.daphnes]
        if elsewhere:  # (all on the second process: none where the player plays)
            ports = [ports[1], ports[1]]
        urls = [f"ws://127.0.0.1:{ports[i % 2]}/ws/games/{game_id}/watch/" for i in range(count)]
        origins = [f"http://127.0.0.1:{ports[i % 2]}" for i in range(count)]
        addresses = [client_address(first + i) for i in range(count)]
        procs = max(1, min(CLIENT_PROCESSES, count // 50))
        ctx = multiprocessing.get_context("spawn")
        self.pipes, self.procs = [], []
        for k in range(procs):
            mine, theirs = ctx.Pipe()
            share = slice(k, None, procs)
            proc = ctx.Process(
                target=spectators_process,
                args=(urls[share], origins[share], addresses[share], theirs),
                daemon=True,  # (ended with the run, however it ends)
            )
            proc.start()
            self.pipes.append(mine)
            self.procs.append(proc)
        self.connected = 0.0
        self.counts: dict[str, Any] = {}
        for pipe in self.pipes:
            if not pipe.poll(180):
                raise SystemExit("the spectators did not connect in time")
            _, took, counts = pipe.recv()
            self.connected = max(self.connected, took)
            self.counts = merge(self.counts, counts)

    def arrivals(self) -> tuple[list[dict[int, float]], dict[str, Any]]:
        every: list[dict[int, float]] = []
        counts: dict[str, Any] = {}
        for pipe in self.pipes:
            pipe.send(("report",))
            if not pipe.poll(120):
                raise SystemExit("a spectators' process did not report")
            _, arrivals, theirs = pipe.recv()
            every += arrivals
            counts = merge(counts, theirs)
        return every, counts

    def stop(self) -> None:
        for pipe, proc in zip(self.pipes, self.procs, strict=True):
            with contextlib.suppress(OSError):
                pipe.send(("stop",))
            proc.join(timeout=60)


def merge(into: dict[str, Any], counts: dict[str, Any]) -> dict[str, Any]:
    out = dict(into)
    for key, value in counts.items():
        if isinstance(value, dict):
            out[key] = merge(out.get(key, {}), value)
        else:
            out[key] = out.get(key, 0) + value
    return out


# --- (a) the action's cost, (b) the crowd -----------------------------------------------------


def action_cost(site: Deployment, args: argparse.Namespace, elsewhere: bool) -> dict[str, Any]:
    player = Player(site.daphnes[0].url, f"w{secrets.token_hex(4)}")
    alone, watched = player.new_game(), player.new_game()
    crowd = Crowd(site, watched["id"], args.watched, elsewhere=elsewhere)
    print(f"    {args.watched} spectators connected in {crowd.connected:.1f} s", file=sys.stderr)
    start_ply = watched["ply"]
    times: dict[str, list[float]] = {"alone": [], "watched": []}
    try:
        for _ in range(args.actions):
            alone, took = player.act(alone)
            times["alone"].append(took)
            watched, took = player.act(watched)
            times["watched"].append(took)
        time.sleep(2.0)  # (the last frames on their way)
        arrivals, counts = crowd.arrivals()
    finally:
        crowd.stop()
    missing = sum(
        1
        for seen in arrivals
        for ply in range(start_ply + 1, watched["ply"] + 1)
        if ply not in seen
    )
    return {
        "watched": args.watched,
        "where": "all on the other process" if elsewhere else "half on each process",
        "actions": args.actions,
        "alone_p50": pct(times["alone"], 50),
        "alone_p90": pct(times["alone"], 90),
        "watched_p50": pct(times["watched"], 50),
        "watched_p90": pct(times["watched"], 90),
        "frames": len(arrivals) * (watched["ply"] - start_ply),
        "missing": missing,
        "counts": merge(crowd.counts, counts),
        "load": load(),
    }


def crowd_latency(site: Deployment, args: argparse.Namespace) -> dict[str, Any]:
    player = Player(site.daphnes[0].url, f"c{secrets.token_hex(4)}")
    game = player.new_game()
    crowd = Crowd(site, game["id"], args.crowd, first=10_000)
    print(f"    {args.crowd:,} spectators connected in {crowd.connected:.1f} s", file=sys.stderr)
    sent: dict[int, float] = {}
    try:
        for _ in range(args.moves):
            time.sleep(0.5)
            at = time.time()
            game, _took = player.act(game)
            sent[game["ply"]] = at
        time.sleep(3.0)
        arrivals, counts = crowd.arrivals()
    except BaseException:
        crowd.stop()
        raise
    latencies: list[float] = []
    missing = 0
    for seen in arrivals:
        for ply, at in sent.items():
            if ply in seen:
                latencies.append(seen[ply] - at)
            else:
                missing += 1
                latencies.append(float("inf"))
    past = Crowd(site, game["id"], 1, first=20_000)  # one more, past the cap
    refusal = past.counts.get("refused", {})
    past.stop()
    crowd.stop()
    return {
        "crowd": args.crowd,
        "moves": args.moves,
        "connected": crowd.connected,
        "p50": pct(latencies, 50),
        "p99": pct(latencies, 99),
        "max": max(latencies, default=float("inf")),
        "deliveries": len(latencies),
        "missing": missing,
        "counts": merge(crowd.counts, counts),
        "past_the_cap": refusal,
        "load": load(),
    }


# --- (c) the probe, in a process of the site's own -----------------------------------------------


def probe(repeat: int) -> None:
    """Print, as JSON, the µs per call of the unwatched path's question and of a frame sent to a
    group with nobody in it (DATABASE_URL and REDIS_URL are the site's)."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canfield_site.settings")
    django.setup()
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from games import watch_counts

    layer = get_channel_layer()
    assert layer is not None
    message = {"type": "watch.frame", "game": 1, "version": [1, 0], "text": "x" * 3000}

    async def sends() -> float:
        started = time.perf_counter()
        for _ in range(repeat):
            await layer.group_send("watch.987654321", message)
        return time.perf_counter() - started

    watch_counts.watched(987654321)  # (connected)
    started = time.perf_counter()
    for _ in range(repeat):
        watch_counts.watched(987654321)
    asked = time.perf_counter() - started
    sent = async_to_sync(sends)()
    print(json.dumps({"exists_us": asked / repeat * 1e6, "empty_send_us": sent / repeat * 1e6}))


# --- the report ---------------------------------------------------------------------------------


def report(costs: list[dict[str, Any]], crowd: dict[str, Any], probed: dict[str, float]) -> str:
    cost = costs[0]
    ratio = cost["watched_p50"] / cost["alone_p50"]
    lines = [
        "| spectators | an action of | actions | p50 ms | p90 ms | frames | never arrived "
        "| load after |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for c in costs:
        lines += [
            f"| none (the same run's baseline) | the game unwatched | {c['actions']} "
            f"| {c['alone_p50'] * 1000:.1f} | {c['alone_p90'] * 1000:.1f} | – | – | {c['load']} |",
            f"| {c['watched']}, {c['where']} | the game watched | {c['actions']} "
            f"| {c['watched_p50'] * 1000:.1f} | {c['watched_p90'] * 1000:.1f} "
            f"| {c['frames']:,} | {c['missing']:,} | {c['load']} |",
        ]
    lines += [
        "",
        "| spectators | moves | connected, s | frame p50 ms | p99 ms | max ms | never arrived "
        "| resyncs | load after |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---|",
        f"| {crowd['crowd']:,} | {crowd['moves']} | {crowd['connected']:.1f} "
        f"| {crowd['p50'] * 1000:.0f} | {crowd['p99'] * 1000:.0f} | {crowd['max'] * 1000:.0f} "
        f"| {crowd['missing']:,} of {crowd['deliveries']:,} "
        f"| {crowd['counts'].get('resyncs', 0):,} | {crowd['load']} |",
        "",
        f"- the unwatched path's question (EXISTS of the game's count): "
        f"{probed['exists_us']:.0f} µs a call; a frame sent to the game's group with nobody in "
        f"it instead: {probed['empty_send_us']:.0f} µs (and the frame built first)",
        f"- past the cap ({crowd['crowd']:,} spectators), the next is refused: "
        f"{crowd['past_the_cap'] or 'not refused'}",
        f"- aim with {cost['watched']} spectators ({cost['where']}) the action's p50 ≤ "
        f"{AIM_RATIO:g} × unwatched: × {ratio:.2f} — {'met' if ratio <= AIM_RATIO else 'not met'}"
        f" (all on the other process: × {costs[1]['watched_p50'] / costs[1]['alone_p50']:.2f})",
        f"- aim {crowd['crowd']:,} spectators over two processes, every frame delivered: "
        f"{crowd['missing']:,} never arrived — {'met' if crowd['missing'] == 0 else 'not met'}",
        f"- aim {crowd['crowd']:,} spectators, frame p99 ≤ {AIM_LATENCY:g} s: "
        f"{crowd['p99']:.2f} s — {'met' if crowd['p99'] <= AIM_LATENCY else 'not met'}",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("worker", nargs="?", choices=["_probe"], help=argparse.SUPPRESS)
    parser.add_argument("--watched", type=int, default=200)
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--crowd", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=2000)
    parser.add_argument("--postgres-url", default=POSTGRES_URL)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    if args.worker == "_probe":
        probe(args.repeat)
        return 0

    raise_open_files()
    host = machine()
    name = f"canfield_watch_{secrets.token_hex(3)}"
    with (
        tempfile.TemporaryDirectory(prefix="canfield-watch-") as tmp,
        RedisServer(Path(tmp)) as redis,
        postgres_database(args.postgres_url, name) as url,
    ):
        env = django_env(
            url, redis.url, NUM_PROXIES="1", WATCHERS_PER_GAME=str(max(args.crowd, args.watched))
        )
        migrate(env)
        probed = json.loads(
            subprocess.run(
                [PYTHON, __file__, "_probe", "--repeat", str(args.repeat)],
                cwd=ROOT,
                env=env,
                check=True,
                capture_output=True,
                text=True,
                timeout=300,
            ).stdout
        )
        with Deployment(env, Path(tmp), proxy=False) as site:
            costs = []
            for elsewhere in (False, True):
                print(f"  (a) {args.watched} spectators (load {load()}) ...", file=sys.stderr)
                costs.append(action_cost(site, args, elsewhere))
            print(f"  (b) {args.crowd:,} spectators (load {load()}) ...", file=sys.stderr)
            crowd = crowd_latency(site, args)
    text = report(costs, crowd, probed)
    print(text)
    print(f"(load average after the run: {load()})")
    if args.write_docs:
        command = "python benchmarks/watch.py " + " ".join(sys.argv[1:])
        section = f"## Watching a game\n\n`{command.strip()}` — {host}.\n\n{text}\n"
        write_section("Watching a game", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
