"""GET /api/groups/ (mine) and GET /api/groups/<id>/ (a group and its members): for its members
only; to anyone else a group that exists is answered as one that does not."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_my_groups_are_listed_by_name_with_their_size(group, owner_api, member_api, other_api):
    owner_api.post("/api/groups/", {"name": "Another"})

    mine = owner_api.get("/api/groups/")
    theirs = member_api.get("/api/groups/")

    assert mine.status_code == 200
    assert [(g["name"], g["members"], g["owned"]) for g in mine.json()] == [
        ("Another", 1, True),
        ("Friday club", 2, True),
    ]
    assert theirs.json() == [
        {"id": group["id"], "name": "Friday club", "owner": "owner", "members": 2, "owned": False}
    ]
    assert other_api.get("/api/groups/").json() == []


def test_a_member_and_the_owner_see_the_group(group, owner_api, member_api):
    url = f"/api/groups/{group['id']}/"

    as_owner = owner_api.get(url)
    as_member = member_api.get(url)

    assert as_owner.status_code == as_member.status_code == 200
    assert as_member.json() == group
    assert as_owner.json() == {**group, "owned": True}


def test_to_anyone_else_the_group_is_not_there(group, other_api, guest):
    url = f"/api/groups/{group['id']}/"
    missing = other_api.get("/api/groups/999999/")

    for response in (other_api.get(url), guest.get(url)):
        assert response.status_code == 404
        assert (
            response.json() == missing.json() == {"code": "not_found", "message": "No such group."}
        )


def test_a_visitor_is_asked_to_log_in(api, group):
    assert api.get("/api/groups/").status_code == 401
    assert api.get(f"/api/groups/{group['id']}/").status_code == 401


def test_to_a_guest_no_board_nor_table_is_there(group, guest):
    for tail in ("board/", "week/"):
        response = guest.get(f"/api/groups/{group['id']}/{tail}")
        assert (response.status_code, response.json()["code"]) == (404, "not_found")
