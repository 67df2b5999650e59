import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from rest_framework.request import Request
from rest_framework.views import APIView

from canfield_site.throttling import ScopedThrottle
from tests.conftest import PASSWORD


def assert_throttled(response):
    assert response.status_code == 429
    wait = int(response["Retry-After"])
    assert 59 <= wait <= 60
    assert response.json() == {
        "code": "throttled",
        "message": f"Request was throttled. Expected available in {wait} seconds.",
        "retry_after": wait,
    }


def test_it_limits_signups(api, throttle_rates):
    throttle_rates(signup="2/min")

    for name in ["first", "second"]:
        response = api.post("/api/auth/signup/", {"username": name, "password": PASSWORD})
        assert response.status_code == 201
        api.logout()  # count by address, not by the new user

    assert_throttled(api.post("/api/auth/signup/", {"username": "third", "password": PASSWORD}))


def test_it_limits_logins_failed_or_not(api, owner, throttle_rates):
    throttle_rates(login="2/min")
    api.post("/api/auth/login/", {"username": "owner", "password": "wrong"})
    api.post("/api/auth/login/", {"username": "owner", "password": "wrong"})

    assert_throttled(api.post("/api/auth/login/", {"username": "owner", "password": PASSWORD}))


def test_it_counts_each_address_apart(api, owner, throttle_rates):
    throttle_rates(login="1/min")
    api.post("/api/auth/login/", {"username": "owner", "password": "wrong"})

    response = api.post(
        "/api/auth/login/", {"username": "owner", "password": PASSWORD}, REMOTE_ADDR="10.9.8.7"
    )

    assert response.status_code == 200


def test_it_counts_scopes_apart(api, owner, throttle_rates):
    throttle_rates(login="1/min")
    api.post("/api/auth/login/", {"username": "owner", "password": PASSWORD})

    response = api.post("/api/auth/signup/", {"username": "newcomer", "password": PASSWORD})

    assert response.status_code == 201


def test_it_can_be_switched_off(api, owner, throttle_rates):
    throttle_rates(login=None)

    for _ in range(30):
        response = api.post("/api/auth/login/", {"username": "owner", "password": PASSWORD})
        assert response.status_code == 200


def test_it_has_the_documented_default_rates():
    assert ScopedThrottle().THROTTLE_RATES == {
        "signup": "10/hour",
        "login": "20/min",
        "actions": "600/min",
    }


@pytest.mark.django_db
def test_it_throttles_any_view_that_names_the_actions_scope(throttle_rates):
    throttle_rates(actions="1/min")

    class View(APIView):
        throttle_scope = "actions"

    request = Request(RequestFactory().post("/api/games/1/actions/"))
    request.user = AnonymousUser()

    throttle = ScopedThrottle()
    assert throttle.allow_request(request, View()) is True
    assert ScopedThrottle().allow_request(request, View()) is False
