"""The limits of new practice games (core.accounts.guests.practice_player): per player
(THROTTLE_PRACTICE) and per network for everyone (THROTTLE_PRACTICE_NETWORK), and for guests per
network (THROTTLE_GUESTS: new guests; THROTTLE_GUEST_GAMES: their games). A network is an IPv4
/24 or an IPv6 /64 (core.networks). Each holds under a burst of parallel requests, one
thread and database connection each, as tests/site/test_throttling_bursts.py does for the
others; a request one limit refuses, or whose game is refused, uses up none of the others."""

from __future__ import annotations

from collections import Counter

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from core.accounts.models import Guest
from games.models import Game
from tests.conftest import PASSWORD, SessionClient, token_client
from tests.games.helpers import CODE
from tests.games.test_concurrency import at_once

BURST = 40
MISTYPED = "CF2-D3-6FTH6SEZNBEqW5gpkKZBnVXVGovdVsct6WFe1PZyZ"  # (its check characters)

pytestmark = pytest.mark.django_db(transaction=True)


def statuses(answers) -> Counter[int]:
    return Counter(answer.status_code for answer in answers)


def burst(call, n: int = BURST):
    return at_once(*[lambda i=i: call(i) for i in range(n)])


def visit(address: str):
    """A new visitor's first practice game, from ``address``."""
    return APIClient().post("/api/games/", {"code": CODE}, format="json", REMOTE_ADDR=address)


def only(**rates: str) -> dict[str, str | None]:
    """These practice rates, the others off."""
    names = ("practice", "practice_network", "guests", "guest_games")
    return {name: rates.get(name) for name in names}


def test_new_guests_from_one_ipv4_network_get_no_more_than_the_limit_through(throttle_rates):
    throttle_rates(**only(guests="10/hour"))

    answers = burst(lambda i: visit(f"203.0.113.{i + 1}"))  # one /24

    assert statuses(answers) == {201: 10, 429: BURST - 10}
    assert User.objects.count() == Guest.objects.count() == Game.objects.count() == 10
    refused = next(a for a in answers if a.status_code == 429).json()
    assert refused["code"] == "throttled" and 0 < refused["retry_after"] <= 3600
    assert visit("198.51.100.7").status_code == 201  # another network has its own


def test_new_guests_from_one_ipv6_network_get_no_more_than_the_limit_through(throttle_rates):
    throttle_rates(**only(guests="10/hour"))

    answers = burst(lambda i: visit(f"2001:db8:0:7:{i:x}::1"))  # one /64

    assert statuses(answers) == {201: 10, 429: BURST - 10}
    assert Guest.objects.count() == 10
    assert visit("2001:db8:0:8::1").status_code == 201  # the next /64


def test_a_guest_s_games_from_one_network_get_no_more_than_the_limit_through(throttle_rates):
    throttle_rates(**only(guest_games="10/hour"))
    visitor = SessionClient()
    first = visitor.post("/api/games/", {}, format="json", **visitor.csrf_headers())
    assert first.status_code == 201  # one of the ten
    headers = visitor.csrf_headers()  # (logging the guest in gave the page a new token)

    answers = burst(lambda i: visitor.post("/api/games/", {}, format="json", **headers))

    assert statuses(answers) == {201: 9, 429: BURST - 9}
    assert Game.objects.count() == 10 and Guest.objects.count() == 1
    # A player on the same network is not a guest: their games are not counted there.
    assert (
        token_client(User.objects.create_user("owner", password=PASSWORD))
        .post("/api/games/", {})
        .status_code
        == 201
    )


def test_a_player_s_practice_games_get_no_more_than_the_limit_through(throttle_rates):
    throttle_rates(**only(practice="10/hour"))
    owner = User.objects.create_user("owner", password=PASSWORD)
    client = token_client(owner)

    answers = burst(lambda i: client.post("/api/games/", {}, REMOTE_ADDR=f"10.{i}.0.1"))

    assert statuses(answers) == {201: 10, 429: BURST - 10}
    assert Game.objects.filter(owner=owner).count() == 10
    other = token_client(User.objects.create_user("other", password=PASSWORD))
    assert other.post("/api/games/", {}).status_code == 201  # per player


def test_practice_games_from_one_network_get_no_more_than_the_limit_through(throttle_rates):
    throttle_rates(**only(practice_network="10/hour"))
    players = [User.objects.create_user(f"player{n}", password=PASSWORD) for n in range(4)]
    clients = [token_client(player) for player in players]

    answers = burst(
        lambda i: clients[i % 4].post("/api/games/", {}, REMOTE_ADDR=f"192.0.2.{i + 1}")
    )

    assert statuses(answers) == {201: 10, 429: BURST - 10}
    assert Game.objects.count() == 10


def test_a_request_one_limit_refuses_uses_up_none_of_the_others(throttle_rates):
    throttle_rates(**only(practice="5/hour", practice_network="3/hour"))
    client = token_client(User.objects.create_user("owner", password=PASSWORD))
    home = [client.post("/api/games/", {}, REMOTE_ADDR="192.0.2.1") for _ in range(6)]

    away = [client.post("/api/games/", {}, REMOTE_ADDR="198.51.100.1") for _ in range(3)]

    assert [a.status_code for a in home] == [201, 201, 201, 429, 429, 429]
    # The three the network refused took nothing of the player's five.
    assert [a.status_code for a in away] == [201, 201, 429]
    assert Game.objects.count() == 5


def test_a_refused_game_is_not_counted(throttle_rates):
    throttle_rates(**only(practice="2/hour", guests="2/hour"))
    client = token_client(User.objects.create_user("owner", password=PASSWORD))

    bad = [client.post("/api/games/", {"code": MISTYPED}) for _ in range(3)]
    bad_visits = [
        APIClient().post("/api/games/", {"code": MISTYPED}, format="json") for _ in range(3)
    ]

    assert {a.status_code for a in bad + bad_visits} == {400}
    assert [client.post("/api/games/", {}).status_code for _ in range(3)] == [201, 201, 429]
    assert [visit("127.0.0.1").status_code for _ in range(3)] == [201, 201, 429]
    assert Guest.objects.count() == 2
