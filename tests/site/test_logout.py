from rest_framework.authtoken.models import Token

URL = "/api/auth/logout/"


def test_it_ends_the_session(session_client):
    response = session_client.post(URL, **session_client.csrf_headers())

    assert response.status_code == 204
    assert response.content == b""
    assert session_client.get("/api/auth/me/").status_code == 401


def test_it_keeps_the_token_when_a_session_logs_out(session_client, owner):
    token = Token.objects.create(user=owner)

    session_client.post(URL, **session_client.csrf_headers())

    assert Token.objects.filter(key=token.key).exists()


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
