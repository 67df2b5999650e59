"""The groups' rate limits: every write counts against ``group_actions`` per player, a join also
against ``group_joins`` per network (a guess at an invite is a join) — all or none, atomically:
a burst of parallel joins from one network gets exactly as many through as the limit allows
(on the in-memory cache here, on Redis in CI's pass)."""

from __future__ import annotations

from collections import Counter

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from groups.models import Group, Membership
from tests.conftest import token_client
from tests.games.test_concurrency import at_once


@pytest.mark.django_db
def test_a_players_group_actions_are_limited_and_a_refused_one_changes_nothing(
    owner_api, throttle_rates
):
    throttle_rates(group_actions="2/hour")
    made = owner_api.post("/api/groups/", {"name": "one"})
    assert made.status_code == 201
    url = f"/api/groups/{made.json()['id']}/"
    assert owner_api.patch(url, {"name": "two"}).status_code == 200

    refused = owner_api.patch(url, {"name": "three"})
    again = owner_api.post("/api/groups/", {"name": "four"})

    assert refused.status_code == again.status_code == 429
    assert refused.json()["code"] == "throttled" and refused.json()["retry_after"] >= 1
    assert refused.json()["message"].startswith("Too many changes to groups: try again later.")
    assert list(Group.objects.values_list("name", flat=True)) == ["two"]


@pytest.mark.django_db
def test_bad_input_uses_up_nothing(owner_api, throttle_rates):
    throttle_rates(group_actions="1/hour")

    assert owner_api.post("/api/groups/", {"name": "   "}).status_code == 400
    assert owner_api.post("/api/groups/", {"name": "kept"}).status_code == 201


@pytest.mark.django_db
def test_a_guess_at_an_invite_is_counted_against_the_network(owner_api, throttle_rates):
    throttle_rates(group_joins="3/hour")
    invite = owner_api.post("/api/groups/", {"name": "club"}).json()["invite"]
    guessers = [
        token_client(User.objects.create_user(f"guesser{i}")) for i in range(3)
    ]  # (each their own player: the network's limit, not a player's)

    answers = [
        g.post("/api/groups/join/", {"invite": f"guess-{i}"}) for i, g in enumerate(guessers)
    ]
    late = token_client(User.objects.create_user("late")).post(
        "/api/groups/join/", {"invite": invite}
    )
    elsewhere = token_client(User.objects.create_user("elsewhere")).post(
        "/api/groups/join/", {"invite": invite}, REMOTE_ADDR="198.51.100.7"
    )

    assert [a.status_code for a in answers] == [404, 404, 404]
    assert (late.status_code, late.json()["code"]) == (429, "throttled")
    assert late.json()["message"].startswith("Too many joins from your network: try again later.")
    assert elsewhere.status_code == 200  # another network
    assert Membership.objects.count() == 2


BURST = 30


@pytest.mark.django_db(transaction=True)
@pytest.mark.each_backend
def test_a_burst_of_joins_from_one_network_gets_no_more_than_its_limit_through(throttle_rates):
    throttle_rates(group_joins="10/hour", group_actions=None)
    owner = User.objects.create_user("owner")
    invite = token_client(owner).post("/api/groups/", {"name": "club"}).json()["invite"]
    clients: list[APIClient] = [
        token_client(User.objects.create_user(f"joiner{i}")) for i in range(BURST)
    ]

    answers = at_once(
        *[
            lambda c=client, i=i: c.post(
                "/api/groups/join/", {"invite": invite}, REMOTE_ADDR=f"10.7.0.{i}"
            )
            for i, client in enumerate(clients)
        ]
    )

    assert Counter(a.status_code for a in answers) == {200: 10, 429: BURST - 10}
    assert Membership.objects.count() == 11  # the owner and the ten


@pytest.mark.django_db(transaction=True)
@pytest.mark.each_backend
def test_a_burst_of_joins_never_passes_the_groups_size(settings, throttle_rates):
    throttle_rates(group_joins=None, group_actions=None)
    settings.GROUP_MEMBERS_MAX = 5
    owner = User.objects.create_user("owner")
    invite = token_client(owner).post("/api/groups/", {"name": "club"}).json()["invite"]
    clients = [token_client(User.objects.create_user(f"joiner{i}")) for i in range(12)]

    answers = at_once(
        *[lambda c=client: c.post("/api/groups/join/", {"invite": invite}) for client in clients]
    )

    assert Counter(a.status_code for a in answers) == {200: 4, 409: 8}
    assert Membership.objects.count() == 5
