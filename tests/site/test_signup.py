import datetime as dt
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from knox.crypto import hash_token  # type: ignore[import-untyped,unused-ignore]

from core.accounts import auth, hashing
from core.accounts.serializers import USERNAME_RULES, USERNAME_TAKEN
from tests.conftest import PASSWORD
from tests.games.helpers import iso

URL = "/api/auth/signup/"


def test_it_signs_up_and_logs_the_session_in(api):
    response = api.post(URL, {"username": "Alice_1", "password": PASSWORD})

    assert response.status_code == 201
    user = User.objects.get(username="Alice_1")
    token = auth.token_model().objects.get(user=user)
    body = response.json()
    assert body == {"username": "Alice_1", "token": body["token"], "expires_at": iso(token.expiry)}
    assert token.digest == hash_token(body["token"])  # (only a hash of it is kept)
    assert abs(token.expiry - token.created - dt.timedelta(days=30)) < dt.timedelta(seconds=1)
    assert user.check_password(PASSWORD)
    assert api.get("/api/auth/me/").json() == {"username": "Alice_1", "guest": False}


def test_it_gives_a_token_that_authenticates(api):
    token = api.post(URL, {"username": "alice", "password": PASSWORD}).json()["token"]

    api.logout()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.get("/api/auth/me/").json() == {"username": "alice", "guest": False}


@pytest.mark.parametrize("taken", ["alice", "ALICE", "aLiCe"])
def test_it_refuses_a_taken_username_ignoring_case(api, taken):
    User.objects.create_user(taken, password=PASSWORD)

    response = api.post(URL, {"username": "Alice", "password": PASSWORD})

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "message": f"username: {USERNAME_TAKEN}",
        "fields": {"username": [USERNAME_TAKEN]},
    }
    assert User.objects.count() == 1


@pytest.mark.parametrize(
    "username", ["ab", "a" * 31, "two words", "émile", "bob!", "a.b.c", "tab\there"]
)
def test_it_refuses_a_bad_username(api, username):
    response = api.post(URL, {"username": username, "password": PASSWORD})

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "message": f"username: {USERNAME_RULES}",
        "fields": {"username": [USERNAME_RULES]},
    }
    assert not User.objects.exists()


@pytest.mark.parametrize("username", ["abc", "a" * 30, "Under_score-dash", "007"])
def test_it_accepts_the_username_alphabet(api, username):
    response = api.post(URL, {"username": username, "password": PASSWORD})

    assert response.status_code == 201
    assert response.json()["username"] == username


@pytest.mark.parametrize(
    ("password", "messages"),
    [
        ("password", ["This password is too common."]),
        ("84736251", ["This password is entirely numeric."]),
        (
            "zq9!",
            ["This password is too short. It must contain at least 8 characters."],
        ),
        ("carolcarol1", ["The password is too similar to the username."]),
    ],
)
def test_it_refuses_a_weak_password(api, password, messages):
    response = api.post(URL, {"username": "carolcarol", "password": password})

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "message": "password: " + " ".join(messages),
        "fields": {"password": messages},
    }
    assert not User.objects.exists()


def test_it_refuses_missing_fields(api):
    response = api.post(URL, {})

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "message": "username: This field is required. password: This field is required.",
        "fields": {
            "username": ["This field is required."],
            "password": ["This field is required."],
        },
    }


def test_it_refuses_malformed_json(api):
    response = api.post(URL, data='{"username": "alice",', content_type="application/json")

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "malformed"
    assert body["message"].startswith("JSON parse error")
    assert set(body) == {"code", "message"}


def test_it_refuses_json_that_is_not_an_object(api):
    response = api.post(URL, data=["alice", PASSWORD])

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "message": "Invalid data. Expected a dictionary, but got list.",
        "fields": {},
    }


def test_it_wants_json(api):
    response = api.post(URL, {"username": "alice", "password": PASSWORD}, format="multipart")

    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"


def test_it_keeps_case_insensitive_uniqueness_in_the_database(db):
    User.objects.create_user("Carol")

    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("cAROL")


def test_it_answers_a_lost_race_for_the_name_as_taken(api):
    User.objects.create_user("dave", password=PASSWORD)

    # Another sign-up takes the name between the check and the insert.
    with mock.patch("core.accounts.serializers.username_taken", return_value=False):
        response = api.post(URL, {"username": "Dave", "password": PASSWORD})

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "message": f"username: {USERNAME_TAKEN}",
        "fields": {"username": [USERNAME_TAKEN]},
    }
    assert User.objects.count() == 1


def test_it_answers_busy_when_no_hashing_slot_is_free_and_creates_nothing(api, settings):
    settings.LOGIN_HASH_SLOTS = 1
    settings.LOGIN_HASH_WAIT = 0

    with hashing.slot():  # (the process's one slot, held)
        response = api.post(URL, {"username": "alice", "password": PASSWORD})

    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    assert response.json() == {
        "code": "busy",
        "message": "Too many people are logging in right now. Please try again in a moment.",
        "retry_after": 1,
    }
    assert not User.objects.exists()
    assert api.post(URL, {"username": "alice", "password": PASSWORD}).status_code == 201
