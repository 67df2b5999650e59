import logging

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.test import RequestFactory
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.views import APIView

from core import redis_bounds, throttling
from core.accounts import hashing
from core.throttling import ScopedThrottle, address_key, network_of
from games.api.moves import count_action
from tests.conftest import PASSWORD
from tests.support import free_port

# What differs between the embedded default (SQLite, the in-memory layer) and PostgreSQL and
# Redis: CI runs these on both.
pytestmark = pytest.mark.each_backend


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
FROM_NETWORK = "Too many failed log-ins to this account from your network."
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
        "login_account_all": "50/hour",
        "actions": "600/min",
        "states": "30/min",
        "hints": "20/min",
        "verdicts": "30/min",
        "practice": "60/hour",
        "practice_network": "300/hour",
        "guests": "30/hour",
        "guest_games": "120/hour",
        "follows": "100/hour",
        "group_joins": "30/hour",
        "group_actions": "60/hour",
    }


def login(api, password, address, username="owner"):
    return api.post(
        "/api/auth/login/", {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_it_limits_failed_logins_to_one_account_from_one_network(api, owner, other, throttle_rates):
    throttle_rates(login_account="3/hour")
    for n in range(3):  # every guess from another address of one /24
        assert login(api, "guess", f"10.0.0.{n}").json()["code"] == "invalid_credentials"

    assert_throttled(login(api, PASSWORD, "10.0.0.9"), FROM_NETWORK, within=3600)
    assert_throttled(login(api, "guess", "10.0.0.10", username="OWNER"), FROM_NETWORK, within=3600)
    assert login(api, PASSWORD, "10.0.0.11", username="other").status_code == 200


def test_strangers_wrong_passwords_never_lock_the_owner_out(api, owner):
    # The default limits: 10 failures an hour per account and network.
    guesses = [login(api, f"guess {n}", f"203.0.113.{n}") for n in range(12)]

    assert [g.status_code for g in guesses] == [400] * 10 + [429] * 2
    assert_throttled(guesses[-1], FROM_NETWORK, within=3600)
    assert login(api, PASSWORD, "198.51.100.7").status_code == 200  # the owner, at home
    # The stranger's network stays locked, even with the right password.
    assert_throttled(login(api, PASSWORD, "203.0.113.50"), FROM_NETWORK, within=3600)


def test_a_botnet_fills_the_account_s_ceiling_but_a_known_network_still_gets_in(
    api, owner, throttle_rates
):
    throttle_rates(login_account="2/hour", login_account_all="6/hour")
    assert login(api, PASSWORD, "198.51.100.7").status_code == 200  # the owner's network
    for network in range(3):  # three networks, two guesses each: the ceiling
        for host in range(2):
            assert login(api, "guess", f"10.{network}.0.{host}").status_code == 400

    assert_throttled(login(api, "guess", "10.9.0.1"), TO_ACCOUNT, within=3600)
    assert_throttled(login(api, PASSWORD, "192.0.2.1"), TO_ACCOUNT, within=3600)  # a new network
    # The owner's network (another address of its /24) is still let in; its own failures count
    # per account and network only.
    assert login(api, PASSWORD, "198.51.100.8").status_code == 200
    assert login(api, "typo", "198.51.100.8").status_code == 400
    assert login(api, "typo", "198.51.100.8").status_code == 400
    assert_throttled(login(api, PASSWORD, "198.51.100.8"), FROM_NETWORK, within=3600)


def test_the_network_an_account_signed_up_from_is_known_to_it(api, throttle_rates):
    throttle_rates(login_account="1/hour", login_account_all="2/hour")
    signed_up = api.post(
        "/api/auth/signup/", {"username": "newcomer", "password": PASSWORD}, REMOTE_ADDR="192.0.2.7"
    )
    assert signed_up.status_code == 201
    api.logout()
    for network in range(2):
        assert login(api, "guess", f"10.{network}.0.1", username="newcomer").status_code == 400
    assert_throttled(login(api, PASSWORD, "10.5.0.1", username="newcomer"), TO_ACCOUNT, 3600)

    assert login(api, PASSWORD, "192.0.2.99", username="newcomer").status_code == 200


def test_it_counts_an_ipv6_client_by_its_64(api, owner, throttle_rates):
    throttle_rates(login="2/min")
    for address in ["2001:db8:1:2::1", "2001:db8:1:2:aaaa:bbbb:cccc:dddd"]:
        assert login(api, "guess", address).status_code == 400

    assert_throttled(login(api, PASSWORD, "2001:db8:1:2:ffff::9"), FROM_ADDRESS)
    assert login(api, PASSWORD, "2001:db8:1:3::1").status_code == 200  # the next /64


def test_it_counts_an_ipv4_client_by_its_own_address(api, owner, throttle_rates):
    throttle_rates(login="1/min")
    assert login(api, "guess", "203.0.113.1").status_code == 400

    assert_throttled(login(api, PASSWORD, "::ffff:203.0.113.1"), FROM_ADDRESS)  # the same
    assert login(api, PASSWORD, "203.0.113.2").status_code == 200  # its neighbour


@pytest.mark.parametrize(
    ("address", "key", "network"),
    [
        ("203.0.113.7", "203.0.113.7", "203.0.113.0/24"),
        ("::ffff:203.0.113.7", "203.0.113.7", "203.0.113.0/24"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2::", "2001:db8:1:2::/64", "2001:db8:1:2::/64"),
        ("unix-socket", "unix-socket", "address:unix-socket"),
    ],
)
def test_it_knows_what_an_address_counts_under(address, key, network):
    assert (address_key(address), network_of(address)) == (key, network)


def test_it_counts_only_failed_logins_per_account(api, owner, throttle_rates):
    throttle_rates(login_account="2/hour")
    for n in range(5):
        assert login(api, PASSWORD, f"10.0.1.{n}").status_code == 200

    assert login(api, "guess", "10.0.1.9").status_code == 400
    assert login(api, PASSWORD, "10.0.1.10").status_code == 200


def test_it_limits_guesses_at_unknown_accounts_too(api, throttle_rates):
    throttle_rates(login_account="1/hour")
    login(api, "guess", "10.0.2.1", username="nobody")

    assert_throttled(login(api, "guess", "10.0.2.2", username="nobody"), FROM_NETWORK, within=3600)


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
    throttle_rates(login_account="3/hour", login_account_all="5/hour")
    for n in range(3):
        assert admin_login(client, "guess", f"10.0.3.{n}").status_code == 200  # the form again

    refused = admin_login(client, PASSWORD, "10.0.3.9")
    wait = int(refused["Retry-After"])
    assert (refused.status_code, 3599 <= wait <= 3600) == (429, True)
    assert refused.content.decode() == f"{FROM_NETWORK} Expected available in {wait} seconds.\n"
    for n in range(2):  # the ceiling: two more networks' guesses
        assert admin_login(client, "guess", f"10.0.{4 + n}.1").status_code == 200
    refused = admin_login(client, PASSWORD, "10.0.9.1")
    assert (refused.status_code, refused.content.decode().split(" Expected")[0]) == (
        429,
        TO_ACCOUNT,
    )
    assert "_auth_user_id" not in client.session


def test_the_admin_log_in_answers_busy_when_no_hashing_slot_is_free(
    client, superuser, settings, throttle_rates
):
    throttle_rates(login_account="1/hour")
    settings.LOGIN_HASH_SLOTS = 1
    settings.LOGIN_HASH_WAIT = 0

    with hashing.slot():  # (the process's one slot, held)
        refused = admin_login(client, "guess", "10.0.6.1")

    assert (refused.status_code, refused["Retry-After"]) == (503, "1")
    assert refused.content.decode() == (
        "Too many people are logging in right now. Please try again in a moment.\n"
    )
    assert "_auth_user_id" not in client.session
    assert admin_login(client, "guess", "10.0.6.1").status_code == 200  # (not counted: checked)
    assert admin_login(client, PASSWORD, "10.0.6.1").status_code == 429


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


def test_the_rest_throttle_and_the_game_socket_count_a_player_under_one_key(owner, throttle_rates):
    throttle_rates(actions="2/min")

    class View(APIView):
        throttle_scope = "actions"

    request = Request(RequestFactory().post("/api/games/1/actions/"))
    request.user = owner

    assert ScopedThrottle().allow_request(request, View()) is True
    count_action(owner)  # (an action over the game's socket: the second of two)
    with pytest.raises(Throttled):
        count_action(owner)
    assert ScopedThrottle().allow_request(request, View()) is False


def test_on_redis_a_count_is_in_the_caches_redis_for_every_process_to_see(settings, throttle_rates):
    if not settings.REDIS_CACHE_URL:
        pytest.skip("no Redis: the counts are this process's, in its in-memory cache")
    import redis

    throttle_rates(hints="2/min", practice="3/hour")
    assert [throttling.hit("hints", "someone") is None for _ in range(3)] == [True, True, False]
    counter = throttling.Counter("practice", "someone")
    assert counter.hit() is None and throttling.Counter("practice", "someone").hit() is None
    counter.give_back()

    # A connection of its own, as another process's, sees them under the cache's prefix: the two
    # hints counted (the third refused), one practice game of the two (one given back).
    seen = redis.Redis.from_url(settings.REDIS_CACHE_URL)
    prefix = settings.CACHES["default"]["KEY_PREFIX"]
    assert seen.zcard(f"{prefix}:rl:hints:someone") == 2
    assert seen.zcard(f"{prefix}:rl:practice:someone") == 1


@pytest.fixture
def redis_away(settings):
    """The cache's Redis at a port nothing listens on."""
    settings.REDIS_CACHE_URL = f"redis://127.0.0.1:{free_port()}/0"
    yield
    redis_bounds.breaker.reset()  # (the process's breaker: the run's own Redis is not away)


def test_it_lets_requests_through_and_says_so_while_redis_is_away(
    redis_away, throttle_rates, caplog
):
    throttle_rates(hints="1/min", practice="1/hour")

    with caplog.at_level(logging.WARNING, logger="core.throttling"):
        waits = [throttling.hit("hints", "someone") for _ in range(3)]
        counts = [throttling.Counter("practice", "someone").hit() for _ in range(3)]

    assert waits == counts == [None, None, None]
    warnings = [r.getMessage() for r in caplog.records if r.name == "core.throttling"]
    assert len(warnings) == 6
    assert all("not applied: the cache is unreachable" in w for w in warnings)
