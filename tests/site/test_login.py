import datetime as dt
import os
import threading
from typing import Any, ClassVar

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher, PBKDF2PasswordHasher
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.db import connection
from django.utils import timezone
from knox.crypto import hash_token  # type: ignore[import-untyped,unused-ignore]
from rest_framework.test import APIClient

from core.accounts import auth, hashing
from tests.conftest import PASSWORD
from tests.games.helpers import iso

URL = "/api/auth/login/"
REFUSED = {"code": "invalid_credentials", "message": "Wrong username or password."}
EXPIRED = {
    "code": "not_authenticated",
    "message": "The token has expired: log in again for a new one.",
}
INVALID = {"code": "not_authenticated", "message": "Invalid token."}


def tokens_of(user: User) -> Any:
    """``user``'s API tokens (knox's rows), oldest first."""
    return auth.token_model().objects.filter(user=user).order_by("created")


def lasts(token: Any) -> dt.timedelta:
    """How long ``token`` was issued for (to the second)."""
    return dt.timedelta(seconds=round((token.expiry - token.created).total_seconds()))


def test_it_logs_in(api, owner):
    response = api.post(URL, {"username": "owner", "password": PASSWORD})

    assert response.status_code == 200
    body = response.json()
    token = tokens_of(owner).get()
    assert body == {"username": "owner", "token": body["token"], "expires_at": iso(token.expiry)}
    assert token.digest == hash_token(body["token"]) != body["token"]  # (only a hash is kept)
    assert lasts(token) == dt.timedelta(days=30)
    assert api.get("/api/auth/me/").json() == {"username": "owner", "guest": False}


def age(token: Any, days: float) -> None:
    """Make ``token`` as if it had been issued ``days`` days ago."""
    ago = timezone.now() - dt.timedelta(days=days)
    tokens = auth.token_model().objects.filter(pk=token.pk)
    tokens.update(created=ago, expiry=ago + dt.timedelta(days=30))


def test_a_token_works_for_its_lifetime_only(api, owner, owner_api):
    token = tokens_of(owner).get()
    age(token, 29.9)
    assert owner_api.get("/api/auth/me/").status_code == 200

    age(token, 30)
    response = owner_api.get("/api/auth/me/")

    assert response.status_code == 401
    assert response.json() == EXPIRED
    assert not tokens_of(owner).exists()  # (deleted as it is refused: then it is unknown)
    assert owner_api.get("/api/auth/me/").json() == INVALID


def test_each_log_in_gives_a_token_of_its_own_and_its_own_expiry(api, owner):
    first = api.post(URL, {"username": "owner", "password": PASSWORD}).json()["token"]
    age(tokens_of(owner).get(), 31)  # the first one has expired
    second = api.post(URL, {"username": "owner", "password": PASSWORD}).json()["token"]
    third = api.post(URL, {"username": "owner", "password": PASSWORD}).json()["token"]

    assert len({first, second, third}) == 3
    api.logout()
    answers = []
    for key in (first, second, third):
        api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        answers.append(api.get("/api/auth/me/").json())
    owner_ = {"username": "owner", "guest": False}
    assert answers == [EXPIRED, owner_, owner_]
    assert [lasts(token) for token in tokens_of(owner)] == [dt.timedelta(days=30)] * 2


def test_it_reads_the_lifetime_from_the_settings(api, owner, settings):
    settings.REST_KNOX = {**settings.REST_KNOX, "TOKEN_TTL": dt.timedelta(days=2)}

    body = api.post(URL, {"username": "owner", "password": PASSWORD}).json()

    token = tokens_of(owner).get()
    assert lasts(token) == dt.timedelta(days=2)
    assert body["expires_at"] == iso(token.expiry)


def test_it_ignores_the_case_of_the_username(api, owner):
    response = api.post(URL, {"username": "OWNER", "password": PASSWORD})

    assert response.status_code == 200
    assert response.json()["username"] == "owner"


def test_it_refuses_a_wrong_password(api, owner):
    response = api.post(URL, {"username": "owner", "password": PASSWORD + "!"})

    assert response.status_code == 400
    assert response.json() == REFUSED
    assert api.get("/api/auth/me/").status_code == 401


def test_it_refuses_an_unknown_user_the_same_way(api, db):
    response = api.post(URL, {"username": "nobody", "password": PASSWORD})

    assert response.status_code == 400
    assert response.json() == REFUSED


def test_it_refuses_an_inactive_user_the_same_way(api, owner):
    owner.is_active = False
    owner.save()

    response = api.post(URL, {"username": "owner", "password": PASSWORD})

    assert response.status_code == 400
    assert response.json() == REFUSED


def test_it_refuses_missing_fields(api, db):
    response = api.post(URL, {"username": "owner"})

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "message": "password: This field is required.",
        "fields": {"password": ["This field is required."]},
    }


def test_it_refuses_malformed_json(api, db):
    response = api.post(URL, data="username=owner", content_type="application/json")

    assert response.status_code == 400
    assert response.json()["code"] == "malformed"


BUSY = {
    "code": "busy",
    "message": "Too many people are logging in right now. Please try again in a moment.",
    "retry_after": 1,
}


@pytest.fixture
def one_slot(settings):
    """One hashing slot, and no wait for it: held by the test, every hash is refused busy."""
    settings.LOGIN_HASH_SLOTS = 1
    settings.LOGIN_HASH_WAIT = 0


def test_it_answers_busy_when_no_hashing_slot_is_free(api, owner, one_slot):
    with hashing.slot():  # (the process's one slot, held)
        response = api.post(URL, {"username": "owner", "password": PASSWORD})

    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    assert response.json() == BUSY
    assert api.get("/api/auth/me/").status_code == 401
    assert api.post(URL, {"username": "owner", "password": PASSWORD}).status_code == 200


def test_a_log_in_refused_busy_is_no_failure_of_the_account(api, owner, one_slot, throttle_rates):
    throttle_rates(login_account="1/hour")
    with hashing.slot():
        assert api.post(URL, {"username": "owner", "password": "guess"}).status_code == 503

    # The one failure allowed is still there (the busy attempt checked no password).
    assert api.post(URL, {"username": "owner", "password": "guess"}).json() == REFUSED
    assert api.post(URL, {"username": "owner", "password": PASSWORD}).status_code == 429


class ConnectionlessMD5(MD5PasswordHasher):
    """The tests' hasher, noting at each hash whether this thread held a database connection,
    whether a hashing slot was free, and the thread's scheduling priority."""

    seen: ClassVar[list[tuple[bool, bool, int]]] = []

    def encode(self, password: str, salt: str) -> str:
        free = hashing._semaphore().acquire(blocking=False)
        if free:
            hashing._semaphore().release()
        nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        self.seen.append((connection.connection is not None, free, nice))
        return super().encode(password, salt)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("username", ["owner", "OWNER", "nobody"])
@pytest.mark.parametrize("password", [PASSWORD, "guess"])
def test_it_hashes_with_no_database_connection_held_in_a_slot(settings, username, password):
    User.objects.create_user("owner", password=PASSWORD)
    settings.PASSWORD_HASHERS = ["tests.site.test_login.ConnectionlessMD5"]
    settings.LOGIN_HASH_SLOTS = 1
    settings.LOGIN_HASH_NICE = 10
    ConnectionlessMD5.seen.clear()
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    response = APIClient().post(URL, {"username": username, "password": password})

    assert response.status_code == (200 if username != "nobody" and password == PASSWORD else 400)
    # One hash — an unknown username's too (no timing oracle) —, with no connection held, the
    # one slot taken, at the hashing priority (or the thread's own, if that is lower already);
    # the thread's priority as it was after, where the process may raise it again (root).
    assert ConnectionlessMD5.seen == [(False, False, max(10, before))]
    if os.geteuid() == 0:
        assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before


def test_it_sends_django_s_signals(api, owner):
    failed, logged_in = [], []

    def on_failed(credentials, **kwargs):
        failed.append(credentials["username"])

    def on_login(user, **kwargs):
        logged_in.append(user.username)

    user_login_failed.connect(on_failed)
    user_logged_in.connect(on_login)
    try:
        api.post(URL, {"username": "owner", "password": "guess"})
        api.post(URL, {"username": "nobody", "password": "guess"})
        api.post(URL, {"username": "Owner", "password": PASSWORD})
    finally:
        user_login_failed.disconnect(on_failed)
        user_logged_in.disconnect(on_login)

    assert (failed, logged_in) == (["owner", "nobody"], ["owner"])
    owner.refresh_from_db()
    assert owner.last_login is not None


def test_it_upgrades_an_old_hash_after_a_right_password(api, settings):
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    ]
    old = PBKDF2PasswordHasher().encode(PASSWORD, "saltsaltsalt", iterations=1000)
    user = User.objects.create(username="old", password=old)

    assert api.post(URL, {"username": "old", "password": PASSWORD}).status_code == 200

    user.refresh_from_db()
    assert user.password.startswith("md5$")
    assert user.check_password(PASSWORD)
