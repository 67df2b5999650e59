"""GET /api/games/<id>/hint/ — the next action of a winning line, for practice games only."""

from __future__ import annotations

import pytest

from games import services
from games.engine import Action, Canfield
from games.models import Game
from tests.games.helpers import CODE, WORKED_EXAMPLE, act, not_authenticated, not_found, play_tokens

#: A deal the solver proves lost at once (about 12,000 positions).
LOST = "CF1-D3-QJQSXIA"
#: A deal whose first win takes the solver some 800,000 positions: in 0.1 s it cannot tell.
HARD = "CF1-D3-OMQHOSD"


@pytest.fixture(autouse=True)
def quick_hints(settings):
    settings.HINT_SECONDS = 2.0


def hint(client, game):
    return client.get(f"/api/games/{game.pk}/hint/")


def unchanged(game):
    """The game's stored counters, log and views: what a hint must never change."""
    game.refresh_from_db()
    return (game.ply, game.status, game.views, list(game.log.values_list("token", flat=True)))


def test_it_gives_the_next_action_of_a_winning_line(owner_api, game):
    play_tokens(game, WORKED_EXAMPLE)
    before = unchanged(game)

    response = hint(owner_api, game)

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"outcome", "action", "remaining"}
    assert body["outcome"] == "win"
    assert body["remaining"] >= 52 - 2  # every card still off the foundations needs a move
    engine = Canfield.replay(CODE, WORKED_EXAMPLE)
    assert Action.parse(body["action"]) in engine.legal_moves
    assert unchanged(game) == before  # a hint never changes the game


def test_following_the_hints_wins_the_game(owner_api, game, throttle_rates):
    throttle_rates(hints=None, actions=None)
    remaining = None
    for ply in range(400):
        body = hint(owner_api, game).json()
        assert body["outcome"] == "win"
        if remaining is not None:
            assert body["remaining"] == remaining - 1  # the same line, one action on
        remaining = body["remaining"]
        played = act(owner_api, game.pk, ply, action=body["action"])
        assert played.status_code == 200, played.json()
        if played.json()["status"] == "won":
            break
    game.refresh_from_db()
    assert game.status == "won"
    assert remaining == 1


def test_it_says_when_no_win_exists(owner_api, owner):
    game = services.new_game(owner, code=LOST)

    assert hint(owner_api, game).json() == {"outcome": "no_win"}


def test_it_says_when_it_cannot_tell_in_time(owner_api, owner, settings):
    settings.HINT_SECONDS = 0.1
    game = services.new_game(owner, code=HARD)

    assert hint(owner_api, game).json() == {"outcome": "unknown"}


def test_it_refuses_a_daily_attempt_in_progress(owner_api, daily_game):
    play_tokens(daily_game, ["D"])
    before = unchanged(daily_game)

    response = hint(owner_api, daily_game)

    assert response.status_code == 403
    assert response.json() == {
        "code": "hints_not_allowed",
        "message": "No hints for a ranked daily attempt: a hint knows hidden cards.",
    }
    assert unchanged(daily_game) == before


def test_it_refuses_a_finished_game(owner_api, game):
    services.resign(game, game.owner)

    response = hint(owner_api, game)

    assert response.status_code == 409
    assert response.json()["code"] == "game_over"


def test_it_refuses_a_finished_daily_attempt_as_over(owner_api, daily_game):
    services.resign(daily_game, daily_game.owner)

    response = hint(owner_api, daily_game)

    assert (response.status_code, response.json()["code"]) == (409, "game_over")


def test_it_hides_another_players_game(other_api, game):
    response = hint(other_api, game)

    assert (response.status_code, response.json()) == (404, not_found())


def test_it_refuses_anonymous(api, game):
    response = hint(api, game)

    assert (response.status_code, response.json()) == (401, not_authenticated())


def test_it_answers_a_game_that_does_not_exist(owner_api):
    assert owner_api.get("/api/games/987654/hint/").status_code == 404


def test_it_is_rate_limited(owner_api, game, throttle_rates):
    throttle_rates(hints="1/min")

    assert hint(owner_api, game).status_code == 200
    response = hint(owner_api, game)

    assert response.status_code == 429
    assert response.json()["code"] == "throttled"
    assert Game.objects.get(pk=game.pk).ply == 0
