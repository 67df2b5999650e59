"""Input is read as the schema says, no more leniently: a query parameter given twice or empty, a
page or a flag written otherwise than documented, a number sent as text, a key the body does not
have — each is 400 invalid naming the field, never silently read as something else."""

from __future__ import annotations

import datetime as dt

import pytest

from games import services
from games.models import LoggedAction

TODAY = dt.datetime.now(dt.UTC).date().isoformat()
PAGED = ["/api/games/", "/api/daily/days/", f"/api/daily/{TODAY}/board/", "/api/players/owner/"]


def refused(response, field: str) -> None:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid" and list(body["fields"]) == [field], body


@pytest.mark.parametrize("path", PAGED)
@pytest.mark.parametrize("query", ["page=", "page=1&page=2", "page=1.0", "page=+1", "page=%201"])
def test_it_refuses_a_page_written_otherwise(owner_api, path, query):
    refused(owner_api.get(f"{path}?{query}"), "page")


@pytest.mark.parametrize("path", PAGED)
def test_it_reads_a_page_written_in_digits(owner_api, path):
    assert owner_api.get(f"{path}?page=1").status_code == 200


@pytest.mark.parametrize("query", ["status=", "status=won&status=resigned", "kind="])
def test_it_refuses_an_empty_or_repeated_filter(owner_api, query):
    refused(owner_api.get(f"/api/games/?{query}"), query.split("=")[0])


@pytest.fixture
def record(owner) -> str:
    game = services.new_game(owner, code="CF1-D3-AAAAACL")
    return f"/api/games/{game.pk}/record/"


@pytest.mark.parametrize("value", ["", "yes", "on", "True", "2", "1&states=0"])
def test_it_refuses_a_flag_written_otherwise(owner_api, record, value):
    refused(owner_api.get(f"{record}?states={value}"), "states")


@pytest.mark.parametrize(("value", "states"), [("1", True), ("true", True), ("0", False)])
def test_it_reads_the_documented_flags(owner_api, record, value, states):
    body = owner_api.get(f"{record}?states={value}").json()

    assert ("states" in body) is states


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ply": "0", "action": "D"}, "ply"),
        ({"ply": 0.0, "action": "D"}, "ply"),
        ({"ply": False, "action": "D"}, "ply"),
        ({"ply": 0, "action": 7}, "action"),
        ({"ply": 0, "tap": "S", "index": "1"}, "index"),
        ({"ply": 0, "tap": "S", "double_click": "false"}, "double_click"),
        ({"ply": 0, "tap": "S", "double_click": 0}, "double_click"),
        ({"ply": 0, "action": "D", "double_click": True}, "double_click"),
        ({"ply": 0, "action": "D", "colour": "red"}, "colour"),
    ],
)
def test_it_refuses_an_action_of_the_wrong_types(owner_api, owner, body, field):
    game = services.new_game(owner, code="CF1-D3-AAAAACL")

    refused(owner_api.post(f"/api/games/{game.pk}/actions/", body, format="json"), field)
    assert not LoggedAction.objects.filter(game=game).exists()


@pytest.mark.parametrize("username", ["alice\n", " alice", "alice "])
def test_it_refuses_a_username_it_would_have_trimmed(api, username):
    response = api.post(
        "/api/auth/signup/", {"username": username, "password": "felt-green-canfield"}
    )

    refused(response, "username")
