"""GET and PATCH /api/auth/me/settings/ — my choices about what others see of me: keeping my
practice games private. Each player reads and changes their own; a visitor is asked to log in, a
guest to sign up; bad input changes nothing."""

from __future__ import annotations

import pytest

from core.accounts.models import PlayerSettings
from tests.conftest import SessionClient

pytestmark = pytest.mark.django_db

URL = "/api/auth/me/settings/"


def private(user) -> bool | None:
    """The stored setting, or None when the player never chose."""
    row = PlayerSettings.objects.filter(user=user).first()
    return None if row is None else row.practice_private


def test_it_answers_the_defaults_to_a_player_who_never_chose(owner_api, owner):
    response = owner_api.get(URL)

    assert (response.status_code, response.json()) == (200, {"practice_private": False})
    assert private(owner) is None  # (a read writes nothing)


def test_it_changes_my_setting_and_no_one_else_s(owner_api, other_api, owner, other):
    response = owner_api.patch(URL, {"practice_private": True}, format="json")

    assert (response.status_code, response.json()) == (200, {"practice_private": True})
    assert owner_api.get(URL).json() == {"practice_private": True}
    assert (private(owner), private(other)) == (True, None)
    assert other_api.get(URL).json() == {"practice_private": False}

    again = owner_api.patch(URL, {"practice_private": True}, format="json")  # (idempotent)
    assert again.json() == {"practice_private": True}
    assert owner_api.patch(URL, {"practice_private": False}, format="json").json() == {
        "practice_private": False
    }
    assert private(owner) is False and PlayerSettings.objects.filter(user=owner).count() == 1


def test_it_takes_a_page_s_change_with_its_csrf_token(session_client, owner):
    refused = session_client.patch(URL, {"practice_private": True}, format="json")
    assert refused.status_code == 403
    assert private(owner) is None

    response = session_client.patch(
        URL, {"practice_private": True}, format="json", **session_client.csrf_headers()
    )
    assert response.json() == {"practice_private": True}


def test_it_asks_a_visitor_to_log_in(api):
    for response in (api.get(URL), api.patch(URL, {"practice_private": True}, format="json")):
        assert response.status_code == 401
        assert response.json()["code"] == "not_authenticated"
    assert not PlayerSettings.objects.exists()


def test_it_asks_a_guest_to_sign_up(db):
    visitor = SessionClient()
    made = visitor.post("/api/games/", {}, format="json", **visitor.csrf_headers())
    assert made.status_code == 201  # (a guest now)

    for response in (
        visitor.get(URL),
        visitor.patch(URL, {"practice_private": True}, format="json", **visitor.csrf_headers()),
    ):
        assert response.status_code == 403
        assert response.json() == {
            "code": "account_required",
            "message": "Nobody else sees a guest's games. Sign up to keep your games and to "
            "choose who may see them.",
        }
    assert not PlayerSettings.objects.exists()


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"practice_private": "yes"}, {"practice_private"}),
        ({"practice_private": 1}, {"practice_private"}),
        ({"practice_private": None}, {"practice_private"}),
        ({"practice_private": True, "public": False}, {"public"}),
        ({}, "Send at least one setting to change."),
        ([True], "Invalid data. Expected a dictionary, but got list."),
    ],
)
def test_it_refuses_bad_input_and_changes_nothing(owner_api, owner, body, fields):
    owner_api.patch(URL, {"practice_private": True}, format="json")

    response = owner_api.patch(URL, body, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    if isinstance(fields, str):  # (the whole body's error: its message)
        assert (response.json()["message"], response.json()["fields"]) == (fields, {})
    else:
        assert set(response.json()["fields"]) == fields
    assert private(owner) is True
