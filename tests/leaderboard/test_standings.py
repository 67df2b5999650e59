"""Every board answers as the one definition of the order says (leaderboard.standings.order): the
key of each attempt sorted in Python is the reference; SQL (SqlBoard, and the full sort of
``sql.ranked``), a settled day's final ranks (SettledBoard) and Redis (RedisBoard, when REDIS_URL
is set: CI's second pass) must give the same count, the same rows in the same order, windows that
begin and end anywhere, and the same ranks — on random days full of ties: few values of cards,
actions and start times, finished attempts whose time equals an open one's at ``now`` exactly,
some finished at ``now`` itself, some recorded as ending before they began."""

from __future__ import annotations

import datetime as dt
import itertools
import os
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import services as games
from games.models import Game
from leaderboard.standings import SqlBoard, order, sets, settled, sql
from leaderboard.standings.order import OpenStanding, Standing
from tests.leaderboard.helpers import OPENING, WON, attempt, player, utc_today

REDIS = bool(os.environ.get("REDIS_URL"))
# the tests build the days' sets themselves; and on both backends (each_backend)
pytestmark = [pytest.mark.redis_sets, pytest.mark.each_backend]

DAY = dt.date(2030, 6, 15)
NOON = dt.datetime(2030, 6, 15, 12, tzinfo=dt.UTC)
STARTS = [NOON - dt.timedelta(seconds=s) for s in (0, 1, 30, 30.000001, 600, 3600)]
_names = itertools.count()

PROPERTY = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@st.composite
def attempts(draw: Any) -> list[dict[str, Any]]:
    """Up to 40 attempts drawn from few values, so that every part of the key ties often."""
    found = []
    for _ in range(draw(st.integers(0, 40))):
        status = draw(st.sampled_from(["won", "resigned", "in_progress", "in_progress"]))
        started = draw(st.sampled_from(STARTS))
        finished = None
        if status != "in_progress":
            # Often exactly the time an open attempt has at noon: noon - (one of the starts);
            # now and then an end before the start (a day moved back): a time of 0.
            elapsed = draw(
                st.one_of(
                    st.sampled_from([NOON - s for s in STARTS]),
                    st.sampled_from([dt.timedelta(seconds=s) for s in (-30, 0, 1, 30, 600)]),
                )
            )
            finished = min(NOON, started + elapsed)
        found.append(
            {
                "status": status,
                "foundation_cards": 52 if status == "won" else draw(st.sampled_from([1, 2, 2, 3])),
                "ply": draw(st.sampled_from([0, 3, 4, 4, 5])),
                "started_at": started,
                "finished_at": finished,
            }
        )
    return found


def make(day: dt.date, rows: list[dict[str, Any]]) -> list[Game]:
    users = User.objects.bulk_create(
        [User(username=f"s{next(_names)}", password="!") for _ in rows]
    )
    made = Game.objects.bulk_create(
        Game(owner=user, code="CF1-D3-AAAAACL", kind="daily", daily_date=day, **values)
        for user, values in zip(users, rows, strict=True)
    )
    Game.objects.create(  # a practice game, never on a board
        owner=users[0] if users else User.objects.create(username=f"s{next(_names)}"),
        code="CF1-D3-AAAAACL",
        ply=4,
        foundation_cards=9,
        started_at=NOON,
    )
    return made


def reference(day: dt.date, now: dt.datetime) -> list[int]:
    """The board's order by the definition: every ranked attempt's key, sorted in Python."""
    keys = [Standing.of(g, now) for g in Game.objects.filter(daily_date=day)]
    return [k.game_id for k in sorted((k for k in keys if k is not None), key=Standing.sort_key)]


def boards(day: dt.date, now: dt.datetime) -> list[Any]:
    found: list[Any] = [SqlBoard(day, now)]
    if settled.is_due(day, now):
        assert settled.settle_day(day, again=True, now=now)
        found.append(settled.board(day, now))
    if REDIS:
        sets.forget(day)
        assert sets.rebuild(day)
        redis = sets.board(day, now)
        assert isinstance(redis, sets.RedisBoard)
        found.append(redis)
    return found


def split_step_by_step(board: sets.RedisBoard, position: int) -> int:
    """``RedisBoard._split`` from Python, a round trip a step: what its Lua script does."""
    finished, opened = board.sizes()
    lo, hi = max(0, position - opened), min(position, finished)
    while lo < hi:
        i = (lo + hi + 1) // 2
        pipe = board.redis.pipeline(transaction=False)
        pipe.zrange(board.keys.finished, i - 1, i - 1)
        pipe.zrange(board.keys.open, position - i, position - i)
        (f,), (o,) = pipe.execute()
        if f.decode() < OpenStanding.from_member(o.decode()).at(board.clock).member():
            lo = i
        else:
            hi = i - 1
    return lo


def assert_agree(day: dt.date, now: dt.datetime, windows: list[tuple[int, int]]) -> None:
    order = reference(day, now)
    assert list(sql.ranked(day, now).values_list("id", flat=True)) == order
    by_id = Game.objects.select_related("owner").in_bulk(order)
    for board in boards(day, now):
        assert board.count == len(order), type(board)
        assert [g.pk for g in board.rows(0, len(order) + 5)] == order, type(board)
        for start, stop in windows:
            assert [g.pk for g in board.rows(start, stop)] == order[start:stop], type(board)
        for position, game_id in enumerate(order, start=1):
            assert board.rank_of(by_id[game_id]) == position, type(board)
        if isinstance(board, sets.RedisBoard):
            for start, _ in windows:  # Lua's binary search, Python's
                assert board._split(start) == split_step_by_step(board, start)


@PROPERTY
@given(
    rows=attempts(),
    later=st.sampled_from([0, 1, 30, 599.5, 3000]),
    windows=st.lists(st.tuples(st.integers(0, 45), st.integers(0, 45)), max_size=6),
)
def test_every_board_agrees_with_the_definition_on_random_days(db, rows, later, windows):
    with transaction.atomic():
        make(DAY, rows)
        for now in (NOON, NOON + dt.timedelta(seconds=later)):
            assert_agree(DAY, now, [(a, max(a, b)) for a, b in windows])
        transaction.set_rollback(True)


@PROPERTY
@given(rows=attempts(), windows=st.lists(st.tuples(st.integers(0, 45), st.integers(0, 45))))
def test_every_board_agrees_once_the_day_is_over(db, rows, windows):
    """Open attempts stand as they stood at the day's end (their clock stops there); the
    settled day's final ranks too."""
    with transaction.atomic():
        make(DAY, rows)
        assert_agree(DAY, dt.datetime(2030, 6, 16, 3, tzinfo=dt.UTC), windows)
        transaction.set_rollback(True)


members = st.builds(
    Standing,
    won=st.integers(0, 1),
    cards=st.integers(1, 52),
    actions=st.integers(0, 10**10 - 1),
    elapsed=st.integers(0, 10**12 - 1),
    end=st.integers(0, 10**17 - 1),
    game_id=st.integers(1, 10**19 - 1),
)


@settings(max_examples=300)
@given(st.lists(members, max_size=30))
def test_a_members_byte_order_is_the_keys_order(keys):
    assert sorted(keys, key=Standing.member) == sorted(keys, key=Standing.sort_key)
    for key in keys:
        assert Standing.from_member(key.member()) == key


@settings(max_examples=300)
@given(
    cards=st.integers(1, 51),
    actions=st.integers(1, 10**6),
    started=st.integers(10**15, 2 * 10**15),
    game_id=st.integers(1, 10**12),
    elapsed=st.integers(0, 10**12 - 1),
)
def test_an_open_member_at_a_clock_is_the_key_it_has_then(
    cards, actions, started, game_id, elapsed
):
    clock = started + elapsed
    opened = OpenStanding(cards, actions, started, game_id)
    assert OpenStanding.from_member(opened.member()) == opened
    assert opened.at(clock) == Standing(0, cards, actions, clock - started, clock, game_id)
    assert order.full_member(opened.member(), clock) == opened.at(clock).member()
    assert order.id_of(opened.at(clock).member()) == game_id


def test_the_sql_order_is_the_parts_in_turn():
    assert order.SQL_ORDER == ("-won_first", "-foundation_cards", "ply", "elapsed", "end_at", "id")


def test_it_breaks_ties_by_time_then_finish_then_game_id(db):
    """Same cards and actions: less time first; the same time, the earlier finish (an open
    attempt finishes now); the same finish too, the lower game id."""
    start = NOON - dt.timedelta(minutes=10)

    def one(started: dt.datetime, finished: dt.datetime | None) -> Game:
        status = "resigned" if finished else "in_progress"
        rows = [{"status": status, "ply": 4, "foundation_cards": 2}]
        rows[0] |= {"started_at": started, "finished_at": finished}
        return make(DAY, rows)[0]

    open_late = one(start + dt.timedelta(minutes=5), None)  # 5 min at NOON
    done_at_noon = one(start, NOON)  # 10 min, finished now
    open_early = one(start, None)  # 10 min, finishes now: id after done_at_noon's
    done_before = one(start - dt.timedelta(minutes=5), NOON - dt.timedelta(minutes=5))
    quick = one(start, start + dt.timedelta(seconds=1))  # 1 s

    expected = [quick.pk, open_late.pk, done_before.pk, done_at_noon.pk, open_early.pk]
    assert reference(DAY, NOON) == expected
    for board in boards(DAY, NOON):
        assert [g.pk for g in board.rows(0, 100)] == expected
        assert [board.rank_of(g) for g in Game.objects.in_bulk(expected).values()] == [
            expected.index(pk) + 1 for pk in Game.objects.in_bulk(expected)
        ]


@pytest.mark.skipif(not REDIS, reason="needs REDIS_URL")
def test_it_never_lets_an_older_update_replace_a_newer_one(db):
    row = {"status": "in_progress", "ply": 5, "started_at": NOON, "finished_at": None}
    game = make(DAY, [row])[0]
    older = Game.objects.select_related("owner").get(pk=game.pk)
    older.ply = 4
    sets.forget(DAY)
    assert sets.rebuild(DAY)

    sets.record(older)  # a late, stale update

    board = sets.board(DAY, NOON)
    assert board is not None
    assert [g.ply for g in board.rows(0, 1)] == [5]


@pytest.mark.skipif(not REDIS, reason="needs REDIS_URL")
def test_an_action_recorded_after_a_disqualification_never_puts_the_attempt_back(db):
    """An action's after-commit update that reaches Redis after staff took the attempt off its
    board (its receiver was slow) carries the attempt as the action left it, not disqualified:
    it must not put it back. And once put back, a late update of its removal must not take it
    off again."""
    rows = [
        {"status": "in_progress", "ply": p, "started_at": NOON, "finished_at": None} for p in (5, 6)
    ]
    game, other = make(DAY, rows)
    sets.forget(DAY)
    assert sets.rebuild(DAY)
    as_the_action_left_it = Game.objects.select_related("owner").get(pk=game.pk)

    games.set_disqualified(game.pk, True)  # (recorded: taken out of the sets)
    assert sets.record(Game.objects.select_related("owner").get(pk=game.pk))
    off = Game.objects.select_related("owner").get(pk=game.pk)
    assert sets.record(as_the_action_left_it)  # the late receiver

    board = sets.board(DAY, NOON)
    assert board is not None
    assert (board.count, [g.pk for g in board.rows(0, 10)]) == (1, [other.pk])
    assert board.rank_of(off) is None

    games.set_disqualified(game.pk, False)
    assert sets.record(Game.objects.select_related("owner").get(pk=game.pk))
    assert sets.record(off)  # a late update of the removal

    board = sets.board(DAY, NOON)
    assert board is not None
    assert sorted(g.pk for g in board.rows(0, 10)) == sorted([game.pk, other.pk])
    assert board.count == 2


def test_a_condition_added_to_the_ranked_attempts_takes_an_attempt_off_every_board(db):
    """The hook a later rule (a disqualified flag, say) joins: one more condition in
    ``order.RANKED`` takes the attempts it refuses off the SQL board, off the Redis sets once
    each is recorded again (as the after-commit path of its change does), and out of the ranks."""
    rows = [
        {"status": "resigned", "ply": 4, "started_at": NOON, "finished_at": NOON, "score": s}
        for s in (0, 5, 10)
    ]
    zero, five, ten = make(DAY, rows)
    assert len(boards(DAY, NOON)) == 1 + REDIS  # (the sets built as they stand)
    stricter = (*order.RANKED, order.Condition("score", "gt", 0))

    with mock.patch.object(order, "RANKED", stricter):
        for game in Game.objects.select_related("owner").filter(daily_date=DAY):
            assert sets.record(game)
        assert reference(DAY, NOON) == [five.pk, ten.pk]
        for board in [SqlBoard(DAY, NOON), *([sets.board(DAY, NOON)] if REDIS else [])]:
            assert board is not None
            assert [g.pk for g in board.rows(0, 10)] == [five.pk, ten.pk], type(board)
            assert board.count == 2
            assert board.rank_of(zero) is None and board.rank_of(ten) == 2


@pytest.mark.skipif(not REDIS, reason="needs REDIS_URL")
@pytest.mark.django_db(transaction=True)
def test_it_follows_moves_resignations_and_wins_after_each_commit(clock, only_our_days):
    """The real path: every change reaches the sets in the after-commit path (no rebuild)."""
    today = utc_today()
    ann, bob, cid = (attempt(player(name), clock=clock) for name in ("ann", "bob", "cid"))
    assert sets.rebuild(today) is True

    def agree() -> None:
        redis = sets.board(today, clock.now)
        assert isinstance(redis, sets.RedisBoard)
        expected = reference(today, clock.now)
        assert [g.pk for g in redis.rows(0, 100)] == expected
        assert redis.count == len(expected)

    for game, tokens in [(ann, OPENING), (bob, ["D", "D"]), (cid, WON[:30]), (bob, ["U"])]:
        for token in tokens:
            clock.advance(1)
            game.refresh_from_db()
            games.play(game.pk, game.owner, game.ply, token)
        agree()
    games.resign(bob, bob.owner)
    clock.advance(5)
    agree()
    cid.refresh_from_db()
    for token in WON[30:]:
        clock.advance(0.5)
        games.play(cid.pk, cid.owner, cid.ply, token)
        cid.ply += 1
    clock.advance(5)
    agree()
    # The day ends: the open attempt is closed as it stood, at the day's end.
    clock.set(dt.datetime.combine(today + dt.timedelta(days=1), dt.time(0, 0, 30), tzinfo=dt.UTC))
    games.close_daily_attempts()
    agree()
