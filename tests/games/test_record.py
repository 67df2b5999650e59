"""GET /api/games/<id>/record/ — a game's record: its move log as JSON and as text."""

import pytest

from games import services
from games.engine import GameRecord, verify_record
from tests.games.helpers import (
    CODE,
    WORKED_EXAMPLE,
    engine_after,
    not_authenticated,
    not_found,
    play_tokens,
    utc_today,
    winning_line,
)


def test_it_gives_the_record_of_my_game(owner_api, game):
    play_tokens(game, [*WORKED_EXAMPLE, "D", "U"])

    response = owner_api.get(f"/api/games/{game.pk}/record/")

    assert response.status_code == 200
    today = utc_today().isoformat()
    assert response.json() == {
        "id": game.pk,
        "code": CODE,
        "draw": 3,
        "variant": "app",
        "player": "owner",
        "kind": "practice",
        "daily_date": None,
        "status": "in_progress",
        "result": "in_progress",
        "score": 5,
        "moves": [
            {"ply": 0, "token": "R-T2", "score": 0},
            {"ply": 1, "token": "R-F1", "score": 5},
            {"ply": 2, "token": "T2:2-T4", "score": 5},
            {"ply": 3, "token": "D", "score": 5},
            {"ply": 4, "token": "U", "score": 5},
        ],
        "text": (
            '[Code "CF1-D3-AAAAACL"]\n[Variant "app"]\n[Draw "3"]\n[Player "owner"]\n'
            f'[Date "{today}"]\n[Result "in_progress"]\n[Score "5"]\n\n'
            "R-T2 R-F1 T2:2-T4 D U\n"
        ),
    }


def test_its_text_replays_to_the_won_game(owner_api, game):
    line = winning_line()
    play_tokens(game, line)

    text = owner_api.get(f"/api/games/{game.pk}/record/").json()["text"]

    record = GameRecord.parse(text)
    assert (record.result, record.score, record.tokens) == ("won", 255, line)
    assert verify_record(record).ok


def test_it_gives_the_view_at_every_ply_on_request(owner_api, game):
    tokens = [*WORKED_EXAMPLE, "D", "U"]
    play_tokens(game, tokens)

    body = owner_api.get(f"/api/games/{game.pk}/record/?states=1").json()

    assert body["states"] == [engine_after(CODE, tokens[:n]).player_view() for n in range(6)]


def test_it_leaves_the_code_out_of_todays_daily_record(owner_api, daily_game):
    play_tokens(daily_game, ["D"])
    services.resign(daily_game, daily_game.owner)

    body = owner_api.get(f"/api/games/{daily_game.pk}/record/").json()

    assert body["code"] is None
    assert "CF1-" not in body["text"]
    assert body["text"].startswith('[Variant "app"]\n[Draw "3"]\n[Player "owner"]\n')
    assert body["text"].endswith('[Result "resigned"]\n[Score "0"]\n\nD\n')


def test_it_hides_another_players_record(other_api, game):
    response = other_api.get(f"/api/games/{game.pk}/record/")

    assert response.status_code == 404
    assert response.json() == not_found()


def test_it_refuses_anonymous(api, game):
    response = api.get(f"/api/games/{game.pk}/record/")

    assert response.status_code == 401
    assert response.json() == not_authenticated()


def test_it_answers_404_for_a_game_that_does_not_exist(owner_api, api, game):
    assert owner_api.get(f"/api/games/{game.pk + 1}/record/").status_code == 404
    response = api.get(f"/api/games/{game.pk + 1}/record/")  # a visitor: not "log in" either
    assert (response.status_code, response.json()) == (404, not_found())


def test_it_asks_can_view_record_who_may_read_it(api, other_api, game, monkeypatch):
    """The leaderboard widens can_view_record for replays; the view follows it, anonymous too."""
    services.resign(game, game.owner)
    monkeypatch.setattr(services, "can_view_record", lambda user, game: True)

    assert other_api.get(f"/api/games/{game.pk}/record/").status_code == 200
    assert api.get(f"/api/games/{game.pk}/record/").json()["player"] == "owner"


@pytest.mark.parametrize("query", ["?states=maybe"])
def test_it_refuses_a_bad_query(owner_api, game, query):
    response = owner_api.get(f"/api/games/{game.pk}/record/{query}")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"


def test_it_limits_records_with_every_state(owner_api, api, game, throttle_rates):
    throttle_rates(states="2/min")
    services.resign(game, game.owner)  # (anyone may read a finished practice game)
    url = f"/api/games/{game.pk}/record/"
    for _ in range(2):
        assert owner_api.get(url, {"states": "1"}).status_code == 200

    refused = owner_api.get(url, {"states": "true"})

    assert (refused.status_code, refused.json()["code"]) == (429, "throttled")
    assert 59 <= int(refused["Retry-After"]) <= 60
    assert owner_api.get(url).status_code == 200  # a record without the states is not limited
    assert owner_api.get(url, {"states": "0"}).status_code == 200
    assert api.get(url, {"states": "1"}).status_code == 200  # anonymous: counted by address
