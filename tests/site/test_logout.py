import datetime as dt

from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.conftest import PASSWORD, SessionClient

URL = "/api/auth/logout/"


def test_it_ends_the_session(session_client):
    response = session_client.post(URL, **session_client.csrf_headers())

    assert response.status_code == 204
    assert response.content == b""
    assert session_client.get("/api/auth/me/").status_code == 401


def test_it_ends_the_token_its_log_in_gave(owner):
    """The page's log-in answers a token too: logging that session out ends it."""
    browser = SessionClient()
    given = browser.post("/api/auth/login/", {"username": "owner", "password": PASSWORD}).json()
    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Token {given['token']}")
    assert script.get("/api/auth/me/").json() == {"username": "owner", "guest": False}

    response = browser.post(URL, **browser.csrf_headers())

    assert response.status_code == 204
    assert not Token.objects.filter(user=owner).exists()
    assert script.get("/api/auth/me/").json() == {
        "code": "not_authenticated",
        "message": "Invalid token.",
    }
    assert browser.get("/api/auth/me/").status_code == 401


def test_it_ends_the_token_its_sign_up_gave(db):
    browser = SessionClient()
    given = browser.post("/api/auth/signup/", {"username": "newbie", "password": PASSWORD}).json()

    browser.post(URL, **browser.csrf_headers())

    assert not Token.objects.filter(key=given["token"]).exists()


def test_it_keeps_a_token_the_session_was_not_given(session_client, owner):
    """A session logged in without being given a token (here: by the test client) leaves the
    user's token to their scripts."""
    token = Token.objects.create(user=owner)

    session_client.post(URL, **session_client.csrf_headers())

    assert Token.objects.filter(key=token.key).exists()


def test_it_keeps_a_newer_token_than_the_one_it_gave(owner, settings):
    """The session's token expired and a script's log-in replaced it: the new one is not the
    session's to end."""
    browser = SessionClient()
    browser.post("/api/auth/login/", {"username": "owner", "password": PASSWORD})
    Token.objects.filter(user=owner).update(created=timezone.now() - dt.timedelta(days=400))
    newer = APIClient().post("/api/auth/login/", {"username": "owner", "password": PASSWORD})

    browser.post(URL, **browser.csrf_headers())

    assert Token.objects.filter(key=newer.json()["token"]).exists()
    assert browser.get("/api/auth/me/").status_code == 401


def test_it_needs_the_csrf_token_for_a_session(session_client):
    response = session_client.post(URL)

    assert response.status_code == 403
    assert response.json() == {
        "code": "permission_denied",
        "message": "CSRF Failed: CSRF cookie not set.",
    }
    assert session_client.get("/api/auth/me/").json() == {"username": "owner", "guest": False}


def test_it_deletes_the_token_that_logs_out(owner_api, owner):
    response = owner_api.post(URL)

    assert response.status_code == 204
    assert not Token.objects.filter(user=owner).exists()
    refused = owner_api.get("/api/auth/me/")
    assert refused.status_code == 401
    assert refused.json() == {"code": "not_authenticated", "message": "Invalid token."}


def test_it_leaves_other_users_alone(owner_api, other_api, other):
    owner_api.post(URL)

    assert other_api.get("/api/auth/me/").json() == {"username": "other", "guest": False}


def test_it_is_harmless_when_nobody_is_logged_in(api):
    assert api.post(URL).status_code == 204
