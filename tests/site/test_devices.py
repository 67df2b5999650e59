"""The device cookie (core/devices.py): a random id on a browser's first page —
HttpOnly, SameSite=Lax, Secure behind HTTPS, a year — never on the API's answers nor to a token
client, kept only as a salted hash on the fair-play review of a daily attempt."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings

from core import devices
from leaderboard import review
from leaderboard.models import AttemptReview
from tests.conftest import token_client
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
