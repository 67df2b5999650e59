"""The Following view of a big day: a player following 500 others, on PostgreSQL and Redis.

A day of --attempts attempts (default 1,000,000) is bulk-created in a scratch PostgreSQL
database (``board.seed``, as benchmarks/board.py fills its day), vacuumed and analysed, and its
Redis sorted sets are built from it (a private redis-server unless --redis-url); one of its
players follows --follows of the others (default 500), drawn at random from the whole board. Then
median and p90 of --repeat calls, after a warm-up:

- the Following view, ``leaderboard.services.following_board`` (what
  ``GET /api/daily/<date>/board/?following=1`` answers): whom the viewer follows, their attempts
  (one query of values, ``services.attempts_among``, its moments read as integers), the ranks of
  all of them on the whole board — asked of Redis in one round trip
  (``RedisBoard.ranks_of_values``: the keys built in Lua) — and the rows, built from the values
  (``payloads.row_of``); next to the same call ranking one
  attempt at a time (``RedisBoard.rank_of``: a round trip each), the same run's baseline;
- the same view through the API in process (DRF's test client: routing, authentication, JSON);
- its parts: whom the viewer follows; their attempts (the query alone); their ranks on the whole
  board alone (one round trip);
- the home page's list, ``social.services.following_today`` (its first page of 20, each row's
  ``games.services.can_watch`` asked).

    .venv/bin/python benchmarks/following.py [--attempts 1000000] [--follows 500]
        [--repeat 50] [--write-docs]

Aim (printed met or not): the Following view <= 10 ms (p50, service call, Redis). Loopback only.
Before measuring, it checks that the batched ranks (``ranks_of`` of games and ``ranks_of_values``)
agree with ``rank_of`` one by one. --profile prints the view's profile (cumulative, then own time)
and the plan of its query (EXPLAIN ANALYZE) to stderr, and measures nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import RedisServer, django_env, machine, postgres_database, timed, write_section

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres"
AIM_MS = 10.0


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def worker(args: argparse.Namespace) -> None:
    """In a process of its own, with DATABASE_URL and REDIS_URL set: fill the day, measure."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canfield_site.settings")
    django.setup()
    from unittest import mock

    from board import seed
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone
    from rest_framework.test import APIClient

    from games.clock import utc_today
    from games.models import Game
    from leaderboard import services, standings
    from leaderboard.standings import sets
    from social import services as social
    from social.models import Follow

    call_command("migrate", verbosity=0)
    today = utc_today()
    t0 = time.perf_counter()
    seed(today, args.attempts, "p", random.Random(7))
    seeded = time.perf_counter() - t0
    pick = random.Random(5)
    ids = list(User.objects.filter(username__startswith="p").values_list("pk", flat=True))
    viewer_id = pick.choice(ids)
    followed = pick.sample([i for i in ids if i != viewer_id], args.follows)
    Follow.objects.bulk_create(Follow(follower_id=viewer_id, followed_id=i) for i in followed)
    with connection.cursor() as cursor:  # what autovacuum does to the tables after bulk loads
        for table in ("games_game", "auth_user", "social_follow"):
            cursor.execute(f"VACUUM ANALYZE {table}")
    t0 = time.perf_counter()
    sets.forget(today)
    assert sets.rebuild(today)
    rebuilt = time.perf_counter() - t0
    viewer = User.objects.get(pk=viewer_id)

    def their_attempts() -> Any:  # the view's query (services.board_among, on the Redis board)
        whole = standings.board(today, timezone.now())
        return services.attempts_query(today, {viewer_id, *followed}, whole)

    among = services.following_board(today, viewer)
    assert among["count"] == args.follows + 1  # every seeded player played
    whole = standings.board(today, timezone.now())
    assert isinstance(whole, sets.RedisBoard)
    games = list(standings.attempts(today).filter(owner_id__in=[viewer_id, *followed]))
    values = [
        (g.pk, g.status == Game.Status.WON, g.foundation_cards, g.ply, g.started_at, g.finished_at)
        for g in games
    ]
    each = {g.pk: whole.rank_of(g) for g in games}
    agree = whole.ranks_of(games) == each and whole.ranks_of_values(values) == each

    client = APIClient(HTTP_HOST="127.0.0.1")  # (a host the settings allow)
    client.force_authenticate(viewer)
    url = f"/api/daily/{today.isoformat()}/board/?following=1"
    answered = client.get(url).json()["results"]  # (the same rows; open attempts' times run on)
    assert {r["game_id"] for r in answered} == {r["game_id"] for r in among["results"]}

    def one_by_one(
        board: sets.RedisBoard, values: list[sets.RankedValues]
    ) -> dict[int, int | None]:
        return {v[0]: board.rank_of(sets.ranked_game(board.day, v)) for v in values}

    if args.profile:  # where the view's time goes, to stderr
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(lambda: [services.following_board(today, viewer) for _ in range(20)])
        stats = pstats.Stats(profiler, stream=sys.stderr)
        stats.sort_stats("cumulative").print_stats(40)
        stats.sort_stats("tottime").print_stats(30)
        print(their_attempts().explain(analyze=True, buffers=True), file=sys.stderr)  # its plan

    results: dict[str, tuple[float, float]] = {}
    baseline: dict[str, tuple[float, float]] = {}
    view = "the Following view (following_board)"
    results[view] = timed(lambda: services.following_board(today, viewer), args.repeat)
    with mock.patch.object(sets.RedisBoard, "ranks_of_values", one_by_one):
        baseline[view] = timed(
            lambda: services.following_board(today, viewer), max(5, args.repeat // 5)
        )
    results["the same, through the API in process"] = timed(lambda: client.get(url), args.repeat)
    results["part: whom the viewer follows"] = timed(
        lambda: social.followed_ids(viewer), args.repeat
    )
    results["part: their attempts, one query of values"] = timed(
        lambda: services.attempts_among(
            today, {viewer_id, *followed}, standings.board(today, timezone.now())
        ),
        args.repeat,
    )
    results["part: their ranks on the whole board, one round trip"] = timed(
        lambda: standings.board(today, timezone.now()).ranks_of_values(values),  # type: ignore[attr-defined]
        args.repeat,
    )
    results["home: following_today (first 20)"] = timed(
        lambda: social.following_today(viewer), args.repeat
    )
    print(
        json.dumps(
            {
                "attempts": standings.attempts(today).count(),
                "follows": args.follows,
                "seeded_seconds": round(seeded, 1),
                "rebuild_seconds": round(rebuilt, 1),
                "agree": agree,
                "results": results,
                "baseline": baseline,
            }
        )
    )


def table(result: dict[str, Any]) -> str:
    lines = [
        "| call | median ms | p90 ms | one round trip a rank: median ms | p90 ms | ÷ |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, (median, p90) in result["results"].items():
        base = result["baseline"].get(name)
        tail = (
            f"{base[0]:.1f} | {base[1]:.1f} | {base[0] / median:.1f}" if base else " |  | "
        ).strip()
        lines.append(f"| {name} | {median:.1f} | {p90:.1f} | {tail} |")
    view = next(iter(result["results"].values()))[0]
    lines += [
        "",
        f"- aim the Following view of {result['attempts']:,} attempts, following "
        f"{result['follows']}, ≤ {AIM_MS:g} ms (p50, service call, Redis): {view:.1f} — "
        f"{'met' if view <= AIM_MS else 'not met'}",
        f"- the batched ranks agree with `rank_of`, one by one: {result['agree']}",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("worker", nargs="?", choices=["_run"], help=argparse.SUPPRESS)
    parser.add_argument("--attempts", type=int, default=1_000_000)
    parser.add_argument("--follows", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--postgres-url", default=POSTGRES_URL)
    parser.add_argument("--redis-url", default="", help="default: a private redis-server")
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--profile", action="store_true", help="the view's profile, to stderr")
    args = parser.parse_args()
    if args.worker == "_run":
        worker(args)
        return 0

    host = machine()
    with (
        tempfile.TemporaryDirectory(prefix="canfield-redis-") as tmp,
        RedisServer(Path(tmp)) as redis,
        postgres_database(args.postgres_url, f"canfield_following_{secrets.token_hex(3)}") as url,
    ):
        print(f"  seeding {args.attempts:,} attempts ...", file=sys.stderr)
        out = subprocess.run(
            [PYTHON, __file__, "_run", "--attempts", str(args.attempts)]
            + ["--follows", str(args.follows), "--repeat", str(args.repeat)]
            + (["--profile"] if args.profile else []),
            cwd=ROOT,
            env=django_env(url, args.redis_url or redis.url),
            capture_output=True,
            text=True,
            timeout=3600,
        )
    if out.returncode != 0 or args.profile:
        print(out.stderr, file=sys.stderr)
        return out.returncode
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    text = table(result)
    print(text)
    print(
        f"({result['attempts']:,} attempts seeded in {result['seeded_seconds']} s; Redis sets "
        f"rebuilt in {result['rebuild_seconds']} s; load average after the run: {load()})"
    )
    if args.write_docs:
        command = "python benchmarks/following.py " + " ".join(sys.argv[1:])
        write_section("Following", section(command.strip(), host, result, text))
    return 0


def section(command: str, host: str, result: dict[str, Any], text: str) -> str:
    return (
        f"## Following\n\nCommand: `{command}` ({host}; after the run {load()}).\n\n"
        f"The Following view of a day's board (`GET /api/daily/<date>/board/?following=1`: me "
        f"and the players I follow, ranked among us and on the whole board) on a day of "
        f"{result['attempts']:,} attempts in PostgreSQL, bulk-created in "
        f"{result['seeded_seconds']} s, vacuumed and analysed, its Redis sorted sets rebuilt in "
        f"{result['rebuild_seconds']} s; the viewer follows {result['follows']} players drawn "
        "at random from the whole board. Median and p90 of the service calls after a warm-up; "
        "the right-hand columns are the same view ranking its attempts one at a time "
        "(`RedisBoard.rank_of`, a round trip to Redis each), the same run's baseline. The view "
        "asks whom the viewer follows (one query), their attempts (one query of values, by an "
        "index of their owners, each owner's name by a subquery of its primary key: no join; "
        "their start and end as integers of microseconds, not through Django's timestamptz "
        "loader), "
        "all their ranks on the whole board in one "
        "round trip to Redis (`RedisBoard.ranks_of_values`: one script call builds each key and "
        "counts the attempts before it), and builds the rows from the values (no model "
        "instance).\n\n"
        f"{text}\n"
    )


if __name__ == "__main__":
    sys.exit(main())
