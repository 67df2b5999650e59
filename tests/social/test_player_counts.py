"""GET /api/players/<name>/ — the follow counts of a player's page, and whether I follow them.

People: ``other``'s page is read by ``owner`` (who follows them), by a player who does not, by
a visitor, by a guest and by ``other`` themselves."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from social.models import Follow
from tests.conftest import token_client
from tests.social.helpers import a_guest

pytestmark = pytest.mark.django_db


def counts_of(client, name: str = "other") -> tuple[int, int, bool | None]:
    body = client.get(f"/api/players/{name}/").json()
    return body["following"], body["followers"], body["followed_by_me"]


@pytest.fixture
def circle(owner: User, other: User) -> User:
    """``owner`` and a third player follow ``other``; ``other`` follows the third."""
    third = User.objects.create_user("third")
    Follow.objects.create(follower=owner, followed=other)
    Follow.objects.create(follower=third, followed=other)
    Follow.objects.create(follower=other, followed=third)
    return third


def test_a_follower_sees_the_counts_and_that_they_follow(owner_api, circle):
    assert counts_of(owner_api) == (1, 2, True)


def test_a_player_who_does_not_follow_sees_so(circle):
    stranger = User.objects.create_user("stranger")
    assert counts_of(token_client(stranger)) == (1, 2, False)


def test_a_visitor_sees_the_counts_and_no_follow_of_theirs(api, circle):
    assert counts_of(api) == (1, 2, None)


def test_a_guest_sees_the_counts_and_no_follow_of_theirs(circle):
    client, _ = a_guest()
    assert counts_of(client) == (1, 2, None)


def test_on_their_own_page_a_player_sees_their_counts_and_no_follow(other_api, circle):
    assert counts_of(other_api) == (1, 2, None)


def test_a_follow_and_an_unfollow_show_on_the_page_at_once(owner_api, other):
    assert counts_of(owner_api) == (0, 0, False)
    owner_api.post("/api/players/other/follow/")
    assert counts_of(owner_api) == (0, 1, True)
    owner_api.delete("/api/players/other/follow/")
    assert counts_of(owner_api) == (0, 0, False)
