"""The board in Redis sorted sets (leaderboard.redis_ranking) agrees with SQL (ranking.Board):
the same order, pages, counts and ranks on random days full of ties, open attempts whose time
runs to now among finished ones, after updates, after a flush, on a day that is over.

Runs when REDIS_URL is set (CI's second pass, on PostgreSQL and Redis)."""

from __future__ import annotations

import datetime as dt
import os
import random

import pytest
from django.contrib.auth.models import User

from games import services as games
from games.models import Game
from leaderboard import broadcast, ranking, redis_ranking
from tests.leaderboard.helpers import OPENING, WON, attempt, player, utc_today

pytestmark = [
    pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL"),
    pytest.mark.redis_sets,
]

DAY = dt.date(2030, 6, 15)
NOON = dt.datetime(2030, 6, 15, 12, tzinfo=dt.UTC)


def sql_order(day: dt.date, now: dt.datetime) -> list[int]:
    return list(ranking.ranked(day, now).values_list("id", flat=True))


def random_day(rng: random.Random, size: int, now: dt.datetime) -> list[Game]:
    """``size`` attempts of DAY drawn from few values, so that every key ties often: a handful
    of cards, actions and start times; finished attempts whose time equals an open one's at
    ``now`` exactly, some finished at ``now`` itself."""
    users = User.objects.bulk_create(
        [User(username=f"r{rng.getrandbits(40):x}{i}", password="!") for i in range(size)]
    )
    starts = [NOON - dt.timedelta(seconds=s) for s in (0, 1, 30, 30.000001, 600, 3600)]
    attempts = []
    for user in users:
        started = rng.choice(starts)
        status = rng.choice(["won", "resigned", "in_progress", "in_progress"])
        cards = 52 if status == "won" else rng.choice([1, 2, 2, 3])
        finished = None
        if status != "in_progress":
            # Often exactly the time an open attempt has at now: now - (one of the starts).
            elapsed = (
                now - rng.choice(starts)
                if rng.random() < 0.5
                else rng.choice([dt.timedelta(seconds=s) for s in (1, 30, 600)])
            )
            finished = min(now, started + elapsed)
        attempts.append(
            Game(
                owner=user,
                code="CF1-D3-AAAAACL",
                kind="daily",
                daily_date=DAY,
                status=status,
                ply=rng.choice([0, 3, 4, 4, 5]),
                foundation_cards=cards,
                started_at=started,
                finished_at=finished,
            )
        )
    return Game.objects.bulk_create(attempts)


def split_here(board: redis_ranking.RedisBoard, position: int) -> int:
    """The board's ``_split`` step by step from Python (a round trip a step): what its Lua
    script (``SPLIT``) does in one."""
    finished, opened = board.sizes()
    lo, hi = max(0, position - opened), min(position, finished)
    while lo < hi:
        i = (lo + hi + 1) // 2
        pipe = board.redis.pipeline(transaction=False)
        pipe.zrange(board.keys.finished, i - 1, i - 1)
        pipe.zrange(board.keys.open, position - i, position - i)
        (f,), (o,) = pipe.execute()
        if f.decode() < redis_ranking.open_at(o.decode(), board.clock):
            lo = i
        else:
            hi = i - 1
    return lo


def assert_agrees(day: dt.date, now: dt.datetime, rng: random.Random) -> None:
    board = redis_ranking.standings(day, now)
    assert isinstance(board, redis_ranking.RedisBoard)
    sql = ranking.Board(day, now)
    order = sql_order(day, now)
    assert board.count == sql.count == len(order)
    assert [redis_ranking.id_of(m) for m in board.members(0, len(order))] == order
    for _ in range(20):  # windows that begin and end anywhere
        start = rng.randrange(len(order) + 1)
        stop = rng.randrange(start, len(order) + 2)
        assert [g.pk for g in board.rows(start, stop)] == order[start:stop]
        assert board._split(start) == split_here(board, start)  # Lua's search, Python's
    for page in (1, 2):
        assert [g.pk for g in board.page(page)] == [g.pk for g in sql.page(page)]
    games_by_id = Game.objects.select_related("owner").in_bulk(order)
    for position, game_id in enumerate(order, start=1):
        assert board.rank_of(games_by_id[game_id]) == position == sql.rank_of(games_by_id[game_id])


@pytest.mark.parametrize("seed", range(6))
def test_it_agrees_with_sql_on_a_random_day(db, seed):
    rng = random.Random(seed)
    now = NOON + dt.timedelta(seconds=rng.choice([0, 1, 30, 599.5]))
    random_day(rng, 150 + 20 * seed, now)

    assert_agrees(DAY, now, rng)
    assert_agrees(DAY, now + dt.timedelta(seconds=rng.choice([1, 29.999999, 3000])), rng)


def test_it_agrees_with_sql_once_the_day_is_over(db):
    rng = random.Random(42)
    random_day(rng, 200, NOON)
    assert redis_ranking.rebuild(DAY)  # built during the day; read after its end

    assert_agrees(DAY, dt.datetime(2030, 6, 16, 3, tzinfo=dt.UTC), rng)


def test_it_breaks_ties_by_time_then_finish_then_game_id(db):
    """Same cards and actions: less time first; the same time, the earlier finish (an open
    attempt finishes now); the same finish too, the lower game id."""
    users = User.objects.bulk_create([User(username=f"t{i}", password="!") for i in range(5)])
    start = NOON - dt.timedelta(minutes=10)

    def make(user: User, started: dt.datetime, finished: dt.datetime | None) -> Game:
        return Game.objects.create(
            owner=user, code="CF1-D3-AAAAACL", kind="daily", daily_date=DAY,
            status="resigned" if finished else "in_progress", ply=4, foundation_cards=2,
            started_at=started, finished_at=finished,
        )  # fmt: skip

    open_late = make(users[0], start + dt.timedelta(minutes=5), None)  # 5 min at NOON
    done_at_noon = make(users[1], start, NOON)  # 10 min, finished now
    open_early = make(users[2], start, None)  # 10 min, finishes now: id after users[1]'s
    done_before = make(users[3], start - dt.timedelta(minutes=5), NOON - dt.timedelta(minutes=5))
    quick = make(users[4], start, start + dt.timedelta(seconds=1))  # 1 s

    expected = [quick.pk, open_late.pk, done_before.pk, done_at_noon.pk, open_early.pk]
    assert sql_order(DAY, NOON) == expected
    board = redis_ranking.standings(DAY, NOON)
    assert board is not None
    assert [g.pk for g in board.page(1)] == expected
    assert [board.rank_of(g) for g in Game.objects.in_bulk(expected).values()] == [
        expected.index(pk) + 1 for pk in Game.objects.in_bulk(expected)
    ]


def test_it_rebuilds_a_day_after_redis_was_flushed(db):
    rng = random.Random(3)
    random_day(rng, 120, NOON)
    assert_agrees(DAY, NOON, rng)
    redis = redis_ranking.client()
    keys = list(redis.scan_iter(match=f"{redis_ranking.prefix()}:*"))
    assert keys
    redis.delete(*keys)  # what FLUSHDB or a restart does to them

    assert_agrees(DAY, NOON, rng)


def test_it_never_lets_an_older_update_replace_a_newer_one(db):
    game = random_day(random.Random(1), 1, NOON)[0]
    Game.objects.filter(pk=game.pk).update(ply=5, status="in_progress", finished_at=None)
    game.refresh_from_db()
    older = Game.objects.get(pk=game.pk)
    older.ply = 4
    assert redis_ranking.rebuild(DAY)

    redis_ranking.record(older)  # a late, stale update

    board = redis_ranking.standings(DAY, NOON)
    current = redis_ranking.entry(game)
    assert board is not None and current is not None
    assert board.members(0, 1) == [redis_ranking.open_at(current[3], board.clock)]


@pytest.mark.django_db(transaction=True)
def test_it_follows_moves_resignations_and_wins_after_each_commit(clock, only_our_days):
    """The real path: every change reaches the sets in the after-commit path (no rebuild)."""
    today = utc_today()
    ann, bob, cid = (attempt(player(name), clock=clock) for name in ("ann", "bob", "cid"))
    rng = random.Random(9)
    assert redis_ranking.rebuild(today) is True
    steps = [
        (ann, OPENING),
        (bob, ["D", "D"]),
        (cid, WON[:30]),
        (bob, ["U"]),
        (ann, ["D"]),
    ]
    for game, tokens in steps:
        for token in tokens:
            clock.advance(1)
            game.refresh_from_db()
            games.play(game.pk, game.owner, game.ply, token)
        assert_agrees(today, clock.now, rng)
    games.resign(bob, bob.owner)
    assert_agrees(today, clock.advance(5), rng)
    cid.refresh_from_db()
    for token in WON[30:]:
        clock.advance(0.5)
        games.play(cid.pk, cid.owner, cid.ply, token)
        cid.ply += 1
    assert_agrees(today, clock.advance(5), rng)
    assert redis_ranking.standings(today, clock.now).page(1)[0].pk == cid.pk  # type: ignore[union-attr]
    # The day ends: the open attempt is closed as it stood, at the day's end.
    after = dt.datetime.combine(today + dt.timedelta(days=1), dt.time(0, 0, 30), tzinfo=dt.UTC)
    clock.set(after)
    games.close_daily_attempts()
    assert_agrees(today, after, rng)
    assert broadcast.wait_idle(10)  # the live board's last broadcast, while the database is ours
