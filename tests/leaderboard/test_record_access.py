"""GET /api/games/<id>/record/ of another player's game — who may replay what.

Owner: always. Others: a practice game once it is over; today's daily game once their own ranked
attempt at today's deal is over; a past day's daily game, anyone (code then public).
"""

import pytest

from games import services as games
from tests.games.helpers import not_authenticated
from tests.leaderboard.helpers import CODE, OPENING, WON, attempt

NOT_FOUND = {"code": "not_found", "message": "No such game."}
DAY = 24 * 3600


def record(client, game):
    return client.get(f"/api/games/{game.pk}/record/")


@pytest.fixture
def daily(owner, clock):
    """The owner's attempt at today's deal, in progress."""
    return attempt(owner, OPENING, clock)


def test_it_shows_the_owner_their_attempt_in_progress(owner_api, daily):
    response = record(owner_api, daily)

    assert response.status_code == 200
    assert response.json()["code"] is None


def test_it_hides_today_from_a_player_whose_attempt_is_in_progress(other_api, other, daily, clock):
    attempt(other, ["D"], clock)

    response = record(other_api, daily)

    assert (response.status_code, response.json()) == (404, NOT_FOUND)


def test_it_hides_today_from_a_player_whose_attempt_has_not_started(other_api, other, daily):
    attempt(other)

    assert record(other_api, daily).status_code == 404


def test_it_hides_today_from_a_player_without_an_attempt(other_api, daily):
    assert record(other_api, daily).status_code == 404


def test_it_hides_today_from_anonymous(api, daily):
    response = record(api, daily)

    assert (response.status_code, response.json()) == (401, not_authenticated())


def test_it_shows_today_to_a_player_whose_attempt_is_won(other_api, other, daily, clock):
    attempt(other, WON, clock, step=0.1)

    response = record(other_api, daily)

    assert response.status_code == 200
    body = response.json()
    assert (body["player"], body["code"], [m["token"] for m in body["moves"]]) == (
        "owner",
        None,
        OPENING,
    )
    assert CODE not in response.content.decode()


def test_it_shows_today_to_a_player_who_resigned(other_api, other, daily, clock):
    games.resign(attempt(other, ["D"], clock), other)

    assert record(other_api, daily).status_code == 200


def test_it_shows_today_with_its_states_to_a_player_who_resigned(other_api, other, daily, clock):
    games.resign(attempt(other, ["D"], clock), other)

    body = other_api.get(f"/api/games/{daily.pk}/record/?states=1").json()

    assert len(body["states"]) == len(OPENING) + 1


def test_it_does_not_count_an_attempt_of_another_day(other_api, other, daily, clock):
    clock.advance(-DAY)
    games.resign(attempt(other, ["D"], clock), other)  # yesterday's attempt, over
    clock.advance(DAY)

    assert record(other_api, daily).status_code == 404


def test_it_shows_a_past_days_games_to_anyone(api, other_api, daily, clock):
    clock.advance(DAY)

    for client in (api, other_api):
        response = record(client, daily)
        assert response.status_code == 200
        assert (response.json()["code"], response.json()["result"]) == (CODE, "closed")


def test_it_shows_a_practice_game_to_others_once_it_is_over(api, other_api, owner, clock):
    game = games.new_game(owner, code=CODE)
    assert record(other_api, game).status_code == 404
    assert record(api, game).status_code == 401

    games.resign(game, owner)

    assert record(other_api, game).status_code == 200
    assert record(api, game).json()["code"] == CODE
