"""The admin shows games and their move logs, read-only."""

import pytest
from django.contrib.auth.models import User

from tests.games.helpers import WORKED_EXAMPLE, play_tokens


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
