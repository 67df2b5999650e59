"""Every limit holds under parallel requests: a burst of requests sent at the same moment, one
thread and database connection each, gets exactly as many through as the limit allows — never
more (a limit read, checked and written back later let 45 of 80 parallel wrong passwords through
a limit of 20). On the in-memory cache here, on Redis in CI's second pass."""

from __future__ import annotations

from collections import Counter

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from games import pool, services
from games.models import Game
from tests.conftest import PASSWORD, token_client
from tests.games.helpers import solver_pool
from tests.games.test_concurrency import at_once

BURST = 40

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.each_backend]


@pytest.fixture(autouse=True)
def _hashing_waits(settings):
    """A burst's log-ins and sign-ups wait for a hashing slot as long as it takes: the limits are
    under test here, not the slots (tests/site/test_login_flood.py)."""
    settings.LOGIN_HASH_WAIT = 30


def statuses(answers) -> Counter[int]:
    return Counter(answer.status_code for answer in answers)


def burst(call, n: int = BURST):
    return at_once(*[lambda i=i: call(i) for i in range(n)])


def test_wrong_passwords_from_one_address_get_no_more_than_its_limit_through(throttle_rates):
    throttle_rates(login="20/min", login_account=None)
    User.objects.create_user("target", password=PASSWORD)

    answers = burst(
        lambda i: APIClient().post(
            "/api/auth/login/", {"username": "target", "password": f"guess {i}"}
        )
    )

    assert statuses(answers) == {400: 20, 429: BURST - 20}


def test_guesses_at_one_account_from_one_network_get_no_more_than_its_limit_through(
    throttle_rates,
):
    throttle_rates(login=None, login_account="10/hour", login_account_all=None)
    User.objects.create_user("target", password=PASSWORD)

    answers = burst(
        lambda i: APIClient().post(
            "/api/auth/login/",
            {"username": "target", "password": f"guess {i}"},
            REMOTE_ADDR=f"10.1.0.{i}",  # every address of one /24
        )
    )

    assert statuses(answers) == {400: 10, 429: BURST - 10}
    # The owner, from another network: in.
    late = APIClient().post(
        "/api/auth/login/", {"username": "target", "password": PASSWORD}, REMOTE_ADDR="10.9.9.9"
    )
    assert late.status_code == 200


def test_guesses_at_one_account_from_many_networks_get_no_more_than_its_ceiling_through(
    throttle_rates,
):
    throttle_rates(login=None, login_account="10/hour", login_account_all="25/hour")
    User.objects.create_user("target", password=PASSWORD)
    known = APIClient().post(
        "/api/auth/login/", {"username": "target", "password": PASSWORD}, REMOTE_ADDR="10.9.9.9"
    )
    assert known.status_code == 200  # (the owner's network, known from now on)

    answers = burst(
        lambda i: APIClient().post(
            "/api/auth/login/",
            {"username": "target", "password": f"guess {i}"},
            REMOTE_ADDR=f"10.1.{i}.1",  # a network each
        )
    )

    assert statuses(answers) == {400: 25, 429: BURST - 25}
    # The right password from a network new to the account: refused while the ceiling is full;
    # from the owner's: in.
    new = APIClient().post(
        "/api/auth/login/", {"username": "target", "password": PASSWORD}, REMOTE_ADDR="10.8.8.8"
    )
    home = APIClient().post(
        "/api/auth/login/", {"username": "target", "password": PASSWORD}, REMOTE_ADDR="10.9.9.10"
    )
    assert (new.status_code, home.status_code) == (429, 200)


def test_the_right_password_in_a_burst_of_guesses_gets_in_only_within_the_limit(throttle_rates):
    throttle_rates(login=None, login_account="5/hour", login_account_all=None)
    User.objects.create_user("target", password=PASSWORD)

    answers = burst(
        lambda i: APIClient().post(
            "/api/auth/login/",
            {"username": "target", "password": PASSWORD if i == BURST - 1 else f"guess {i}"},
        )
    )

    counted = statuses(answers)
    assert counted[400] <= 5  # five wrong passwords checked at most, never more
    assert counted[200] in (0, 1)  # the right one, if it came before the limit was reached
    # The limit was filled: five let through (a success gives its place back, which a guess
    # still waiting may then take).
    assert counted[400] + counted[200] >= 5
    assert counted[400] + counted[200] + counted[429] == BURST


def test_admin_log_ins_get_no_more_than_the_limit_through(throttle_rates):
    throttle_rates(login="20/min", login_account=None)
    User.objects.create_superuser("admin", password=PASSWORD)

    answers = burst(
        lambda i: Client().post(
            "/admin/login/", {"username": "admin", "password": f"guess {i}", "next": "/admin/"}
        )
    )

    assert statuses(answers) == {200: 20, 429: BURST - 20}  # 200: the form again, refused


def test_sign_ups_from_one_address_get_no_more_than_the_limit_through(throttle_rates):
    throttle_rates(signup="10/hour")

    answers = burst(
        lambda i: APIClient().post(
            "/api/auth/signup/", {"username": f"newcomer{i}", "password": PASSWORD}
        )
    )

    assert statuses(answers) == {201: 10, 429: BURST - 10}
    assert User.objects.count() == 10


def test_sign_ups_from_one_ipv6_64_get_no_more_than_the_limit_through(throttle_rates):
    throttle_rates(signup="10/hour")

    answers = burst(
        lambda i: APIClient().post(
            "/api/auth/signup/",
            {"username": f"newcomer{i}", "password": PASSWORD},
            REMOTE_ADDR=f"2001:db8:7:7:{i:x}::{i + 1:x}",  # thirty addresses of one /64
        ),
        n=30,
    )

    assert statuses(answers) == {201: 10, 429: 20}
    assert User.objects.count() == 10
    other = APIClient().post(
        "/api/auth/signup/",
        {"username": "neighbour", "password": PASSWORD},
        REMOTE_ADDR="2001:db8:7:8::1",  # the next /64
    )
    assert other.status_code == 201


def test_hint_searches_get_no_more_than_the_limit_through(throttle_rates, settings):
    throttle_rates(hints="5/min")
    settings.HINT_SECONDS = 0.1
    # Every search waits for the pool's one worker, however many: none is refused busy.
    settings.SOLVER_QUEUE = 12
    settings.SOLVER_WAIT = 60
    pool.shutdown()  # (made anew with these settings)
    owner = User.objects.create_user("owner", password=PASSWORD)
    games = [services.new_game(owner) for _ in range(12)]  # twelve positions: twelve searches
    client = token_client(owner)

    answers = burst(lambda i: client.get(f"/api/games/{games[i].pk}/hint/"), n=len(games))
    pool.shutdown()

    assert statuses(answers) == {200: 5, 429: len(games) - 5}


def test_hint_searches_refused_busy_are_not_counted(throttle_rates, settings):
    throttle_rates(hints="5/min")
    settings.HINT_SECONDS = 0.1
    owner = User.objects.create_user("owner", password=PASSWORD)
    games = [services.new_game(owner) for _ in range(12)]
    client = token_client(owner)

    with solver_pool(workers=1, queue=4, budget=60):  # the worker held, due in a minute
        refused = burst(lambda i: client.get(f"/api/games/{games[i].pk}/hint/"), n=len(games))
    answers = [client.get(f"/api/games/{game.pk}/hint/") for game in games[:6]]

    assert statuses(refused) == {503: len(games)}  # at once, and none of them counted
    assert statuses(answers) == {200: 5, 429: 1}


def test_records_with_every_state_get_no_more_than_the_limit_through(throttle_rates):
    throttle_rates(states="30/min")
    owner = User.objects.create_user("owner", password=PASSWORD)
    game = services.new_game(owner, code="CF1-D3-AAAAACL")
    services.resign(game, owner)

    answers = burst(lambda i: APIClient().get(f"/api/games/{game.pk}/record/?states=1"))

    assert statuses(answers) == {200: 30, 429: BURST - 30}
    assert Game.objects.count() == 1
