from typing import Any

from django.contrib.auth.models import User
from knox.crypto import hash_token  # type: ignore[import-untyped,unused-ignore]
from rest_framework.test import APIClient

from core.accounts import auth
from tests.conftest import PASSWORD, SessionClient, token_of

URL = "/api/auth/logout/"
INVALID = {"code": "not_authenticated", "message": "Invalid token."}


def tokens(user: User) -> Any:
    return auth.token_model().objects.filter(user=user)


def script(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_it_ends_the_session(session_client):
    response = session_client.post(URL, **session_client.csrf_headers())

    assert response.status_code == 204
    assert response.content == b""
    assert session_client.get("/api/auth/me/").status_code == 401


def test_it_ends_the_token_its_log_in_gave(owner):
    """The page's log-in answers a token too: logging that session out ends it."""
    browser = SessionClient()
    given = browser.post("/api/auth/login/", {"username": "owner", "password": PASSWORD}).json()
    assert script(given["token"]).get("/api/auth/me/").json() == {
        "username": "owner",
        "guest": False,
    }

    response = browser.post(URL, **browser.csrf_headers())

    assert response.status_code == 204
    assert not tokens(owner).exists()
    assert script(given["token"]).get("/api/auth/me/").json() == INVALID
    assert browser.get("/api/auth/me/").status_code == 401


def test_it_ends_the_token_its_sign_up_gave(db):
    browser = SessionClient()
    given = browser.post("/api/auth/signup/", {"username": "newbie", "password": PASSWORD}).json()

    browser.post(URL, **browser.csrf_headers())

    assert not auth.token_model().objects.filter(digest=hash_token(given["token"])).exists()


def test_it_keeps_a_token_the_session_was_not_given(session_client, owner):
    """A session logged in without being given a token (here: by the test client) leaves the
    user's tokens to their scripts."""
    key = token_of(owner)

    session_client.post(URL, **session_client.csrf_headers())

    assert script(key).get("/api/auth/me/").json() == {"username": "owner", "guest": False}


def test_it_keeps_the_tokens_of_the_user_s_other_log_ins(owner):
    """Each log-in has a token of its own: the session's log-out ends its own, not the one a
    script's log-in was given meanwhile."""
    browser = SessionClient()
    browser.post("/api/auth/login/", {"username": "owner", "password": PASSWORD})
    other = APIClient().post("/api/auth/login/", {"username": "owner", "password": PASSWORD})

    browser.post(URL, **browser.csrf_headers())

    assert tokens(owner).get().digest == hash_token(other.json()["token"])
    assert browser.get("/api/auth/me/").status_code == 401


def test_it_needs_the_csrf_token_for_a_session(session_client):
    response = session_client.post(URL)

    assert response.status_code == 403
    assert response.json() == {
        "code": "permission_denied",
        "message": "CSRF Failed: CSRF cookie not set.",
    }
    assert session_client.get("/api/auth/me/").json() == {"username": "owner", "guest": False}


def test_it_deletes_the_token_that_logs_out_and_no_other(owner):
    first, second = token_of(owner), token_of(owner)

    response = script(first).post(URL)

    assert response.status_code == 204
    refused = script(first).get("/api/auth/me/")
    assert (refused.status_code, refused.json()) == (401, INVALID)
    assert [t.digest for t in tokens(owner)] == [hash_token(second)]
    assert script(second).get("/api/auth/me/").json() == {"username": "owner", "guest": False}


def test_it_leaves_other_users_alone(owner_api, other_api, other):
    owner_api.post(URL)

    assert other_api.get("/api/auth/me/").json() == {"username": "other", "guest": False}


def test_it_is_harmless_when_nobody_is_logged_in(api):
    assert api.post(URL).status_code == 204
