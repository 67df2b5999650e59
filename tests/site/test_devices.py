"""The device cookie (core/devices.py): a random id on a browser's first page —
HttpOnly, SameSite=Lax, Secure behind HTTPS, a year — never on the API's answers nor to a token
client, kept only as a salted hash on the fair-play review of a daily attempt. A client with no
cookie has its token's device mark instead: a salted hash of the network and user agent of the
log-in that issued it, deleted with the token."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from rest_framework.test import APIClient

from core import devices
from core.accounts.models import TokenOrigin
from leaderboard import review
from leaderboard.models import AttemptReview
from tests.conftest import PASSWORD, token_client
from tests.leaderboard.helpers import store_test_deals

pytestmark = pytest.mark.django_db

A_DEVICE = "abcdefghijklmnopqrstuv"  # (22 URL-safe characters, as devices.new_id gives)


def test_it_gives_a_browser_a_device_id_on_its_first_page(client):
    page = client.get("/")

    cookie = page.cookies[devices.COOKIE]
    assert page.status_code == 200
    assert devices.device_id({devices.COOKIE: cookie.value}) == cookie.value
    assert (cookie["max-age"], cookie["httponly"], cookie["samesite"], cookie["secure"]) == (
        365 * 24 * 3600,
        True,
        "Lax",
        "",
    )
    assert cookie["path"] == "/"
    # The page is otherwise as it was: its policy, and a second page sets no new id.
    assert page["Content-Security-Policy"].startswith("default-src 'self'")
    again = client.get("/leaderboard/")
    assert devices.COOKIE not in again.cookies
    assert client.cookies[devices.COOKIE].value == cookie.value


def test_two_browsers_get_two_ids_and_a_malformed_one_is_replaced():
    first, second = Client(), Client()
    one = first.get("/").cookies[devices.COOKIE].value
    two = second.get("/").cookies[devices.COOKIE].value
    tampered = Client()
    tampered.cookies[devices.COOKIE] = "x' OR 1=1"

    assert one != two
    assert devices.device_id({devices.COOKIE: "x' OR 1=1"}) == ""
    replaced = tampered.get("/").cookies[devices.COOKIE].value
    assert devices.device_id({devices.COOKIE: replaced}) == replaced


@override_settings(SESSION_COOKIE_SECURE=True)
def test_it_is_secure_when_the_site_is(client):
    assert client.get("/").cookies[devices.COOKIE]["secure"] is True
    assert Client().get("/", secure=True).cookies[devices.COOKIE]["secure"] is True


@pytest.mark.parametrize("path", ["/api/daily/", "/api/health/", "/api/games/", "/api/schema/"])
def test_no_api_answer_sets_it(client, path):
    response = client.get(path)

    assert devices.COOKIE not in response.cookies


def test_a_token_client_never_gets_one(owner):
    api = token_client(owner)

    for path in ("/", "/api/daily/", "/api/auth/me/"):
        assert devices.COOKIE not in api.get(path).cookies


@pytest.fixture
def dealt(db: None) -> None:
    """Today's deal stored, as a database that has dealt it."""
    store_test_deals()


def test_a_ranked_attempt_keeps_its_device_hashed(dealt, owner, other):
    mine, theirs = token_client(owner), token_client(other)
    mine.cookies[devices.COOKIE] = A_DEVICE
    theirs.cookies[devices.COOKIE] = A_DEVICE

    first = mine.post("/api/daily/", REMOTE_ADDR="198.51.100.4").json()
    second = theirs.post("/api/daily/", REMOTE_ADDR="203.0.113.9").json()

    kept = AttemptReview.objects.get(game_id=first["id"])
    assert kept.device == review.device_of(A_DEVICE) != ""
    assert A_DEVICE not in kept.device and len(kept.device) == 32
    assert AttemptReview.objects.get(game_id=second["id"]).device == kept.device
    assert kept.network != AttemptReview.objects.get(game_id=second["id"]).network
    # Private: nothing of it in the answers about the attempt.
    for url in (f"/api/games/{first['id']}/", "/api/daily/"):
        assert kept.device not in mine.get(url).content.decode()


def test_an_attempt_without_the_cookie_keeps_no_device(dealt, owner):
    game = token_client(owner).post("/api/daily/", REMOTE_ADDR="198.51.100.4").json()

    assert AttemptReview.objects.get(game_id=game["id"]).device == ""


def log_in(user: User, address: str, agent: str) -> tuple[APIClient, dict[str, Any]]:
    """A script's client for ``user``: its log-in from ``address`` with ``agent``, token only."""
    client = APIClient()
    answer = client.post(
        "/api/auth/login/",
        {"username": user.get_username(), "password": PASSWORD},
        format="json",
        REMOTE_ADDR=address,
        HTTP_USER_AGENT=agent,
    )
    assert answer.status_code == 200, answer.content
    client.logout()
    client.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")
    return client, answer.json()


def test_an_api_token_gets_a_device_mark_from_its_network_and_user_agent(owner, other):
    """A client that keeps no cookie — a script — has a device all the same: the mark of the
    log-in that issued its token, a salted hash of its network and user agent. Two accounts a
    script logs in from one machine carry one mark; another network or agent, another."""
    _, answer = log_in(owner, "198.51.100.4", "bot/1.0")
    log_in(other, "198.51.100.200", "bot/1.0")  # (the same /24)
    log_in(other, "203.0.113.9", "bot/1.0")
    log_in(other, "198.51.100.4", "bot/2.0")

    def marks(user: User) -> set[str]:
        return set(TokenOrigin.objects.filter(token__user=user).values_list("mark", flat=True))

    script = devices.origin_mark("198.51.100.77", "bot/1.0")
    assert marks(owner) == {script}
    assert marks(other) == {
        script,
        devices.origin_mark("203.0.113.9", "bot/1.0"),
        devices.origin_mark("198.51.100.4", "bot/2.0"),
    }
    assert len(script) == 32 and "198.51.100" not in script and "bot" not in script
    assert script not in json.dumps(answer)  # (never in an answer)


def test_a_token_clients_attempt_keeps_its_mark_and_a_cookie_comes_first(dealt, owner, other):
    mine, _ = log_in(owner, "198.51.100.4", "bot/1.0")
    theirs, _ = log_in(other, "198.51.100.4", "bot/1.0")
    theirs.cookies[devices.COOKIE] = A_DEVICE  # (a browser's cookie: its own id comes first)

    first = mine.post("/api/daily/", REMOTE_ADDR="203.0.113.9").json()
    second = theirs.post("/api/daily/", REMOTE_ADDR="203.0.113.9").json()

    mark = devices.origin_mark("198.51.100.4", "bot/1.0")
    kept = AttemptReview.objects.get(game_id=first["id"]).device
    assert kept == review.device_of(f"token:{mark}") != ""
    assert AttemptReview.objects.get(game_id=second["id"]).device == review.device_of(A_DEVICE)
    for url in (f"/api/games/{first['id']}/", "/api/daily/", "/api/auth/me/"):
        body = mine.get(url).content.decode()
        assert kept not in body and mark not in body


def test_a_tokens_mark_goes_with_it(owner):
    client, _ = log_in(owner, "198.51.100.4", "bot/1.0")
    assert TokenOrigin.objects.count() == 1

    assert client.post("/api/auth/logout/").status_code in (200, 204)

    assert TokenOrigin.objects.count() == 0
