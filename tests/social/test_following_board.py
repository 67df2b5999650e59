"""GET /api/daily/<date>/board/?following=1 — the Following view: my attempt and those of the
players I follow, in the whole board's order, ranked among us and on the whole board. On SQLite
here; on PostgreSQL and Redis in CI's pass, where the whole board's ranks come from the Redis
sets, all asked at once (``RedisBoard.ranks_of``)."""

from __future__ import annotations

import datetime as dt
import os

import pytest
from django.db import transaction
from hypothesis import given

from games import services as games
from games.models import Game
from leaderboard import standings
from leaderboard.standings import sets
from social.models import Follow
from tests.leaderboard.helpers import OPENING, WON, attempt, expected_row, player
from tests.leaderboard.test_standings import DAY, NOON, PROPERTY, attempts, make
from tests.social.helpers import a_guest

REDIS = bool(os.environ.get("REDIS_URL"))

pytestmark = pytest.mark.each_backend


def board_url(day: dt.date, query: str = "following=1") -> str:
    return f"/api/daily/{day.isoformat()}/board/?{query}"


@pytest.fixture
def day_of_five(owner, other, clock):
    """A day's board of five players; ``owner`` follows ``other`` and ``ann`` (and ``idle``,
    who has not played): ``ann`` first, ``owner`` third (2 cards), ``other`` fifth (1 card, 3
    actions, behind ``cid``'s 2)."""
    ann, bob, cid, idle = (player(name) for name in ("ann", "bob", "cid", "idle"))
    games_ = {
        "ann": attempt(ann, WON[:39], clock),  # 4 cards home
        "bob": attempt(bob, WON[:34], clock),  # 3 cards
        "owner": attempt(owner, OPENING, clock),
        "cid": attempt(cid, ["D", "D"], clock),
        "other": attempt(other, ["R-T2", "D", "D"], clock),
    }
    for followed in (other, ann, idle):
        Follow.objects.create(follower=owner, followed=followed)
    Follow.objects.create(follower=bob, followed=owner)  # (whom others follow: not mine)
    return games_


def test_it_gives_me_and_whom_i_follow_ranked_among_us_and_on_the_whole_board(
    owner_api, day_of_five, clock
):
    day = clock.now.date()
    whole = owner_api.get(board_url(day, "")).json()
    rank_on_board = {row["game_id"]: row["rank"] for row in whole["results"]}

    response = owner_api.get(board_url(day))

    assert response.status_code == 200
    body = response.json()
    rows = [(r["rank"], r["board_rank"], r["player"]) for r in body["results"]]
    assert rows == [(1, 1, "ann"), (2, 3, "owner"), (3, 5, "other")]
    assert [r["board_rank"] for r in body["results"]] == [
        rank_on_board[r["game_id"]] for r in body["results"]
    ]
    mine = day_of_five["owner"]
    assert body["me"] == body["results"][1]
    assert {k: v for k, v in body["me"].items() if k != "board_rank"} == expected_row(
        mine, 2, body["me"]["time_seconds"]
    )
    assert (body["date"], body["count"], body["page"], body["pages"]) == (day.isoformat(), 3, 1, 1)
    assert body["players"] == 4  # (owner and the three followed, idle among them)
    assert body["seq"] == whole["seq"]


def test_a_follow_and_an_unfollow_change_the_view_at_once(owner_api, day_of_five, clock):
    day = clock.now.date()
    owner_api.post("/api/players/bob/follow/")
    owner_api.delete("/api/players/ann/follow/")

    body = owner_api.get(board_url(day)).json()

    assert [(r["rank"], r["board_rank"], r["player"]) for r in body["results"]] == [
        (1, 2, "bob"),
        (2, 3, "owner"),
        (3, 5, "other"),
    ]


def test_a_player_who_follows_nobody_sees_their_own_row_alone(other_api, day_of_five, clock):
    body = other_api.get(board_url(clock.now.date())).json()

    assert [(r["rank"], r["board_rank"], r["player"]) for r in body["results"]] == [(1, 5, "other")]


def test_it_follows_the_board_as_players_move(owner_api, day_of_five, clock):
    other = day_of_five["other"]
    clock.advance(1)
    games.play(other.pk, other.owner, other.ply, "R-F1")  # a second card home: past cid

    body = owner_api.get(board_url(clock.now.date())).json()

    assert [(r["rank"], r["board_rank"], r["player"]) for r in body["results"]] == [
        (1, 1, "ann"),
        (2, 3, "owner"),
        (3, 4, "other"),
    ]


def test_a_past_day_reads_its_final_ranks(owner_api, day_of_five, clock):
    day = clock.now.date()
    clock.advance(24 * 3600)
    assert standings.settle_day(day, now=clock.now)

    body = owner_api.get(board_url(day)).json()

    assert [(r["rank"], r["board_rank"], r["player"]) for r in body["results"]] == [
        (1, 1, "ann"),
        (2, 3, "owner"),
        (3, 5, "other"),
    ]
    assert {r["result"] for r in body["results"][1:]} == {"closed"}


def test_a_visitor_is_asked_to_log_in(api, day_of_five, clock):
    response = api.get(board_url(clock.now.date()))

    assert (response.status_code, response.json()["code"]) == (401, "not_authenticated")


def test_a_guest_follows_nobody_and_has_no_attempt(day_of_five, clock):
    client, _ = a_guest()

    body = client.get(board_url(clock.now.date())).json()

    assert (body["count"], body["results"], body["me"]) == (0, [], None)


def test_bad_input_is_refused(owner_api, day_of_five, clock):
    day = clock.now.date()
    for query, status, code in [
        ("following=maybe", 400, "invalid"),
        ("following=1&following=1", 400, "invalid"),
        ("following=", 400, "invalid"),
        ("following=1&page=2", 404, "not_found"),
    ]:
        response = owner_api.get(board_url(day, query))
        assert (response.status_code, response.json()["code"]) == (status, code), query
    assert owner_api.get(board_url(day, "following=0")).json()["count"] == 5  # everyone's


@pytest.mark.skipif(not REDIS, reason="needs REDIS_URL")
@pytest.mark.redis_sets
@PROPERTY
@given(rows=attempts())
def test_the_redis_board_ranks_many_at_once_as_it_ranks_each(db, rows):
    """``RedisBoard.ranks_of`` (one round trip) against ``rank_of`` (one each), on random days
    full of ties, at noon and once the day is over; with games not on the board among them."""
    with transaction.atomic():
        made = make(DAY, rows)
        sets.forget(DAY)
        assert sets.rebuild(DAY)
        every = list(Game.objects.select_related("owner").filter(pk__in=[g.pk for g in made]))
        for now in (NOON, dt.datetime(2030, 6, 16, 3, tzinfo=dt.UTC)):
            board = sets.board(DAY, now)
            assert isinstance(board, sets.RedisBoard)
            assert board.ranks_of(every) == {game.pk: board.rank_of(game) for game in every}
        transaction.set_rollback(True)
