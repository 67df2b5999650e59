import datetime as dt

from django.utils import timezone
from rest_framework.authtoken.models import Token

from tests.conftest import PASSWORD
from tests.games.helpers import iso

URL = "/api/auth/login/"
REFUSED = {"code": "invalid_credentials", "message": "Wrong username or password."}


def test_it_logs_in(api, owner):
    response = api.post(URL, {"username": "owner", "password": PASSWORD})

    assert response.status_code == 200
    token = Token.objects.get(user=owner)
    assert response.json() == {
        "username": "owner",
        "token": token.key,
        "expires_at": iso(token.created + dt.timedelta(days=30)),
    }
    assert api.get("/api/auth/me/").json() == {"username": "owner", "guest": False}


def age(token: Token, days: float) -> None:
    Token.objects.filter(pk=token.pk).update(created=timezone.now() - dt.timedelta(days=days))


def test_a_token_works_for_its_lifetime_only(api, owner, owner_api):
    token = Token.objects.get(user=owner)
    age(token, 29.9)
    assert owner_api.get("/api/auth/me/").status_code == 200

    age(token, 30)
    response = owner_api.get("/api/auth/me/")

    assert response.status_code == 401
    assert response.json() == {
        "code": "not_authenticated",
        "message": "The token has expired: log in again for a new one.",
    }


def test_it_gives_a_new_token_once_the_old_one_has_expired(api, owner, owner_api):
    old = Token.objects.get(user=owner)
    age(old, 31)

    body = api.post(URL, {"username": "owner", "password": PASSWORD}).json()

    new = Token.objects.get(user=owner)
    assert body["token"] == new.key != old.key
    assert body["expires_at"] == iso(new.created + dt.timedelta(days=30))
    assert owner_api.get("/api/auth/me/").status_code == 401  # the old key is gone
    api.logout()
    api.credentials(HTTP_AUTHORIZATION=f"Token {new.key}")
    assert api.get("/api/auth/me/").json() == {"username": "owner", "guest": False}


def test_it_reads_the_lifetime_from_the_settings(api, owner, owner_api, settings):
    settings.TOKEN_LIFETIME_DAYS = 2
    age(Token.objects.get(user=owner), 2)

    assert owner_api.get("/api/auth/me/").status_code == 401


def test_it_ignores_the_case_of_the_username(api, owner):
    response = api.post(URL, {"username": "OWNER", "password": PASSWORD})

    assert response.status_code == 200
    assert response.json()["username"] == "owner"


def test_it_gives_the_same_token_each_time(api, owner):
    first = api.post(URL, {"username": "owner", "password": PASSWORD}).json()["token"]
    second = api.post(URL, {"username": "owner", "password": PASSWORD}).json()["token"]

    assert first == second == Token.objects.get(user=owner).key


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
