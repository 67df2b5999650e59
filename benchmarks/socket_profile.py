"""Where the time of one action over the game's socket goes, on the server's side: what the
consumer runs in its hop to the database thread for an ``action`` message
(``games.api.consumers._play``: the actions limit counted, the body read, ``services.play``, the
answer's payload and its JSON), called directly, one message at a time, for players' daily
attempts — the actions of ``benchmarks/throughput.py``.

A scratch PostgreSQL database (created and dropped; ``DB_SYNCHRONOUS_COMMIT=0`` as docker-compose
deploys it) and Redis (--redis-url: the live ranking's sets, the cache, the actions limit counted
at its deployed rate), today dealt by the worker tier's command. The live board's broadcast is
left out of each action (``broadcast.publish``, which a process with no serving loop would run in
the caller's thread at every change): a Daphne flushes a day's board on its loop, once a window
(``LEADERBOARD_BROADCAST_DELAY``) for all the changes in it, and ``benchmarks/board.py`` measures
it. What the socket adds around this — the frame read, a hop to the database thread and back,
the frame written — is not in these figures; ``benchmarks/throughput.py`` measures the whole.

    .venv/bin/python benchmarks/socket_profile.py [--players 16] [--actions 1000]
        [--postgres-url postgres://postgres@127.0.0.1:5432/postgres]
        [--redis-url redis://127.0.0.1:6379/5]

Prints µs per message without the profiler, then each stage's share of a profiled message (the
profiler slows Python more than waits: the shares are approximate). Writes nothing.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import secrets
import time
from typing import Any

from action_profile import stage_times
from common import deal_days, django_env, machine, player_action, postgres_database

POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres"
#: The stages of a message (cumulative: a stage includes the stages it calls).
STAGES: list[tuple[str, str, str]] = [
    ("games/api/consumers.py", "_play", "the message, played and answered"),
    ("games/api/moves.py", "count_action", "  the actions limit (counted in Redis)"),
    ("rest_framework/serializers.py", "is_valid", "  the body's serializer"),
    ("games/services.py", "play", "  `services.play`: engine, the write"),
    ("games/services.py", "_owned", "    the game's row read (none: the socket's copy)"),
    ("games/services.py", "_locked", "    the game's row locked (none: no other writer)"),
    ("games/services.py", "engine_of", "    the engine restored from its stored state"),
    ("games/services.py", "_apply", "    apply, and the one statement that writes"),
    ("games/services.py", "_store", "      the write (`WITH … UPDATE … INSERT`)"),
    ("leaderboard/receivers.py", "standing_changed", "    on commit: the standing, Redis"),
    ("games/payloads.py", "played_game_dict", "  the answer's payload"),
    ("games/api/consumers.py", "_frame", "  the answer's JSON"),
]


def configure(database_url: str, redis_url: str) -> dict[str, str]:
    env = django_env(database_url, redis_url, DB_SYNCHRONOUS_COMMIT="0")
    del env["THROTTLE_ACTIONS"]  # the actions limit as deployed: counted on every action
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    return env


class Players:
    """``count`` players with today's attempt each, taking turns, one action a message."""

    def __init__(self, count: int) -> None:
        from django.contrib.auth.models import User

        from games import payloads
        from games import services as games
        from games.clock import utc_today
        from leaderboard import services

        self.players: list[tuple[Any, dict[str, Any], Any]] = []
        for _ in range(count):
            user = User.objects.create_user(f"sock{secrets.token_hex(3)}", password=None)
            game = services.start_attempt(user)
            known = games.Known(game)  # (the socket's copy of the row: its ready frame's)
            self.players.append((user, dict(payloads.game_dict(game, utc_today())), known))
        self.turn = 0

    def play(self, count: int) -> None:
        from games.api import consumers

        played = 0
        while played < count:
            self.turn += 1
            user, game, known = self.players[self.turn % len(self.players)]
            action = player_action(game)
            if action is None:
                raise SystemExit("a daily attempt ended: more --players, fewer --actions")
            body = {"ply": game["ply"], "action": action}
            # (On the thread's kept connection, as the socket's threads play: on_kept_connection.)
            frame = json.loads(consumers._play(game["id"], user, "action", self.turn, body, known))
            if frame.pop("type") != "played":
                raise SystemExit(f"an action was refused: {frame}")
            frame.pop("ref")
            game.clear()
            game.update(frame)
            played += 1


def stage_table(stats: pstats.Stats, mean_us: float, count: int) -> list[str]:
    found = stage_times(stats, STAGES)
    whole = found.get(STAGES[0][:2], (0.0, 0))[0]
    lines = ["| stage | calls a message | share | µs a message |", "|---|---:|---:|---:|"]
    for suffix, function, label in STAGES:
        if (suffix, function) in found:
            ct, nc = found[(suffix, function)]
            share = ct / whole
            lines.append(f"| {label} | {nc / count:.2g} | {share:.0%} | {share * mean_us:,.0f} |")
    lines.append(f"(cProfile of {count} messages: {whole / count * 1e6:,.0f} µs each profiled)")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--actions", type=int, default=1000)
    parser.add_argument("--postgres-url", default=POSTGRES_URL)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/5")
    args = parser.parse_args()
    print(machine())
    name = f"canfield_sockprof_{secrets.token_hex(3)}"
    with postgres_database(args.postgres_url, name) as url:
        env = configure(url, args.redis_url)
        deal_days(env)
        from leaderboard.live import broadcast

        # (A Daphne flushes the board on its loop once a window: not a part of each action.)
        broadcast.publish = lambda day: None
        players = Players(args.players)
        players.play(200)  # warm-up
        started = time.perf_counter()
        players.play(args.actions)
        mean_us = (time.perf_counter() - started) / args.actions * 1e6
        print(f"{mean_us:,.0f} µs a message ({args.actions} messages, {args.players} players)")
        profiler = cProfile.Profile()
        profiler.enable()
        players.play(args.actions)
        profiler.disable()
        print("\n".join(stage_table(pstats.Stats(profiler), mean_us, args.actions)))
        print(f"(load average after the run: {', '.join(f'{x:.2f}' for x in os.getloadavg())})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
