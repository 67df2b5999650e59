"""POST /api/games/<id>/resign/ — end my game as it stands."""

import datetime as dt

from games.models import Game
from tests.games.helpers import (
    WORKED_EXAMPLE,
    expected_game,
    not_authenticated,
    not_found,
    play_tokens,
    utc_today,
)


def test_it_resigns_my_game(owner_api, game, signals_sent, django_capture_on_commit_callbacks):
    play_tokens(game, WORKED_EXAMPLE)

    with django_capture_on_commit_callbacks(execute=True):
        response = owner_api.post(f"/api/games/{game.pk}/resign/")

    assert response.status_code == 200
    game.refresh_from_db()
    assert game.finished_at is not None
    assert response.json() == expected_game(
        game, WORKED_EXAMPLE, status="resigned", result="resigned"
    )
    assert signals_sent == [("standing_changed", game.pk)]


def test_it_resigns_a_game_before_its_first_action(owner_api, game):
    body = owner_api.post(f"/api/games/{game.pk}/resign/").json()

    assert (body["status"], body["started_at"], body["ply"]) == ("resigned", None, 0)
    assert body["finished_at"] is not None


def test_it_refuses_to_resign_twice(owner_api, game):
    owner_api.post(f"/api/games/{game.pk}/resign/")

    response = owner_api.post(f"/api/games/{game.pk}/resign/")

    assert response.status_code == 409
    assert response.json() == {
        "code": "game_over",
        "message": "This game was resigned: it accepts no more actions.",
    }


def test_it_refuses_to_resign_a_daily_attempt_whose_day_is_over(owner_api, daily_game):
    Game.objects.filter(pk=daily_game.pk).update(daily_date=utc_today() - dt.timedelta(days=1))

    response = owner_api.post(f"/api/games/{daily_game.pk}/resign/")

    assert response.status_code == 409
    assert response.json()["message"] == (
        "This game was closed when its day ended: it accepts no more actions."
    )
    daily_game.refresh_from_db()
    assert daily_game.result == "closed"  # the closing stands


def test_it_hides_another_players_game(other_api, game):
    response = other_api.post(f"/api/games/{game.pk}/resign/")

    assert response.status_code == 404
    assert response.json() == not_found()
    game.refresh_from_db()
    assert game.status == "in_progress"


def test_it_refuses_anonymous(api, game):
    response = api.post(f"/api/games/{game.pk}/resign/")

    assert response.status_code == 401
    assert response.json() == not_authenticated()
    game.refresh_from_db()
    assert game.status == "in_progress"
