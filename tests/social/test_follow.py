"""POST and DELETE /api/players/<name>/follow/ — following a player, and no longer.

People: ``owner`` follows, ``other`` is followed; a visitor, a guest and ``owner`` themselves
must be refused."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from social.models import Follow
from tests.social.helpers import a_guest, follow

pytestmark = pytest.mark.django_db

URL = "/api/players/{}/follow/"


def state(player: str, followed: bool, followers: int, following: int = 0) -> dict[str, object]:
    return {
        "player": player,
        "followed_by_me": followed,
        "followers": followers,
        "following": following,
    }


def follows() -> list[tuple[str, str]]:
    return sorted(Follow.objects.values_list("follower__username", "followed__username").order_by())


def test_it_follows_a_player_and_answers_how_the_follow_stands(owner_api, owner, other):
    response = owner_api.post(URL.format("other"))

    assert response.status_code == 201
    assert response.json() == state("other", True, followers=1)
    assert follows() == [("owner", "other")]


def test_following_again_changes_nothing(owner_api, owner, other):
    owner_api.post(URL.format("other"))

    response = owner_api.post(URL.format("other"))

    assert response.status_code == 200
    assert response.json() == state("other", True, followers=1)
    assert follows() == [("owner", "other")]


def test_it_finds_the_player_ignoring_case(owner_api, owner, other):
    response = owner_api.post(URL.format("OTHER"))

    assert response.status_code == 201
    assert response.json()["player"] == "other"


def test_it_unfollows_and_unfollowing_again_changes_nothing(owner_api, owner, other):
    owner_api.post(URL.format("other"))
    User.objects.create_user("third")
    Follow.objects.create(follower=other, followed=User.objects.get(username="third"))

    first = owner_api.delete(URL.format("other"))
    again = owner_api.delete(URL.format("other"))

    assert (first.status_code, again.status_code) == (200, 200)
    assert first.json() == again.json() == state("other", False, followers=0, following=1)
    assert follows() == [("other", "third")]


def test_the_answer_counts_everyone_s_follows(owner_api, owner, other):
    for name in ("ann", "bob"):
        Follow.objects.create(follower=User.objects.create_user(name), followed=other)
    Follow.objects.create(follower=other, followed=User.objects.get(username="ann"))

    response = owner_api.post(URL.format("other"))

    assert response.json() == state("other", True, followers=3, following=1)


def test_an_unknown_player_is_not_found_and_nothing_changes(owner_api, owner):
    for method in (owner_api.post, owner_api.delete):
        response = method(URL.format("nobody"))
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"
    assert follows() == []


def test_a_guest_cannot_be_followed(owner_api, owner):
    _, guest = a_guest()

    response = owner_api.post(URL.format(guest.username))

    assert (response.status_code, response.json()["code"]) == (404, "not_found")
    assert follows() == []


def test_nobody_follows_themselves(owner_api, owner):
    for method in (owner_api.post, owner_api.delete):
        response = method(URL.format("Owner"))
        assert response.status_code == 400
        assert response.json() == {"code": "follow_self", "message": "You cannot follow yourself."}
    assert follows() == []


def test_a_visitor_is_asked_to_log_in(api, other):
    for method in (api.post, api.delete):
        response = method(URL.format("other"))
        assert (response.status_code, response.json()["code"]) == (401, "not_authenticated")
    assert follows() == []


def test_a_guest_is_asked_to_sign_up(other):
    client, _ = a_guest()

    for method in ("post", "delete"):
        response = follow(client, "other", method)
        assert response.status_code == 403
        body = response.json()
        assert body["code"] == "account_required"
        assert body["message"].startswith("Sign up to follow players")
    assert follows() == []


def test_a_session_must_send_its_csrf_token(session_client, other):
    response = session_client.post(URL.format("other"))

    assert (response.status_code, response.json()["code"]) == (403, "permission_denied")
    assert follows() == []


def test_a_player_follows_at_most_follows_max_players(owner_api, owner, settings):
    settings.FOLLOWS_MAX = 2
    for name in ("ann", "bob", "cid"):
        User.objects.create_user(name)
    assert owner_api.post(URL.format("ann")).status_code == 201
    assert owner_api.post(URL.format("bob")).status_code == 201

    refused = owner_api.post(URL.format("cid"))

    assert refused.status_code == 409
    assert refused.json() == {
        "code": "follow_limit",
        "message": "You follow 2 players already, the most one may follow. Unfollow someone first.",
    }
    assert follows() == [("owner", "ann"), ("owner", "bob")]
    # At the cap, following a player already followed is no new follow: answered as before.
    assert owner_api.post(URL.format("bob")).status_code == 200
    # Once one is unfollowed, there is room again.
    owner_api.delete(URL.format("ann"))
    assert owner_api.post(URL.format("cid")).status_code == 201
    assert follows() == [("owner", "bob"), ("owner", "cid")]


def test_follows_and_unfollows_are_rate_limited_per_player(owner_api, owner, other, throttle_rates):
    throttle_rates(follows="3/min")
    User.objects.create_user("ann")
    assert owner_api.post(URL.format("other")).status_code == 201
    assert owner_api.delete(URL.format("other")).status_code == 200
    assert owner_api.post(URL.format("ann")).status_code == 201

    refused = owner_api.post(URL.format("other"))

    assert refused.status_code == 429
    assert refused.json()["code"] == "throttled" and refused.json()["retry_after"] >= 1
    assert follows() == [("owner", "ann")]
