import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.test import RequestFactory
from rest_framework.request import Request
from rest_framework.views import APIView

from canfield_site.throttling import ScopedThrottle
from tests.conftest import PASSWORD


def assert_throttled(response, why="Request was throttled.", within=60):
    assert response.status_code == 429
    wait = int(response["Retry-After"])
    assert within - 1 <= wait <= within
    assert response.json() == {
        "code": "throttled",
        "message": f"{why} Expected available in {wait} seconds.",
        "retry_after": wait,
    }


FROM_ADDRESS = "Too many log-in attempts from this address."
TO_ACCOUNT = "Too many failed log-ins to this account."


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

    assert_throttled(
        api.post("/api/auth/login/", {"username": "owner", "password": PASSWORD}), FROM_ADDRESS
    )


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
        "login_account": "10/hour",
        "actions": "600/min",
        "states": "30/min",
        "hints": "20/min",
        "verdicts": "30/min",
        "practice": "60/hour",
        "practice_network": "300/hour",
        "guests": "30/hour",
        "guest_games": "120/hour",
    }


def login(api, password, address, username="owner"):
    return api.post(
        "/api/auth/login/", {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_it_limits_failed_logins_to_one_account_from_any_address(api, owner, other, throttle_rates):
    throttle_rates(login_account="3/hour")
    for n in range(3):  # a botnet: every guess from another address
        assert login(api, "guess", f"10.0.0.{n}").json()["code"] == "invalid_credentials"

    assert_throttled(login(api, PASSWORD, "10.0.0.9"), TO_ACCOUNT, within=3600)
    assert_throttled(login(api, "guess", "10.0.0.10", username="OWNER"), TO_ACCOUNT, within=3600)
    assert login(api, PASSWORD, "10.0.0.11", username="other").status_code == 200


def test_it_counts_only_failed_logins_per_account(api, owner, throttle_rates):
    throttle_rates(login_account="2/hour")
    for n in range(5):
        assert login(api, PASSWORD, f"10.0.1.{n}").status_code == 200

    assert login(api, "guess", "10.0.1.9").status_code == 400
    assert login(api, PASSWORD, "10.0.1.10").status_code == 200


def test_it_limits_guesses_at_unknown_accounts_too(api, throttle_rates):
    throttle_rates(login_account="1/hour")
    login(api, "guess", "10.0.2.1", username="nobody")

    assert_throttled(login(api, "guess", "10.0.2.2", username="nobody"), TO_ACCOUNT, within=3600)


@pytest.mark.django_db
def admin_login(client, password, address, username="admin"):
    return client.post(
        "/admin/login/",
        {"username": username, "password": password, "next": "/admin/"},
        REMOTE_ADDR=address,
    )


@pytest.fixture
def superuser(db):
    return User.objects.create_superuser("admin", password=PASSWORD)


def test_it_limits_failed_admin_logins_per_account(client, superuser, throttle_rates):
    throttle_rates(login_account="3/hour")
    for n in range(3):
        assert admin_login(client, "guess", f"10.0.3.{n}").status_code == 200  # the form again

    refused = admin_login(client, PASSWORD, "10.0.3.9")

    assert refused.status_code == 429
    assert 3599 <= int(refused["Retry-After"]) <= 3600
    assert refused.content.decode().startswith(TO_ACCOUNT)
    assert "_auth_user_id" not in client.session


def test_it_limits_admin_logins_per_address(client, superuser, throttle_rates):
    throttle_rates(login="2/min")
    admin_login(client, "guess", "10.0.4.1", username="someone")
    admin_login(client, "guess", "10.0.4.1", username="else")

    refused = admin_login(client, PASSWORD, "10.0.4.1")

    assert refused.status_code == 429
    assert refused.content.decode().startswith(FROM_ADDRESS)


def test_it_lets_the_admin_in_within_the_limits(client, superuser, throttle_rates):
    throttle_rates(login_account="3/hour")
    admin_login(client, "guess", "10.0.5.1")

    response = admin_login(client, PASSWORD, "10.0.5.2")

    assert (response.status_code, response["Location"]) == (302, "/admin/")
    assert client.get("/admin/").status_code == 200


def test_it_throttles_any_view_that_names_the_actions_scope(throttle_rates):
    throttle_rates(actions="1/min")

    class View(APIView):
        throttle_scope = "actions"

    request = Request(RequestFactory().post("/api/games/1/actions/"))
    request.user = AnonymousUser()

    throttle = ScopedThrottle()
    assert throttle.allow_request(request, View()) is True
    assert ScopedThrottle().allow_request(request, View()) is False


def test_on_redis_a_count_is_in_the_caches_redis_for_every_process_to_see(settings, throttle_rates):
    if not settings.REDIS_CACHE_URL:
        pytest.skip("no Redis: the counts are this process's, in its in-memory cache")
    import redis

    from canfield_site.throttling import Counter

    throttle_rates(hints="2/min")
    counter = Counter("hints", "someone")
    assert counter.hit() is None
    assert counter.hit() is None
    assert counter.hit() is not None  # the third of two a minute

    # A connection of its own, as another process's, sees the two counted, under the cache's prefix.
    seen = redis.Redis.from_url(settings.REDIS_CACHE_URL)
    key = f"{settings.CACHES['default']['KEY_PREFIX']}:rl:hints:someone"
    assert seen.zcard(key) == 2
