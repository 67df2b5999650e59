"""Following under parallel requests: a burst of follows sent at the same moment, one thread and
database connection each, gets exactly as many through as the rate limit and the cap allow —
never more. On SQLite and the in-memory cache here, on PostgreSQL and Redis in CI's pass."""

from __future__ import annotations

from collections import Counter

import pytest
from django.contrib.auth.models import User

from social.models import Follow
from tests.conftest import token_client
from tests.games.test_concurrency import at_once

BURST = 30

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.each_backend]


def burst_of_follows(follower: User) -> Counter[int]:
    """``follower`` follows BURST players at once, each from a client of its own."""
    names = [f"p{i}" for i in range(BURST)]
    User.objects.bulk_create([User(username=name, password="!") for name in names])
    clients = [token_client(follower) for _ in names]
    answers = at_once(
        *[
            lambda client=client, name=name: client.post(f"/api/players/{name}/follow/")
            for client, name in zip(clients, names, strict=True)
        ]
    )
    return Counter(answer.status_code for answer in answers)


def test_a_burst_of_follows_gets_no_more_than_the_rate_limit_through(owner, throttle_rates):
    throttle_rates(follows="10/min")

    assert burst_of_follows(owner) == {201: 10, 429: BURST - 10}
    assert Follow.objects.filter(follower=owner).count() == 10


def test_a_burst_of_follows_never_passes_the_cap(owner, throttle_rates, settings):
    throttle_rates(follows=None)
    settings.FOLLOWS_MAX = 7

    assert burst_of_follows(owner) == {201: 7, 409: BURST - 7}
    assert Follow.objects.filter(follower=owner).count() == 7
