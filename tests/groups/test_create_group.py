"""POST /api/groups/ — make a group: its owner is its first member, with a fresh invite."""

from __future__ import annotations

import pytest

from groups.models import Group, Membership
from groups.services import NAME_MAX

pytestmark = pytest.mark.django_db

URL = "/api/groups/"


def test_it_makes_a_group_owned_by_me_with_an_invite(owner_api, owner):
    response = owner_api.post(URL, {"name": "  Friday   club "})

    assert response.status_code == 201
    body = response.json()
    group = Group.objects.get()
    assert body == {
        "id": group.pk,
        "name": "Friday club",
        "owner": "owner",
        "created": body["created"],
        "owned": True,
        "invite": group.invite,
        "members": [{"player": "owner", "joined": body["members"][0]["joined"], "owner": True}],
    }
    assert len(body["invite"]) == 32
    assert Membership.objects.filter(group=group, user=owner).exists()


def test_each_group_has_its_own_unguessable_invite(owner_api):
    invites = {owner_api.post(URL, {"name": f"g{i}"}).json()["invite"] for i in range(5)}

    assert len(invites) == 5


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("", "invalid"),
        ("   ", "invalid_name"),
        ("x" * (NAME_MAX + 1), "invalid"),
        ("tab\u0007bell", "invalid_name"),
        (12, "invalid"),
        (None, "invalid"),
    ],
)
def test_a_bad_name_is_refused_and_makes_nothing(owner_api, name, code):
    response = owner_api.post(URL, {"name": name}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == code
    assert not Group.objects.exists()


def test_a_body_with_an_unknown_field_is_refused(owner_api):
    response = owner_api.post(URL, {"name": "ok", "owner": "someone"})

    assert response.status_code == 400
    assert response.json()["fields"] == {"owner": ["Unknown field."]}
    assert not Group.objects.exists()


def test_a_visitor_is_asked_to_log_in(api):
    response = api.post(URL, {"name": "club"})

    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_a_guest_is_asked_to_sign_up(guest):
    response = guest.post(URL, {"name": "club"}, format="json", **guest.csrf_headers())

    assert response.status_code == 403
    assert response.json() == {
        "code": "account_required",
        "message": "Sign up to make or join a group: an account puts you on the daily deal's "
        "board with your friends. The games you played as a guest are kept.",
    }
    assert not Group.objects.exists()


def test_a_player_in_as_many_groups_as_allowed_makes_no_more(owner_api, settings):
    settings.GROUPS_PER_PLAYER = 2
    for name in ("one", "two"):
        assert owner_api.post(URL, {"name": name}).status_code == 201

    response = owner_api.post(URL, {"name": "three"})

    assert response.status_code == 409
    assert response.json() == {
        "code": "too_many_groups",
        "message": "You are in 2 groups, the most a player may be in: leave one first.",
    }
    assert sorted(Group.objects.values_list("name", flat=True)) == ["one", "two"]
