"""A replay and a record name the game's current owner: a game finished by a guest who then signs
up is shown under the account's name — to its player and to anyone — never under the old
``guest-…`` name, whatever was built or kept before the sign-up. A replay's address that names
no game is the 404 page."""

from __future__ import annotations

import gzip
import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from core.accounts.guests import PREFIX
from games import pool_jobs, records
from games.models import Game, StoredRecord
from tests.conftest import PASSWORD, SessionClient
from tests.games.helpers import CODE, WORKED_EXAMPLE, utc_today, winning_line

pytestmark = pytest.mark.django_db


def guest_plays(client: SessionClient, tokens: list[str]) -> int:
    """A visitor's practice game of ``CODE`` with ``tokens`` played (which makes them a guest)."""
    headers = client.csrf_headers()
    game_id: int = client.post("/api/games/", {"code": CODE}, format="json", **headers).json()["id"]
    for ply, token in enumerate(tokens):
        response = client.post(
            f"/api/games/{game_id}/actions/",
            {"ply": ply, "action": token},
            format="json",
            **client.csrf_headers(),
        )
        assert response.status_code == 200, response.json()
    return game_id


def sign_up(client: SessionClient, username: str) -> None:
    response = client.post(
        "/api/auth/signup/",
        {"username": username, "password": PASSWORD},
        format="json",
        **client.csrf_headers(),
    )
    assert response.status_code == 201, response.json()


def names(record: dict[str, object]) -> tuple[object, bool]:
    """The player a record names, and whether its text names any guest."""
    return record["player"], PREFIX in str(record["text"])


@pytest.mark.django_db(transaction=True)  # (the keeping task is enqueued on commit)
def test_a_game_won_as_a_guest_is_shown_under_the_account_s_name_after_sign_up(api):
    visitor = SessionClient()
    game_id = guest_plays(visitor, winning_line())
    guest_name = Game.objects.get(pk=game_id).owner.username
    assert guest_name.startswith(PREFIX)
    # Read as a guest's, by the guest and by anyone, with and without its states: it names the
    # guest, and nothing that names a guest is kept — not by a reader, not by the worker tier.
    for reader in (visitor, api):
        for states in (0, 1):
            record = reader.get(f"/api/games/{game_id}/record/", {"states": states}).json()
            assert (record["result"], record["player"]) == ("won", guest_name)
    assert records.keep(game_id) == 0
    assert not StoredRecord.objects.filter(game_id=game_id).exists()

    sign_up(visitor, "newcomer")

    for reader in (visitor, api, api):  # (the second read is the kept record's)
        for states in (0, 1):
            record = reader.get(f"/api/games/{game_id}/record/", {"states": states}).json()
            assert names(record) == ("newcomer", False)
            assert '[Player "newcomer"]' in record["text"]
    assert StoredRecord.objects.filter(game_id=game_id).count() == 2  # kept, as an account's


def test_a_record_built_from_the_game_as_it_was_before_the_sign_up_is_not_kept():
    """A reader that read the game while a guest owned it (a sign-up committed meanwhile) builds
    a record naming the guest: it is served to that reader, never kept for the next."""
    visitor = SessionClient()
    game_id = guest_plays(visitor, WORKED_EXAMPLE)
    resign = visitor.post(f"/api/games/{game_id}/resign/", **visitor.csrf_headers())
    assert resign.status_code == 200
    read_before = Game.objects.select_related("owner").get(pk=game_id)
    guest_name = read_before.owner.username

    sign_up(visitor, "latecomer")

    built = records.record_of(read_before, utc_today())
    assert json.loads(gzip.decompress(built.gzipped))["player"] == guest_name  # (as it read it)
    assert not StoredRecord.objects.filter(game_id=game_id).exists()
    record = Client().get(f"/api/games/{game_id}/record/").json()
    assert names(record) == ("latecomer", False)


def test_kept_records_naming_a_guest_are_forgotten_when_they_sign_up():
    """Records kept under a guest's name (as before guests' records were no longer kept) are
    forgotten when the guest's games move to an account: the next reader builds them anew."""
    visitor = SessionClient()
    game_id = guest_plays(visitor, WORKED_EXAMPLE)
    visitor.post(f"/api/games/{game_id}/resign/", **visitor.csrf_headers())
    StoredRecord.objects.bulk_create(
        StoredRecord(
            game_id=game_id,
            states=states,
            body=b"kept under the guest's name",
            etag="old",
            size=27,
            version=pool_jobs.RECORD_VERSION,
        )
        for states in (False, True)
    )

    sign_up(visitor, "keeper")

    assert not StoredRecord.objects.filter(game_id=game_id).exists()
    for states in (0, 1):
        record = Client().get(f"/api/games/{game_id}/record/", {"states": states}).json()
        assert names(record) == ("keeper", False)


@pytest.mark.parametrize("path", ["/games/999999/replay/", "/games/abc/replay/", "/games/999999/"])
def test_a_replay_or_game_address_naming_no_game_is_the_404_page(
    client: Client, owner: User, path: str
) -> None:
    for viewer in (None, owner):
        if viewer is not None:
            client.force_login(viewer)
        response = client.get(path)
        assert response.status_code == 404
        html = response.content.decode()
        assert 'data-error-status="404"' in html
        assert "No such game." in html
        assert "replay.js" not in html and "game.js" not in html


def test_the_404_page_speaks_the_viewer_s_language(client: Client) -> None:
    response = client.get("/games/abc/replay/", HTTP_ACCEPT_LANGUAGE="fi")
    assert response.status_code == 404
    assert response["Content-Language"] == "fi"
    assert 'lang="fi"' in response.content.decode()
