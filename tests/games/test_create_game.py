"""POST /api/games/ — start a practice game."""

import dataclasses

import pytest

from games import services
from games.engine import DealCode
from games.errors import GameError
from games.models import Game
from tests.games.helpers import CODE, engine_after, expected_game, utc_today


def test_it_creates_a_game_by_code(owner_api, owner):
    response = owner_api.post("/api/games/", {"code": CODE})

    assert response.status_code == 201
    game = Game.objects.get(owner=owner)
    body = response.json()
    assert body.pop("deal") == {"source": "code", "winnable": None, "message": None}
    assert body == expected_game(game, [])
    assert game.views == services.views_from(engine_after(CODE, []))
    assert game.log.count() == 0


def test_it_shows_the_worked_examples_starting_position(owner_api):
    state = owner_api.post("/api/games/", {"code": CODE}).json()["state"]

    assert state["stock"] == {"count": 34}
    assert state["waste"] == {"count": 0, "cards": []}
    assert state["reserve"] == {"top": "QC", "count": 13}
    assert state["foundations"] == [
        {"suit": "H", "start": "7", "cards": ["7H"]},
        {"suit": "S", "start": "7", "cards": []},
        {"suit": "D", "start": "7", "cards": []},
        {"suit": "C", "start": "7", "cards": []},
    ]
    assert state["columns"] == [["6C"], ["KH"], ["QH"], ["AS"]]


def test_it_deals_a_random_game_by_default(owner_api, owner):
    response = owner_api.post("/api/games/", {})

    assert response.status_code == 201
    body = response.json()
    code = DealCode.parse(body["code"])
    assert (code.draw, code.variant) == (3, "app")
    assert body.pop("deal")["source"] == "random"  # (no deal proved winnable waits here)
    assert body == expected_game(Game.objects.get(owner=owner), [])


@pytest.mark.parametrize(
    ("request_body", "code_prefix"),
    [
        ({"draw": 1}, "CF1-D1-"),
        ({"draw": 3, "variant": "classic"}, "CF1-H3-"),
        ({"draw": 1, "variant": "classic"}, "CF1-H1-"),
    ],
)
def test_it_deals_a_random_game_with_the_chosen_rules(owner_api, request_body, code_prefix):
    body = owner_api.post("/api/games/", request_body).json()

    assert body["code"].startswith(code_prefix)
    assert body["state"] == engine_after(body["code"], []).player_view(sees_hidden=True)


def test_it_takes_draw_and_rules_from_the_code(owner_api):
    body = owner_api.post("/api/games/", {"code": "CF1-H1-AAAAACL"}).json()

    assert (body["code"], body["draw"], body["variant"]) == ("CF1-H1-AAAAACL", 1, "classic")
    assert body["state"] == engine_after("CF1-H1-AAAAACL", []).player_view(sees_hidden=True)


def test_it_plays_a_codes_layout_with_the_draw_asked_for(owner_api):
    body = owner_api.post("/api/games/", {"code": CODE, "draw": 1}).json()

    assert (body["code"], body["draw"], body["variant"]) == ("CF1-D1-AAAAACL", 1, "app")


#: The worked example's layout as a CF2 code (docs/deal-format.md).
CF2_CODE = "CF2-D3-6FTH6SEZNBEqW5gpkKZBnVXVGovdVsct6WFe1PZyq"


@pytest.fixture
def dealt_here(other):
    """The worked example dealt here (by its CF1 code, to another player): its CF2 form plays
    (tests/leaderboard/test_dealt_decks.py: the decks the server plays, and those it refuses)."""
    services.new_game(other, code=CODE)


def test_it_creates_a_game_by_cf2_code(owner_api, owner, dealt_here):
    response = owner_api.post("/api/games/", {"code": CF2_CODE})

    assert response.status_code == 201
    game = Game.objects.get(owner=owner)
    assert (game.code, response.json()["code"]) == (CF2_CODE, CF2_CODE)
    assert {k: v for k, v in response.json().items() if k != "deal"} == expected_game(game, [])
    # The same layout as the CF1 code of the worked example, and it plays the same.
    assert response.json()["state"] == engine_after(CF2_CODE, []).player_view(sees_hidden=True)
    assert (
        engine_after(CF2_CODE, []).full_view()["reserve"]
        == (engine_after(CODE, []).full_view()["reserve"])
    )


def test_it_plays_a_cf2_layout_with_the_draw_asked_for(owner_api, dealt_here):
    body = owner_api.post("/api/games/", {"code": CF2_CODE, "draw": 1, "variant": "classic"}).json()

    expected = dataclasses.replace(DealCode.parse(CF2_CODE), draw=1, variant="classic")
    assert body["code"] == str(expected)
    assert body["code"].startswith("CF2-H1-")
    assert (body["draw"], body["variant"]) == (1, "classic")


def test_it_refuses_the_cf2_code_of_a_deck_never_dealt_here(owner_api, owner):
    response = owner_api.post("/api/games/", {"code": CF2_CODE})

    assert response.status_code == 400
    assert response.json() == {
        "code": "unknown_deal",
        "message": "This code is not a deal this server has dealt: start a random deal, a "
        "numbered deal (a CF1 code), a past day's daily deal, or the code of a game someone "
        "played here.",
    }
    assert not Game.objects.exists()


def test_it_refuses_a_mistyped_cf2_code(owner_api, owner):
    mistyped = CF2_CODE[:10] + ("Z" if CF2_CODE[10] != "Z" else "Y") + CF2_CODE[11:]

    response = owner_api.post("/api/games/", {"code": mistyped})

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_code"
    assert "mistyped" in response.json()["message"]
    assert not Game.objects.filter(owner=owner).exists()


def test_it_refuses_a_bad_code(owner_api):
    response = owner_api.post("/api/games/", {"code": "CF1-D4-AAAAACL"})

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid_code",
        "reason": "bad_mode",
        "message": "'CF1-D4-AAAAACL': the mode must be D3 or D1 (standard rules) or H3 or H1 "
        "(classic rules).",
    }
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    ("request_body", "field"),
    [
        ({"draw": 2}, "draw"),
        ({"draw": "three"}, "draw"),
        ({"variant": "vegas"}, "variant"),
        ({"code": 12}, "code"),  # a number is not a code, nor text
        ({"draw": "3"}, "draw"),  # the number, not its text
        ({"draw": True}, "draw"),
        ({"code": CODE, "colour": "red"}, "colour"),  # no key but the body's own
        ({"code": "nope"}, None),  # text that is no code: the engine says why
    ],
)
def test_it_refuses_an_invalid_body(owner_api, request_body, field):
    response = owner_api.post("/api/games/", request_body)

    assert response.status_code == 400
    body = response.json()
    if field is None:
        assert body["code"] == "invalid_code"
    else:
        assert body["code"] == "invalid"
        assert list(body["fields"]) == [field]
    assert not Game.objects.exists()


def test_it_refuses_a_body_that_is_not_json(owner_api):
    response = owner_api.post("/api/games/", "{not json", content_type="application/json")

    assert response.status_code == 400
    assert response.json()["code"] == "malformed"


def test_it_makes_a_visitor_a_guest(api):
    """(tests/site/test_guests.py: what a guest may do and may not)"""
    response = api.post("/api/games/", {"code": CODE})

    assert response.status_code == 201
    game = Game.objects.get()
    assert game.owner.guest is not None
    assert response.json()["player"] == game.owner.username


def test_it_works_with_the_session_and_its_csrf_token(session_client):
    refused = session_client.post("/api/games/", {"code": CODE}, format="json")
    created = session_client.post(
        "/api/games/", {"code": CODE}, format="json", **session_client.csrf_headers()
    )

    assert refused.status_code == 403
    assert created.status_code == 201


def test_it_announces_the_new_game(owner_api, signals_sent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game_id = owner_api.post("/api/games/", {"code": CODE}).json()["id"]

    assert signals_sent == [("standing_changed", game_id)]


def test_it_allows_one_daily_attempt_per_player_and_day(owner, other, daily_code):
    today = utc_today()
    services.new_game(owner, code=daily_code, kind="daily", daily_date=today)

    with pytest.raises(GameError) as refused:
        services.new_game(owner, code=daily_code, kind="daily", daily_date=today)

    assert refused.value.code == "attempt_exists"
    services.new_game(other, code=daily_code, kind="daily", daily_date=today)
    services.new_game(owner, code=CODE)  # practice games are unlimited
    services.new_game(owner, code=CODE)
    assert Game.objects.filter(kind="daily").count() == 2
