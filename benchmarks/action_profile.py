"""Where the time of one REST action goes, in-process: POST /api/games/<id>/actions/ with an API
token, through the whole middleware stack and DRF, on a scratch database.

A migrated scratch database (a temporary SQLite file; with --postgres-url a PostgreSQL database
created and dropped, ``DB_SYNCHRONOUS_COMMIT=0`` as docker-compose deploys it), the in-memory
cache or --redis-url's Redis, the actions limit on at its deployed rate (its counting is part of
an action's cost; the deployed benchmarks turn it off). --players players take turns, one legal
action each, in practice games (a hurried player: scoring moves first; a new game, made by the
service, when one is over). Measured after a warm-up:

- µs per action and per GET /api/health/ (the baseline: no database, no authentication),
  through Django's test client (the synchronous handler, one thread) and through Django's ASGI
  application called as Daphne calls it (the middleware and the view as deployed, with their
  hops between the event loop and the request's thread); the four measures take turns for
  --rounds rounds, and each is the median of its rounds' means (and the median request);
- the hops to a thread per request under ASGI (``run_in_executor`` calls, counted by cProfile);
- SQL queries per action (``CaptureQueriesContext``), and one action's statements;
- a cProfile of --profile-actions actions through the test client: the main costs, their calls
  per action and their shares of the request, scaled to the µs measured without the profiler
  (the profiler slows Python more than waits: the shares are approximate), and the functions of
  most own time.

    .venv/bin/python benchmarks/action_profile.py [--actions 2000] [--rounds 4] [--players 32]
        [--profile-actions 500] [--top 25]
        [--postgres-url postgres://postgres@127.0.0.1:5432/postgres] [--redis-url URL]

Prints the figures; writes nothing. The machine is shared: compare figures of the same run, or
of runs close in time under the same load (printed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import os
import pstats
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from common import django_env, machine, player_action, postgres_database

#: The main costs of an action, each a function of the path and what it stands for (cumulative
#: time: a stage includes the stages it calls).
STAGES: list[tuple[str, str, str]] = [
    ("django/core/handlers/base.py", "get_response", "the whole request"),
    ("rest_framework/views.py", "dispatch", "DRF view: dispatch (everything below)"),
    ("rest_framework/views.py", "initial", "DRF: authentication, permissions, throttle"),
    ("knox/auth.py", "authenticate", "  the token (its queries: knox's)"),
    ("core/throttling.py", "allow_request", "  the actions limit (counted)"),
    ("rest_framework/request.py", "_parse", "reading the JSON body"),
    ("rest_framework/serializers.py", "is_valid", "the body's serializer"),
    ("games/services.py", "play", "`services.play`: lock, engine, log, write, commit"),
    ("games/services.py", "_locked", "  the game's row, locked"),
    ("games/services.py", "engine_of", "  the engine restored from its state (every call)"),
    ("games/services.py", "_apply", "  apply, log, write the row"),
    ("games/services.py", "_sync", "    the engine's views and state for the row"),
    ("games/payloads.py", "played_game_dict", "the answer's payload"),
    ("games/services.py", "kept_verdicts", "  the position's kept verdict (practice)"),
    ("rest_framework/views.py", "finalize_response", "DRF: the response (negotiation)"),
    ("rest_framework/response.py", "rendered_content", "JSON rendering"),
]


def configure(database_url: str, redis_url: str) -> None:
    """This process's environment for Django, as the deployed benchmarks give their servers."""
    env = django_env(
        database_url,
        redis_url or None,
        DB_SYNCHRONOUS_COMMIT="0",
        ALLOWED_HOSTS="testserver",  # (Django's test client's host)
    )
    del env["THROTTLE_ACTIONS"]  # the actions limit as deployed: counted on every action
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


class Player:
    """A player with a token, playing practice games one legal action at a time."""

    def __init__(self) -> None:
        from django.contrib.auth.models import User

        from core.accounts import auth

        self.user = User.objects.create_user(f"prof{secrets.token_hex(3)}", password=None)
        self.token = auth.issue(self.user).key
        self.headers = {"Authorization": f"Token {self.token}"}
        self.game: dict[str, Any] = {}
        self.new_game()

    def new_game(self) -> None:
        """A new practice game, made by the service (not measured, and not counted against the
        limit of new games)."""
        from games import payloads, services
        from games.clock import utc_today

        game = services.new_game(self.user)
        self.game = dict(payloads.game_dict(game, utc_today()))

    def action(self) -> str | None:
        """The next action of the game, or ``None`` when it is over for this player."""
        return player_action(self.game)

    def next_request(self) -> tuple[str, dict[str, Any]]:
        """The next action's path and body, in a new game once this one is over."""
        action = self.action()
        while action is None:
            self.new_game()
            action = self.action()
        return f"/api/games/{self.game['id']}/actions/", {"ply": self.game["ply"], "action": action}

    def answered(self, status: int, body: Any) -> None:
        if status != 200:
            raise SystemExit(f"an action was answered {status} (429: more --players): {body}")
        self.game = body


class Players:
    """``count`` players taking turns, one action each (so that each stays well within the
    actions limit, as the players of the deployed benchmark do)."""

    def __init__(self, count: int) -> None:
        self.players = [Player() for _ in range(count)]
        self.turn = 0

    def next(self) -> Player:
        self.turn += 1
        return self.players[self.turn % len(self.players)]


def play_sync(client: Any, players: Players, count: int) -> list[float]:
    """``count`` actions through the synchronous handler; each one's seconds."""
    times = []
    for _ in range(count):
        player = players.next()
        path, body = player.next_request()
        t0 = time.perf_counter()
        response = client.post(path, body, content_type="application/json", headers=player.headers)
        times.append(time.perf_counter() - t0)
        player.answered(response.status_code, response.json())
    return times


def health_sync(client: Any, count: int) -> list[float]:
    times = []
    for _ in range(count):
        t0 = time.perf_counter()
        response = client.get("/api/health/")
        times.append(time.perf_counter() - t0)
        assert response.status_code == 200, response.status_code
    return times


class Asgi:
    """Requests through Django's ASGI application (``get_asgi_application()``), called as Daphne
    calls it: a scope, the body in one message, the answer collected from its messages — the
    middleware and the view as deployed, with their hops between the event loop and the threads
    (a thread of its own for each request's synchronous work: ``ThreadSensitiveContext``)."""

    def __init__(self) -> None:
        from django.core.asgi import get_asgi_application

        self.app = get_asgi_application()

    async def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        data = b"" if body is None else json.dumps(body).encode()
        pairs = [(b"host", b"testserver")]
        if body is not None:
            pairs.append((b"content-type", b"application/json"))
            pairs.append((b"content-length", str(len(data)).encode()))
        pairs += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "headers": pairs,
            "client": ("127.0.0.1", 40000),
            "server": ("testserver", 80),
        }
        sent = False
        done = asyncio.Event()

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": data, "more_body": False}
            await done.wait()  # (the client never leaves before its answer)
            return {"type": "http.disconnect"}

        status = 0
        chunks: list[bytes] = []

        async def send(message: Mapping[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)
        done.set()
        payload = b"".join(chunks)
        return status, json.loads(payload) if payload else None

    def play(self, players: Players, count: int) -> list[float]:
        """``count`` actions, one at a time; each one's seconds."""
        from asgiref.sync import sync_to_async

        async def run() -> list[float]:
            times = []
            for _ in range(count):
                player = players.next()
                if player.action() is None:  # (a new game, made off the loop)
                    await sync_to_async(player.next_request)()
                path, body = player.next_request()
                t0 = time.perf_counter()
                status, answer = await self.request("POST", path, body, player.headers)
                times.append(time.perf_counter() - t0)
                player.answered(status, answer)
            return times

        return asyncio.run(run())

    def health(self, count: int) -> list[float]:
        """``count`` GET /api/health/; each one's seconds."""

        async def run() -> list[float]:
            times = []
            for _ in range(count):
                t0 = time.perf_counter()
                status, _ = await self.request("GET", "/api/health/")
                times.append(time.perf_counter() - t0)
                assert status == 200, status
            return times

        return asyncio.run(run())

    def hops(self, run: Callable[[], object], count: int) -> float:
        """Hops from the event loop to a thread per request of ``run`` (``count`` requests):
        each ``sync_to_async`` is a ``run_in_executor`` call on the loop, counted by cProfile
        (and a wait for the thread's answer)."""
        profiler = cProfile.Profile()
        profiler.enable()
        run()
        profiler.disable()
        table: dict[Any, Any] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
        calls = sum(
            nc
            for (filename, _line, name), (_cc, nc, _tt, _ct, _callers) in table.items()
            if name == "run_in_executor" and filename.endswith("asyncio/base_events.py")
        )
        return float(calls) / count


def queries(client: Any, players: Players, count: int) -> tuple[float, list[str]]:
    """SQL statements per action over ``count`` actions, and the last action's statements."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    total = 0
    last: list[str] = []
    for _ in range(count):
        players.players[(players.turn + 1) % len(players.players)].next_request()  # (a new game)
        with CaptureQueriesContext(connection) as captured:
            play_sync(client, players, 1)
        total += len(captured.captured_queries)
        last = [query["sql"] for query in captured.captured_queries]
    return total / count, last


def profile(client: Any, players: Players, count: int) -> pstats.Stats:
    profiler = cProfile.Profile()
    profiler.enable()
    play_sync(client, players, count)
    profiler.disable()
    return pstats.Stats(profiler)


def stage_times(
    stats: pstats.Stats, stages: list[tuple[str, str, str]]
) -> dict[tuple[str, str], tuple[float, int]]:
    """Of each stage (the file's path ends with, the function, a label), its cumulative time in
    the profile and its number of calls, by (path's end, function)."""
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    found: dict[tuple[str, str], tuple[float, int]] = {}
    for (filename, _line, name), (_cc, nc, _tt, ct, _callers) in table.items():
        for suffix, function, _label in stages:
            key = (suffix, function)
            # (of two functions of the same name in one file, the one that took longer)
            if name == function and filename.endswith(suffix) and ct > found.get(key, (0, 0))[0]:
                found[key] = (ct, nc)
    return found


def stage_table(stats: pstats.Stats, mean_us: float, count: int) -> list[str]:
    """The stages' cumulative time, as a share of the whole request's and in µs (that share of
    ``mean_us``, the request's mean without the profiler), and their calls per action."""
    found = stage_times(stats, STAGES)
    whole = found.get(STAGES[0][:2], (0.0, 0))[0]
    if not whole:
        return ["(no request profiled)"]
    lines = [
        "| stage | calls per action | share | µs per action |",
        "|---|---:|---:|---:|",
    ]
    for suffix, function, label in STAGES:
        if (suffix, function) not in found:
            continue
        ct, nc = found[(suffix, function)]
        share = ct / whole
        lines.append(
            f"| {label} (`{function}`) | {nc / count:.2g} | {share:.0%} | {share * mean_us:,.0f} |"
        )
    share = (whole - found.get(STAGES[1][:2], (0.0, 0))[0]) / whole
    lines.append(
        f"| outside the view: middleware, URL, handler (`get_response` − `dispatch`) | "
        f"| {share:.0%} | {share * mean_us:,.0f} |"
    )
    lines.append(f"(cProfile of {count} actions: {whole / count * 1e6:,.0f} µs each profiled)")
    return lines


@contextlib.contextmanager
def database(postgres_url: str) -> Iterator[str]:
    if postgres_url:
        name = f"canfield_prof_{secrets.token_hex(3)}"
        with postgres_database(postgres_url, name) as url:
            yield url
        return
    with tempfile.TemporaryDirectory(prefix="canfield-prof-") as tmp:
        yield f"sqlite:///{Path(tmp) / 'db.sqlite3'}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=2000, help="timed, per measure")
    parser.add_argument("--rounds", type=int, default=4, help="the measures take turns")
    parser.add_argument(
        "--players", type=int, default=64, help="taking turns: none reaches the actions limit"
    )
    parser.add_argument("--profile-actions", type=int, default=500)
    parser.add_argument("--query-actions", type=int, default=100)
    parser.add_argument("--postgres-url", default="", help="default: a temporary SQLite file")
    parser.add_argument("--redis-url", default="", help="default: the in-memory cache")
    parser.add_argument("--top", type=int, default=25, help="functions listed by own time")
    args = parser.parse_args()

    print(machine())
    with database(args.postgres_url) as url:
        configure(url, args.redis_url)
        from django.db import connection
        from django.test import Client

        print(f"database: {connection.vendor}; cache: {'Redis' if args.redis_url else 'in-memory'}")
        client = Client()
        players = Players(args.players)
        warm = max(50, args.actions // 10)
        play_sync(client, players, warm)
        health_sync(client, warm)
        asgi = Asgi()
        asgi.play(players, warm)
        asgi.health(warm)
        measures: dict[str, Callable[[int], list[float]]] = {
            "GET /api/health/, test client": lambda n: health_sync(client, n),
            "POST actions, test client": lambda n: play_sync(client, players, n),
            "GET /api/health/, ASGI application": asgi.health,
            "POST actions, ASGI application": lambda n: asgi.play(players, n),
        }
        # In turns, so that a change of the machine's load meets every measure alike.
        rounds: dict[str, list[list[float]]] = {name: [] for name in measures}
        for _ in range(args.rounds):
            for name, measure in measures.items():
                rounds[name].append(measure(args.actions // args.rounds))
        print(f"\n{'µs per request':<44} {'mean':>14} {'median':>8}")
        mean: dict[str, float] = {}
        for name, times in rounds.items():
            mean[name] = statistics.median(statistics.fmean(r) for r in times) * 1e6
            every = [t for r in times for t in r]
            print(f"{name:<44} {mean[name]:14,.0f} {statistics.median(every) * 1e6:8,.0f}")
        names = list(measures)
        print(
            f"action ÷ health: test client {mean[names[1]] / mean[names[0]]:.1f}, "
            f"ASGI {mean[names[3]] / mean[names[2]]:.1f}"
        )
        hops = (
            asgi.hops(lambda: asgi.health(100), 100),
            asgi.hops(lambda: asgi.play(players, 100), 100),
        )
        print(f"hops to a thread per request (ASGI): health {hops[0]:.1f}, action {hops[1]:.1f}")
        per_action, statements = queries(client, players, args.query_actions)
        print(f"\nSQL queries per action: {per_action:.2f} (over {args.query_actions} actions)")
        for sql in statements:
            print(f"  {sql[:150]}")
        stats = profile(client, players, args.profile_actions)
        print()
        print("\n".join(stage_table(stats, mean[names[1]], args.profile_actions)))
        if args.top:
            print(f"\nThe {args.top} functions of most own time (cProfile):")
            stats.sort_stats("tottime").print_stats(args.top)
        if args.postgres_url:
            connection.close()  # (before the database is dropped)
    return 0


if __name__ == "__main__":
    sys.exit(main())
