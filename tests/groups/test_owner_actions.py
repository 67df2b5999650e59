"""What only a group's owner may do — rename it, remove a member, make a new invite — and what
every member may: leave (an owner who leaves hands the group on)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from groups.models import Group, Membership
from tests.conftest import token_client

pytestmark = pytest.mark.django_db

OWNER_ONLY = {"code": "owner_only", "message": "Only the group's owner may do that."}
NOT_FOUND = {"code": "not_found", "message": "No such group."}


def url(group, tail=""):
    return f"/api/groups/{group['id']}/{tail}"


# --- rename -------------------------------------------------------------------------------------


def test_the_owner_renames_the_group(group, owner_api, member_api):
    response = owner_api.patch(url(group), {"name": " Saturday club "})

    assert response.status_code == 200
    assert response.json()["name"] == "Saturday club"
    assert member_api.get(url(group)).json()["name"] == "Saturday club"


@pytest.mark.parametrize("name", ["", " \n ", "y" * 41])
def test_a_bad_name_changes_nothing(group, owner_api, name):
    response = owner_api.patch(url(group), {"name": name})

    assert response.status_code == 400
    assert response.json()["code"] in {"invalid", "invalid_name"}
    assert Group.objects.get(pk=group["id"]).name == "Friday club"


def test_a_member_may_not_rename_and_a_stranger_is_told_of_no_group(group, member_api, other_api):
    refused = member_api.patch(url(group), {"name": "Mine now"})
    unknown = other_api.patch(url(group), {"name": "Mine now"})

    assert (refused.status_code, refused.json()) == (403, OWNER_ONLY)
    assert (unknown.status_code, unknown.json()) == (404, NOT_FOUND)
    assert Group.objects.get(pk=group["id"]).name == "Friday club"


# --- remove a member ----------------------------------------------------------------------------


def test_the_owner_removes_a_member(group, owner_api, member_api, member):
    response = owner_api.delete(url(group, "members/MEMBER/"))  # (names ignore case)

    assert response.status_code == 200
    assert [m["player"] for m in response.json()["members"]] == ["owner"]
    assert member_api.get(url(group)).status_code == 404
    # The invite still works: the owner makes a new one to keep them out.
    assert member_api.post("/api/groups/join/", {"invite": group["invite"]}).status_code == 200


def test_removing_refuses_the_owner_themselves_a_stranger_and_a_member(
    group, owner_api, member_api, other_api
):
    myself = owner_api.delete(url(group, "members/owner/"))
    nobody = owner_api.delete(url(group, "members/other/"))
    by_member = member_api.delete(url(group, "members/owner/"))
    by_stranger = other_api.delete(url(group, "members/member/"))

    assert (myself.status_code, myself.json()["code"]) == (400, "owner_cannot_be_removed")
    assert nobody.status_code == 404
    assert nobody.json() == {"code": "not_found", "message": "No such member of this group."}
    assert (by_member.status_code, by_member.json()) == (403, OWNER_ONLY)
    assert (by_stranger.status_code, by_stranger.json()) == (404, NOT_FOUND)
    assert Membership.objects.filter(group_id=group["id"]).count() == 2


# --- a new invite -------------------------------------------------------------------------------


def test_a_new_invite_replaces_the_old(group, owner_api, member_api, other_api):
    response = owner_api.post(url(group, "invite/"))

    assert response.status_code == 200
    new = response.json()["invite"]
    assert new != group["invite"]
    assert member_api.get(url(group)).json()["invite"] == new
    assert other_api.post("/api/groups/join/", {"invite": group["invite"]}).status_code == 404
    assert other_api.post("/api/groups/join/", {"invite": new}).status_code == 200


def test_only_the_owner_makes_a_new_invite(group, member_api, other_api):
    assert member_api.post(url(group, "invite/")).json() == OWNER_ONLY
    assert other_api.post(url(group, "invite/")).json() == NOT_FOUND
    assert Group.objects.get(pk=group["id"]).invite == group["invite"]


# --- leave --------------------------------------------------------------------------------------


def test_a_member_leaves(group, member_api, owner_api):
    response = member_api.post(url(group, "leave/"))

    assert response.status_code == 204
    assert member_api.get(url(group)).status_code == 404
    assert [m["player"] for m in owner_api.get(url(group)).json()["members"]] == ["owner"]


def test_an_owner_who_leaves_hands_the_group_to_the_longest_standing_member(
    group, owner_api, member_api, other_api
):
    other_api.post("/api/groups/join/", {"invite": group["invite"]})
    # (the member joined first; make the later member's row older, to see that time decides)
    Membership.objects.filter(user__username="other").update(
        joined_at=timezone.now() - dt.timedelta(days=1)
    )

    assert owner_api.post(url(group, "leave/")).status_code == 204

    seen = other_api.get(url(group)).json()
    assert (seen["owner"], seen["owned"]) == ("other", True)
    assert [m["player"] for m in seen["members"]] == ["other", "member"]
    assert owner_api.get(url(group)).status_code == 404


def test_the_last_member_to_leave_ends_the_group(group, owner_api, member_api):
    assert member_api.post(url(group, "leave/")).status_code == 204
    assert owner_api.post(url(group, "leave/")).status_code == 204

    assert not Group.objects.filter(pk=group["id"]).exists()
    assert owner_api.post("/api/groups/join/", {"invite": group["invite"]}).status_code == 404


def test_a_stranger_cannot_leave_what_they_are_not_in(group, other_api, api):
    assert other_api.post(url(group, "leave/")).json() == NOT_FOUND
    assert api.post(url(group, "leave/")).status_code == 401
    assert Membership.objects.filter(group_id=group["id"]).count() == 2


def test_a_removed_member_may_be_kept_out_by_a_new_invite(group, owner_api, django_user_model):
    owner_api.delete(url(group, "members/member/"))
    owner_api.post(url(group, "invite/"))
    member = token_client(django_user_model.objects.get(username="member"))

    assert member.post("/api/groups/join/", {"invite": group["invite"]}).status_code == 404
