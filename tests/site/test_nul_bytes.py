"""A NUL byte anywhere outside a body — path, query, cookie, header — is refused 400 with a
clear error and changes nothing (``core.security.NulByteMiddleware``). PostgreSQL refuses NUL in
any text it is given: such a request used to reach it through a lookup and answer 500."""

from __future__ import annotations

import pytest
from django.test import Client

from games import services
from games.models import Game
from tests.conftest import token_client

PATHS = [
    "/api/players/%00/",
    "/players/%00/",
    "/api/players/ab%00cd/games/",
    "/api/games/%00/",
    "/games/%00/replay/",
    "/api/daily/%00/board/",
    "/leaderboard/%00/",
]


@pytest.mark.django_db
@pytest.mark.parametrize("path", PATHS)
def test_a_nul_in_the_path_is_a_400(path):
    response = Client().get(path)
    assert response.status_code == 400
    if path.startswith("/api/"):
        assert response.json() == {
            "code": "bad_request",
            "message": "A request may not contain a NUL byte.",
        }
    else:
        assert "A request may not contain a NUL byte." in response.content.decode()


@pytest.mark.django_db
def test_a_nul_in_the_query_a_cookie_or_a_header_is_a_400(django_user_model):
    client = Client()
    assert client.get("/api/daily/", {"page": "1\x00"}).status_code == 400
    assert client.get("/api/daily/", {"p\x00": "1"}).status_code == 400
    client.cookies["sessionid"] = "abc\x00def"
    assert client.get("/api/auth/me/").status_code == 400
    assert Client(HTTP_AUTHORIZATION="Token \x00").get("/api/auth/me/").status_code == 400


@pytest.mark.django_db
def test_an_action_with_a_nul_changes_nothing(django_user_model):
    owner = django_user_model.objects.create_user("nul-owner", password="felt-green-canfield-42")
    game = services.new_game(owner, code="CF1-D3-AAAAACL")
    api = token_client(owner)
    url = f"/api/games/{game.pk}/actions/"

    assert api.post(url + "?x=%00", {"ply": 0, "action": "R-T2"}, format="json").status_code == 400
    refused = api.post(url, {"ply": 0, "action": "R-T2\x00"}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] != "server_error"

    assert Game.objects.get(pk=game.pk).ply == 0
    assert api.post(url, {"ply": 0, "action": "R-T2"}, format="json").json()["ply"] == 1
