"""The admin shows games and their move logs, read-only."""

import urllib.error
import urllib.request

import pytest
from django.contrib.auth.models import User

from tests.games.helpers import WORKED_EXAMPLE, play_tokens
from tests.support import Daphne, django_env


@pytest.fixture
def admin_client(client, db):
    client.force_login(User.objects.create_superuser("admin", password="x" * 12))
    return client


def test_it_lists_and_shows_games_with_their_moves(admin_client, game):
    play_tokens(game, WORKED_EXAMPLE)

    listing = admin_client.get("/admin/games/game/")
    page = admin_client.get(f"/admin/games/game/{game.pk}/change/")

    assert listing.status_code == page.status_code == 200
    assert "CF1-D3-AAAAACL" in listing.content.decode()
    assert "T2:2-T4" in page.content.decode()  # the move log, inline


def test_it_changes_nothing(admin_client, game):
    response = admin_client.post(f"/admin/games/game/{game.pk}/change/", {"score": 200})

    assert response.status_code == 403
    game.refresh_from_db()
    assert game.score == 0


def test_it_lists_logged_actions(admin_client, game):
    play_tokens(game, ["D"])

    assert admin_client.get("/admin/games/loggedaction/").status_code == 200


def test_it_refuses_a_player(client, game):
    client.force_login(game.owner)

    assert client.get("/admin/games/game/").status_code == 302  # to the admin's login


def test_it_is_not_served_when_switched_off(tmp_path):
    """ADMIN_ENABLED=off (as in docker-compose.yml): no admin at all."""
    env = django_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", ADMIN_ENABLED="off")
    with Daphne(env, tmp_path / "daphne.log") as server:
        for path in ("/admin/", "/admin/login/"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(f"{server.url}{path}", timeout=10)
            assert refused.value.code == 404
