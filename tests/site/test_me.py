import pytest

from tests.conftest import token_of

URL = "/api/auth/me/"


def test_it_says_who_is_logged_in_by_token(owner_api):
    response = owner_api.get(URL)

    assert response.status_code == 200
    assert response.json() == {"username": "owner", "guest": False}


def test_it_says_who_is_logged_in_by_session(session_client):
    assert session_client.get(URL).json() == {"username": "owner", "guest": False}


def test_it_refuses_anonymous_with_401(api):
    response = api.get(URL)

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json() == {
        "code": "not_authenticated",
        "message": "Authentication credentials were not provided.",
    }


@pytest.mark.parametrize(
    "key",
    [
        "not-a-token",
        "0" * 64,  # the shape of a key, of no token
        "\x01" * 64,  # (a NUL byte is refused 400 before: core.security)
        "\xe9" * 64,  # a byte that is not ASCII
        "A" * 64,  # (keys are lower-case hexadecimal)
        "0" * 63,
        "0" * 65,
    ],
    ids=["words", "unknown", "control", "latin-1", "upper-case", "short", "long"],
)
def test_it_refuses_a_bad_token(api, owner, key):
    token_of(owner)  # (a token exists)
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")

    response = api.get(URL)

    assert response.status_code == 401
    assert response.json() == {"code": "not_authenticated", "message": "Invalid token."}


def test_it_sets_the_csrf_cookie_even_for_anonymous(api):
    response = api.get(URL)

    assert response.cookies["csrftoken"].value


def test_it_refuses_other_methods(owner_api):
    response = owner_api.post(URL, {})

    assert response.status_code == 405
    assert response.json() == {
        "code": "method_not_allowed",
        "message": 'Method "POST" not allowed.',
    }
