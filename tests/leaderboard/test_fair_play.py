"""Fair play: today's code and the hidden cards of games in progress never leak, one ranked
attempt per player and day, and no action after the day is over."""

import datetime as dt
import json

import pytest

from games.engine import DealCode
from games.engine.cards import RANKS, SUITS
from games.models import Game
from tests.leaderboard.helpers import (
    CODE,
    OPENING,
    WON,
    attempt,
    hidden_cards,
    player,
    quoted,
)

pytestmark = pytest.mark.usefixtures("only_our_days")

ALL_CARDS = [rank + suit for rank in RANKS for suit in SUITS]
LETTERS = DealCode.parse(CODE).letters


def assert_no_code(text):
    assert CODE not in text
    assert LETTERS not in text


def assert_no_card(text, cards=ALL_CARDS):
    leaked = [card for card in quoted(cards) if card in text]
    assert not leaked, f"cards leaked: {leaked}"


def test_it_never_serves_todays_code_or_a_hidden_card(owner_api, owner, other_api, other, clock):
    # No recycle in these lines: a card hidden now has never been seen.
    mine = attempt(owner, WON[:8], clock)
    played = owner_api.post(f"/api/games/{mine.pk}/actions/", {"ply": 8, "action": "D"})
    mine.refresh_from_db()
    theirs = attempt(other, OPENING, clock)
    attempt(player("never"))
    mine_hidden, theirs_hidden = hidden_cards(mine), hidden_cards(theirs)
    assert len(mine_hidden) > 20 and len(theirs_hidden) > 40

    # Nothing about cards at all: the daily endpoints, boards, days and players.
    for client, own_hidden in ((owner_api, mine_hidden), (other_api, theirs_hidden)):
        for url in (
            "/api/daily/",
            "/api/daily/2030-06-15/board/",
            "/api/daily/2030-06-15/picture/",
            "/api/daily/days/",
            "/api/players/owner/",
            "/api/players/other/",
        ):
            response = client.get(url)
            assert response.status_code == 200, url
            text = response.content.decode()
            assert_no_code(text)
            # /api/daily/ holds the client's own game and its visible cards; the rest, no card.
            assert_no_card(text, own_hidden if url == "/api/daily/" else ALL_CARDS)
    # Nothing about today's deal before the day is over: no solution, no par, no line.
    for client in (owner_api, other_api):
        response = client.get("/api/daily/2030-06-15/solution/")
        assert response.status_code == 404
        assert_no_code(response.content.decode())
        assert_no_card(response.content.decode())
        board = client.get("/api/daily/2030-06-15/board/").json()
        assert (board["code"], board["par"], board["solution"]) == (None, None, None)
        assert WON[5] not in json.dumps(board)  # not a token of the stored line
    # My own game, every way the games API shows it: my visible cards, none of my hidden ones.
    pk = mine.pk
    for response in (
        owner_api.get("/api/daily/"),
        owner_api.get("/api/games/"),
        owner_api.get("/api/games/?kind=daily"),
        owner_api.get(f"/api/games/{pk}/"),
        owner_api.get(f"/api/games/{pk}/record/"),
        owner_api.get(f"/api/games/{pk}/record/?states=1"),
        played,
    ):
        assert response.status_code == 200
        text = response.content.decode()
        assert_no_code(text)
        assert_no_card(text, mine_hidden)
    # Theirs is not mine to see while my attempt is in progress.
    assert other_api.get(f"/api/games/{pk}/").status_code == 404
    assert other_api.get(f"/api/games/{pk}/record/").status_code == 404
    assert json.loads(other_api.get("/api/daily/").content)["attempt"]["id"] == theirs.pk


def test_it_keeps_todays_attempts_from_a_sock_puppet_until_the_day_is_over(
    owner_api, owner, other_api, other, clock
):
    mine = attempt(owner, OPENING, clock)
    other_api.post(f"/api/games/{attempt(other, ['D'], clock).pk}/resign/")

    for url in (f"/api/games/{mine.pk}/record/?states=1", f"/api/games/{mine.pk}/record/"):
        response = other_api.get(url)
        assert response.status_code == 404
        text = response.content.decode()
        assert_no_code(text)
        assert_no_card(text)

    clock.advance(24 * 3600)
    assert other_api.get(f"/api/games/{mine.pk}/record/?states=1").status_code == 200


def test_it_serves_the_solution_once_the_day_is_over(api, owner, clock):
    attempt(owner, OPENING, clock)
    assert api.get("/api/daily/2030-06-15/solution/").status_code == 404

    clock.set(dt.datetime(2030, 6, 16, tzinfo=dt.UTC))  # the day's end

    response = api.get("/api/daily/2030-06-15/solution/?states=1")
    assert response.status_code == 200
    body = response.json()
    assert [m["token"] for m in body["moves"]] == WON
    assert (body["code"], body["result"], body["player"], body["daily_date"]) == (
        CODE,
        "won",
        "(solver)",
        "2030-06-15",
    )
    assert len(body["states"]) == len(WON) + 1
    assert body["states"][-1]["foundation_cards"] == 52
    board = api.get("/api/daily/2030-06-15/board/").json()
    assert (board["code"], board["par"], board["solution"]) == (
        CODE,
        len(WON),
        "/api/daily/2030-06-15/solution/",
    )
    assert api.get("/api/daily/2030-06-16/solution/").status_code == 404  # today
    assert api.get("/api/daily/2030-06-20/solution/").status_code == 404  # to come
    assert api.get("/api/daily/2030-06-01/solution/").status_code == 404  # never dealt
    assert api.get("/api/daily/16-06-2030/solution/").status_code == 400


def test_it_refuses_a_second_ranked_attempt(owner_api, owner, clock):
    first = owner_api.post("/api/daily/")
    second = owner_api.post("/api/daily/")

    assert (first.status_code, second.status_code) == (201, 409)
    assert second.json()["code"] == "attempt_exists"
    assert Game.objects.filter(owner=owner, kind="daily").count() == 1


def test_it_refuses_an_action_after_the_day_is_over(owner_api, owner, clock):
    game = attempt(owner, ["R-T2"], clock)
    clock.set(dt.datetime(2030, 6, 15, 23, 59, 59, 999999, tzinfo=dt.UTC))
    last_instant = owner_api.post(f"/api/games/{game.pk}/actions/", {"ply": 1, "action": "R-F1"})
    assert last_instant.status_code == 200

    clock.set(dt.datetime(2030, 6, 16, tzinfo=dt.UTC))
    response = owner_api.post(f"/api/games/{game.pk}/actions/", {"ply": 2, "action": "D"})

    assert response.status_code == 409
    assert response.json()["code"] == "game_over"
    game.refresh_from_db()
    assert (game.ply, game.status, game.result) == (2, "resigned", "closed")
    assert game.finished_at == dt.datetime(2030, 6, 16, tzinfo=dt.UTC)
    # ... and the code is public now.
    assert owner_api.get(f"/api/games/{game.pk}/").json()["code"] == CODE


def test_it_refuses_to_resign_after_the_day_is_over(owner_api, owner, clock):
    game = attempt(owner, ["R-T2"], clock)
    clock.advance(24 * 3600)

    response = owner_api.post(f"/api/games/{game.pk}/resign/")

    assert (response.status_code, response.json()["code"]) == (409, "game_over")


def test_it_starts_yesterdays_attempt_never_again(owner_api, owner, clock):
    attempt(owner, ["R-T2"], clock)
    clock.advance(24 * 3600)

    response = owner_api.post("/api/daily/")  # today's, not yesterday's again

    assert response.status_code == 201
    assert response.json()["daily_date"] == "2030-06-16"
