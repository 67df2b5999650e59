"""GET /api/me/following/ — whom I follow, newest first, 50 a page.

People: ``owner`` follows some players; ``other`` follows none; a visitor and a guest are
refused."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User

from social.models import Follow
from tests.social.helpers import a_guest

pytestmark = pytest.mark.django_db

URL = "/api/me/following/"
T0 = dt.datetime(2030, 6, 15, 10, tzinfo=dt.UTC)


def test_it_lists_whom_i_follow_newest_first(owner_api, owner, other):
    for minutes, name in enumerate(("ann", "bob", "cid")):
        Follow.objects.create(
            follower=owner,
            followed=User.objects.create_user(name),
            created=T0 + dt.timedelta(minutes=minutes),
        )
    Follow.objects.create(follower=other, followed=owner)  # (another's follow: not mine)

    response = owner_api.get(URL)

    assert response.status_code == 200
    assert response.json() == {
        "count": 3,
        "next": None,
        "previous": None,
        "results": [
            {"player": "cid", "since": "2030-06-15T10:02:00Z"},
            {"player": "bob", "since": "2030-06-15T10:01:00Z"},
            {"player": "ann", "since": "2030-06-15T10:00:00Z"},
        ],
    }


def test_a_player_who_follows_nobody_gets_an_empty_list(other_api, owner, other):
    Follow.objects.create(follower=owner, followed=other)

    assert other_api.get(URL).json()["results"] == []


def test_it_pages_fifty_at_a_time(owner_api, owner):
    users = User.objects.bulk_create(User(username=f"p{i:02}", password="!") for i in range(51))
    Follow.objects.bulk_create(Follow(follower=owner, followed=u) for u in users)

    first, second = owner_api.get(URL).json(), owner_api.get(URL, {"page": 2}).json()

    assert (first["count"], len(first["results"]), len(second["results"])) == (51, 50, 1)
    assert owner_api.get(URL, {"page": 3}).status_code == 404
    assert owner_api.get(URL, {"page": "0"}).status_code == 400


def test_a_visitor_is_asked_to_log_in_and_a_guest_to_sign_up(api, owner):
    assert api.get(URL).status_code == 401
    client, _ = a_guest()
    refused = client.get(URL)
    assert (refused.status_code, refused.json()["code"]) == (403, "account_required")
