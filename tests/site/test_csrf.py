"""CSRF: enforced for session-authenticated unsafe requests (as in a browser), not for tokens."""

from tests.conftest import PASSWORD


def test_it_refuses_a_session_post_without_the_token(session_client):
    session_client.get("/api/auth/me/")  # the cookie is there, the header is not

    response = session_client.post("/api/auth/logout/")

    assert response.status_code == 403
    assert response.json() == {
        "code": "permission_denied",
        "message": "CSRF Failed: CSRF token missing.",
    }


def test_it_refuses_a_session_post_with_a_wrong_token(session_client):
    session_client.get("/api/auth/me/")

    response = session_client.post("/api/auth/logout/", HTTP_X_CSRFTOKEN="x" * 32)

    assert response.status_code == 403
    assert response.json() == {
        "code": "permission_denied",
        "message": "CSRF Failed: CSRF token from the 'X-Csrftoken' HTTP header incorrect.",
    }


def test_it_accepts_a_session_post_with_the_token(session_client):
    response = session_client.post("/api/auth/logout/", **session_client.csrf_headers())

    assert response.status_code == 204


def test_it_does_not_ask_a_token_client_for_csrf(owner_api):
    owner_api.handler.enforce_csrf_checks = True

    assert owner_api.post("/api/auth/logout/").status_code == 204


def test_it_lets_an_anonymous_browser_log_in(owner):
    from tests.conftest import SessionClient

    browser = SessionClient()
    response = browser.post("/api/auth/login/", {"username": "owner", "password": PASSWORD})

    assert response.status_code == 200
    # Once the session is logged in, unsafe requests need the (rotated) token.
    assert browser.post("/api/auth/logout/").status_code == 403
    assert browser.post("/api/auth/logout/", **browser.csrf_headers()).status_code == 204
