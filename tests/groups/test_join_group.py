"""POST /api/groups/join/ — join a group by its current invite."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from groups.models import Group, Membership, invite_digest
from tests.conftest import token_client

pytestmark = pytest.mark.django_db

URL = "/api/groups/join/"


def test_a_player_with_the_invite_joins_and_sees_the_group(group, owner, member):
    assert [m["player"] for m in group["members"]] == ["owner", "member"]
    assert (group["owner"], group["owned"]) == ("owner", False)
    assert [m["owner"] for m in group["members"]] == [True, False]
    assert Membership.objects.filter(group_id=group["id"], user=member).exists()


def test_joining_twice_is_no_error_and_changes_nothing(group, member_api):
    again = member_api.post(URL, {"invite": group["invite"]})

    assert again.status_code == 200
    assert again.json() == group
    assert Membership.objects.filter(group_id=group["id"]).count() == 2


def test_an_unknown_and_a_replaced_invite_get_the_same_answer(group, owner_api, other_api):
    old = group["invite"]
    renewed = owner_api.post(f"/api/groups/{group['id']}/invite/")
    assert renewed.status_code == 200

    unknown = other_api.post(URL, {"invite": "A" * len(old)})
    stale = other_api.post(URL, {"invite": old})

    assert (unknown.status_code, stale.status_code) == (404, 404)
    assert (
        unknown.json()
        == stale.json()
        == {
            "code": "invite_not_found",
            "message": "This invite does not work: it may be mistyped, or the group has made a new "
            "one. Ask a member for the current link.",
        }
    )
    assert Membership.objects.filter(group_id=group["id"]).count() == 2
    fresh = other_api.post(URL, {"invite": renewed.json()["invite"]})
    assert fresh.status_code == 200
    assert [m["player"] for m in fresh.json()["members"]] == ["owner", "member", "other"]


@pytest.mark.parametrize("invite", ["", "x" * 65, 7, None])
def test_a_malformed_invite_is_refused(owner_api, invite):
    response = owner_api.post(URL, {"invite": invite}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"


def test_a_visitor_is_asked_to_log_in(api, group):
    assert api.post(URL, {"invite": group["invite"]}).status_code == 401


def test_a_guest_is_asked_to_sign_up_and_joins_nothing(guest, group):
    response = guest.post(URL, {"invite": group["invite"]}, format="json", **guest.csrf_headers())

    assert response.status_code == 403
    assert response.json()["code"] == "account_required"
    assert Membership.objects.filter(group_id=group["id"]).count() == 2


def test_a_full_group_takes_no_one_more(group, other_api, settings, django_user_model):
    settings.GROUP_MEMBERS_MAX = 3
    third = token_client(django_user_model.objects.create_user("third"))
    assert third.post(URL, {"invite": group["invite"]}).status_code == 200

    response = other_api.post(URL, {"invite": group["invite"]})

    assert response.status_code == 409
    assert response.json() == {
        "code": "group_full",
        "message": "This group is full: it has 3 members, the most a group may have.",
    }
    assert Membership.objects.filter(group_id=group["id"]).count() == 3


def test_a_player_in_as_many_groups_as_allowed_joins_no_more(group, other_api, settings):
    settings.GROUPS_PER_PLAYER = 1
    assert other_api.post("/api/groups/", {"name": "mine"}).status_code == 201

    response = other_api.post(URL, {"invite": group["invite"]})

    assert response.status_code == 409
    assert response.json()["code"] == "too_many_groups"
    assert not Group.objects.filter(pk=group["id"], memberships__user__username="other").exists()


def test_an_invite_is_looked_up_by_its_digest_by_one_path_whatever_it_is(
    group, owner_api, other_api
):
    """A guess and a replaced invite are answered by the same queries, and the database compares
    the invite's SHA-256 — which a guesser cannot steer — never the text sent: how long an answer
    takes cannot tell how near a guess came."""
    old = group["invite"]
    owner_api.post(f"/api/groups/{group['id']}/invite/")
    guess = old[:-1] + ("B" if old[-1] != "B" else "C")
    seen = {}
    for name, invite in (("stale", old), ("guess", guess)):
        with CaptureQueriesContext(connection) as queries:
            assert other_api.post(URL, {"invite": invite}).status_code == 404
        sql = [q["sql"] for q in queries.captured_queries if "groups_group" in q["sql"]]
        assert len(sql) == 1 and invite not in sql[0] and invite_digest(invite) in sql[0]
        seen[name] = len(queries.captured_queries)
    assert seen["stale"] == seen["guess"]
