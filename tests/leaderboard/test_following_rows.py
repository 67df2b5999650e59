"""The Following view's rows and ranks from a query's values, without model instances
(``payloads.row_of``, ``RedisBoard.ranks_of_values``, ``services.board_among``): the same answers
as the rows and ranks of the games themselves (``payloads.row``, ``rank_of``)."""

from __future__ import annotations

import datetime as dt
import os
from typing import Any

import pytest
from django.db import transaction
from hypothesis import given
from hypothesis import strategies as st

from games.models import Game
from leaderboard import payloads, services, standings
from leaderboard.standings import sets
from leaderboard.standings.board import ROW_VALUES, row_game
from leaderboard.standings.settled import SettledBoard
from tests.leaderboard.test_standings import DAY, NOON, PROPERTY, STARTS, attempts, make

REDIS = bool(os.environ.get("REDIS_URL"))

#: Moments the rows and ranks are asked at: before some attempts finished (a clock moved back),
#: noon, the day's last instant, and once it is over (open attempts stand closed).
MOMENTS = [
    NOON - dt.timedelta(seconds=30),
    NOON,
    dt.datetime(2030, 6, 15, 23, 59, 59, 999999, tzinfo=dt.UTC),
    dt.datetime(2030, 6, 16, 3, tzinfo=dt.UTC),
]
#: A moment the day is settled at.
SETTLED = dt.datetime(2030, 6, 16, 6, tzinfo=dt.UTC)
TIMES = st.sampled_from([*STARTS, NOON + dt.timedelta(minutes=5), None])


@PROPERTY
@given(
    status=st.sampled_from(["won", "resigned", "in_progress"]),
    day_over=st.booleans(),
    score=st.integers(0, 700),
    ply=st.integers(0, 400),
    cards=st.integers(1, 52),
    started=TIMES,
    finished=TIMES,
    now=st.sampled_from(MOMENTS),
    rank=st.one_of(st.none(), st.integers(1, 500)),
)
def test_a_row_from_values_is_the_row_of_the_game(
    status, day_over, score, ply, cards, started, finished, now, rank
):
    values = ("ann", status, day_over, score, ply, cards, started, finished)
    assert len(values) == len(ROW_VALUES)
    expected = payloads.row(row_game(7, DAY, *values), rank, now)
    assert payloads.row_of(rank, 7, DAY, values, now) == expected


def ranked_values(day: dt.date) -> list[Any]:
    """The day's ranked attempts as ``RedisBoard.ranks_of_values`` takes them, from a query."""
    found = standings.attempts(day).values_list(
        "id", "status", "foundation_cards", "ply", "started_at", "finished_at"
    )
    return [(i, status == "won", cards, ply, s, f) for i, status, cards, ply, s, f in found]


@pytest.mark.each_backend
@pytest.mark.skipif(not REDIS, reason="needs REDIS_URL")
@pytest.mark.redis_sets
@PROPERTY
@given(rows=attempts())
def test_the_redis_board_ranks_values_as_it_ranks_each_game(db, rows):
    """``RedisBoard.ranks_of_values`` (the keys and bounds built in Lua) against ``rank_of`` (in
    Python), on random days full of ties, at every moment of :data:`MOMENTS`."""
    with transaction.atomic():
        make(DAY, rows)
        sets.forget(DAY)
        assert sets.rebuild(DAY)
        games = list(standings.attempts(DAY).select_related("owner"))
        values = ranked_values(DAY)
        for now in MOMENTS:
            each, board = sets.board(DAY, now), sets.board(DAY, now)
            assert isinstance(each, sets.RedisBoard) and isinstance(board, sets.RedisBoard)
            expected = {game.pk: each.rank_of(game) for game in games}
            assert board.ranks_of_values(values) == expected
            assert board._sql is None  # (Redis answered: no fallback hid a wrong script)
        transaction.set_rollback(True)


@pytest.mark.each_backend
@pytest.mark.skipif(not REDIS, reason="needs REDIS_URL")
@pytest.mark.redis_sets
def test_a_key_too_wide_for_a_member_is_ranked_by_sql(db):
    """A value that does not fit its digits in a member: the script refuses it, and SQL ranks
    the attempt, as ``rank_of`` does when ``Standing.member`` raises."""
    with transaction.atomic():
        made = make(DAY, [{"status": "resigned", "foundation_cards": 3, "ply": 4,
                           "started_at": STARTS[2], "finished_at": NOON}])  # fmt: skip
        sets.forget(DAY)
        assert sets.rebuild(DAY)
        wide = Game(
            pk=made[0].pk + 1000, kind="daily", daily_date=DAY, status="resigned", ply=10**10,
            foundation_cards=3, started_at=STARTS[1], finished_at=NOON, disqualified=False,
        )  # fmt: skip
        values = (wide.pk, False, 3, 10**10, wide.started_at, wide.finished_at)
        expected = sets.board(DAY, NOON).rank_of(wide)  # type: ignore[union-attr]
        assert expected == 2
        assert sets.board(DAY, NOON).ranks_of_values([values]) == {wide.pk: 2}  # type: ignore[union-attr]
        transaction.set_rollback(True)


@pytest.mark.each_backend
@PROPERTY
@given(rows=attempts(), data=st.data())
def test_the_board_among_some_players_is_their_games_rows_and_ranks(db, rows, data):
    """``board_among`` (values only) against the rows and ranks of the games themselves, on the
    board that answers the day (SQL here; the Redis sets on PostgreSQL and Redis; once settled,
    its final ranks)."""
    with transaction.atomic():
        made = make(DAY, rows)
        owners = data.draw(st.sets(st.sampled_from([g.owner_id for g in made]))) if made else set()
        now = data.draw(st.sampled_from([*MOMENTS, SETTLED]))
        if now == SETTLED:  # its final ranks answer
            assert standings.settle_day(DAY, now=now)
            assert isinstance(standings.board(DAY, now), SettledBoard)
        among = services.board_among(DAY, owners, now=now)

        whole = standings.board(DAY, now)
        games = list(standings.attempts(DAY).filter(owner_id__in=owners).select_related("owner"))
        ranks = {game.pk: whole.rank_of(game) for game in games}
        games.sort(key=lambda g: (ranks[g.pk] is None, ranks[g.pk] or 0, g.pk))
        expected = [
            {**payloads.row(game, place, now), "board_rank": ranks[game.pk]}
            for place, game in enumerate(games, start=1)
        ]
        assert among["results"] == expected
        assert (among["count"], among["players"]) == (len(expected), len(owners))
        transaction.set_rollback(True)


#: Moments whose digits a query could get wrong: a whole second, its last microsecond (SQLite
#: rounds text to the millisecond when it reads a moment: .9999995 s is the next second), half
#: a second, the day's first and last instants.
EDGES = [
    NOON,
    NOON - dt.timedelta(microseconds=1),
    NOON + dt.timedelta(microseconds=500_000),
    NOON + dt.timedelta(microseconds=1_001),
    dt.datetime(2030, 6, 15, tzinfo=dt.UTC),
    dt.datetime(2030, 6, 15, 23, 59, 59, 999_999, tzinfo=dt.UTC),
]


@pytest.mark.each_backend
@pytest.mark.django_db
def test_the_attempts_moments_are_read_to_the_microsecond():
    """``attempts_among`` reads an attempt's start and end as integers of microseconds (for
    speed) and makes them datetimes again: exactly the stored moments, on either database."""
    later = dt.datetime(2030, 6, 15, 23, 59, 59, 999_999, tzinfo=dt.UTC)
    rows = [
        {"status": "resigned", "foundation_cards": 2, "ply": 3, "started_at": moment,
         "finished_at": later if moment < later else moment}
        for moment in EDGES
    ] + [
        {"status": "won", "foundation_cards": 52, "ply": 90,
         "started_at": dt.datetime(2030, 6, 15, tzinfo=dt.UTC), "finished_at": moment}
        for moment in EDGES
    ]  # fmt: skip
    made = make(DAY, rows)
    whole = standings.board(DAY, NOON)
    found = services.attempts_among(DAY, {g.owner_id for g in made}, whole)
    start, end = ROW_VALUES.index("started_at") + 2, ROW_VALUES.index("finished_at") + 2
    read = {values[0]: (values[start], values[end]) for values in found}
    assert read == {g.pk: (g.started_at, g.finished_at) for g in made}
    assert all(isinstance(s, dt.datetime) and s.tzinfo is not None for s, _f in read.values())
