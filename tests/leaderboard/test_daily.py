"""GET /api/daily/ and POST /api/daily/ — today's deal and my one ranked attempt."""

import datetime as dt

from games.models import Game
from leaderboard.models import DailyDeal
from tests.games.helpers import expected_game
from tests.leaderboard.helpers import CODE, OPENING, play


def test_it_gives_today_without_an_attempt(owner_api, clock):
    response = owner_api.get("/api/daily/")

    assert response.status_code == 200
    assert response.json() == {
        "date": "2030-06-15",
        "ends_at": "2030-06-16T00:00:00Z",
        "attempt": None,
        "code": None,
        "difficulty": None,
    }


def test_it_answers_anonymous_without_an_attempt(api, clock):
    response = api.get("/api/daily/")

    assert response.status_code == 200
    assert response.json()["attempt"] is None


def test_it_starts_my_ranked_attempt(owner_api, owner, clock):
    response = owner_api.post("/api/daily/")

    assert response.status_code == 201
    game = Game.objects.get(owner=owner)
    assert (game.kind, game.daily_date, game.code) == ("daily", dt.date(2030, 6, 15), CODE)
    assert (game.draw, game.variant, game.started_at) == (3, "app", None)
    assert response.json() == expected_game(game, [], code=None)


def test_it_gives_my_attempt_as_it_stands(owner_api, owner, clock):
    owner_api.post("/api/daily/")
    game = play(Game.objects.get(owner=owner), OPENING, clock)

    body = owner_api.get("/api/daily/").json()

    assert body["attempt"] == expected_game(game, OPENING, code=None)
    assert body["code"] is None


def test_it_refuses_a_second_attempt(owner_api, owner, clock):
    owner_api.post("/api/daily/")

    response = owner_api.post("/api/daily/")

    assert response.status_code == 409
    assert response.json() == {
        "code": "attempt_exists",
        "message": "You already have your ranked attempt at today's daily deal.",
    }
    assert Game.objects.filter(owner=owner).count() == 1


def test_it_refuses_a_second_attempt_after_resigning(owner_api, owner, clock):
    game_id = owner_api.post("/api/daily/").json()["id"]
    owner_api.post(f"/api/games/{game_id}/resign/")

    response = owner_api.post("/api/daily/")

    assert (response.status_code, response.json()["code"]) == (409, "attempt_exists")


def test_it_refuses_a_practice_game_of_the_days_deck_as_a_way_round(owner_api, owner, clock):
    """A practice game of today's deck (it would get hints, and a record anyone reads) is
    refused until the day is over; then it is only practice, never on the board."""
    owner_api.post("/api/daily/")

    response = owner_api.post("/api/games/", {"code": CODE})

    assert (response.status_code, response.json()["code"]) == (403, "daily_not_public")
    assert not Game.objects.filter(owner=owner, kind="practice").exists()
    # Only today and tomorrow dealt (the same deck here): once both are over, it is public.
    DailyDeal.objects.filter(date__gt=clock.now.date() + dt.timedelta(days=1)).delete()
    clock.advance(2 * 24 * 3600)
    later = owner_api.post("/api/games/", {"code": CODE})
    assert (later.status_code, later.json()["kind"]) == (201, "practice")
    assert Game.objects.filter(owner=owner, kind="daily").count() == 1


def test_it_starts_a_new_attempt_the_next_day(owner_api, owner, clock):
    owner_api.post("/api/daily/")
    clock.advance(24 * 3600)

    response = owner_api.post("/api/daily/")

    assert response.status_code == 201
    assert response.json()["daily_date"] == "2030-06-16"
    assert owner_api.get("/api/daily/").json()["attempt"]["id"] == response.json()["id"]


def test_it_refuses_anonymous_attempts(api, clock):
    response = api.post("/api/daily/")

    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
