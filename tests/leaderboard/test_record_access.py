"""GET /api/games/<id>/record/ of another player's game — who may replay what.

Owner: always. Others: a practice game once it is over; a daily game once its UTC day is over
(code then public) — never before, even for a player whose own attempt is over: a sock puppet
that resigns at once would read everyone's attempt in progress.
"""

import pytest

from games import services as games
from tests.games.helpers import not_authenticated
from tests.leaderboard.helpers import CODE, OPENING, WON, attempt, store_deal

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


def test_it_hides_today_from_a_player_whose_attempt_is_won(other_api, other, daily, clock):
    attempt(other, WON, clock, step=0.1)

    response = record(other_api, daily)

    assert (response.status_code, response.json()) == (404, NOT_FOUND)
    assert CODE not in response.content.decode()


def test_it_hides_today_from_a_sock_puppet_that_resigned_until_the_day_is_over(
    other_api, other, daily, clock
):
    games.resign(attempt(other, [], clock), other)  # resigned at ply 0
    urls = [
        f"/api/games/{daily.pk}/record/",
        f"/api/games/{daily.pk}/record/?states=1",
        f"/api/games/{daily.pk}/",
    ]

    for url in urls:
        response = other_api.get(url)
        assert (response.status_code, response.json()) == (404, NOT_FOUND), url

    clock.set(clock.now.replace(hour=23, minute=59, second=59))  # the last instant of the day
    assert [other_api.get(url).status_code for url in urls] == [404, 404, 404]

    clock.advance(1)  # the day is over
    record_, states, detail = (other_api.get(url) for url in urls)
    assert (record_.status_code, states.status_code) == (200, 200)
    assert detail.status_code == 404  # a game's detail is its owner's alone, ever
    body = states.json()
    assert (body["code"], [m["token"] for m in body["moves"]]) == (CODE, OPENING)
    assert len(body["states"]) == len(OPENING) + 1


def test_it_always_shows_a_player_their_own_attempt(other_api, other, clock):
    mine = attempt(other, OPENING, clock)

    assert record(other_api, mine).status_code == 200
    assert other_api.get(f"/api/games/{mine.pk}/record/?states=1").status_code == 200
    assert other_api.get(f"/api/games/{mine.pk}/").status_code == 200


def test_it_does_not_count_an_attempt_of_another_day(other_api, other, daily, clock):
    clock.advance(-DAY)
    store_deal(clock.now.date())  # (the day before the clock's first)
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
    practice = "CF1-D3-QWERTYU"  # (not the daily deal's deck: that is no practice today)
    game = games.new_game(owner, code=practice)
    assert record(other_api, game).status_code == 404
    assert record(api, game).status_code == 401

    games.resign(game, owner)

    assert record(other_api, game).status_code == 200
    assert record(api, game).json()["code"] == practice
