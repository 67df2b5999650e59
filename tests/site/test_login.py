from rest_framework.authtoken.models import Token

from tests.conftest import PASSWORD

URL = "/api/auth/login/"
REFUSED = {"code": "invalid_credentials", "message": "Wrong username or password."}


def test_it_logs_in(api, owner):
    response = api.post(URL, {"username": "owner", "password": PASSWORD})

    assert response.status_code == 200
    assert response.json() == {"username": "owner", "token": Token.objects.get(user=owner).key}
    assert api.get("/api/auth/me/").json() == {"username": "owner"}


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
