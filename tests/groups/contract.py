"""The groups endpoints' part of the contract test (tests/site/test_contract.py): each status the
schema documents for them, answered as the schema says."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient

from tests.conftest import SessionClient, _clear_cache, token_client

Check = Callable[[str, str, Any, int], Any]


def check_groups(
    check: Check,
    owner_api: APIClient,
    other_api: APIClient,
    api: APIClient,
    throttle_rates: Callable[..., None],
) -> None:
    """Every documented status of the groups endpoints, with ``owner_api`` owning a group,
    ``other_api`` a stranger to it, then its member."""
    groups = "/api/groups/"
    made = check("POST", groups, owner_api.post(groups, {"name": "Contract club"}), 201)
    check("POST", groups, owner_api.post(groups, {"name": "  "}), 400)
    check("POST", groups, api.post(groups, {"name": "club"}), 401)
    guest = SessionClient()
    assert guest.post("/api/games/", {}, format="json", **guest.csrf_headers()).status_code == 201
    check(
        "POST",
        groups,
        guest.post(groups, {"name": "g"}, format="json", **guest.csrf_headers()),
        403,
    )
    check("GET", groups, owner_api.get(groups), 200)
    check("GET", groups, api.get(groups), 401)

    join = "/api/groups/join/"
    detail = "/api/groups/{id}/"
    url = f"{groups}{made['id']}/"
    check("GET", detail, other_api.get(url), 404)
    check("POST", join, other_api.post(join, {"invite": ""}), 400)
    check("POST", join, other_api.post(join, {"invite": "no-such-invite"}), 404)
    check("POST", join, api.post(join, {"invite": made["invite"]}), 401)
    check(
        "POST",
        join,
        guest.post(join, {"invite": made["invite"]}, format="json", **guest.csrf_headers()),
        403,
    )
    check("POST", join, other_api.post(join, {"invite": made["invite"]}), 200)
    check("GET", detail, other_api.get(url), 200)
    check("GET", detail, api.get(url), 401)

    check("PATCH", detail, owner_api.patch(url, {"name": "Renamed"}), 200)
    check("PATCH", detail, owner_api.patch(url, {"name": ""}), 400)
    check("PATCH", detail, other_api.patch(url, {"name": "Mine"}), 403)
    check("PATCH", detail, api.patch(url, {"name": "Mine"}), 401)
    check("PATCH", detail, other_api.patch(f"{groups}999999/", {"name": "Mine"}), 404)

    invite = "/api/groups/{id}/invite/"
    renewed = check("POST", invite, owner_api.post(f"{url}invite/"), 200)
    check("POST", invite, other_api.post(f"{url}invite/"), 403)
    check("POST", invite, api.post(f"{url}invite/"), 401)
    check("POST", invite, other_api.post(f"{groups}999999/invite/"), 404)

    board = "/api/groups/{id}/board/"
    check("GET", board, other_api.get(f"{url}board/"), 200)
    check("GET", board, other_api.get(f"{url}board/", {"date": "2030-02-30"}), 400)
    check("GET", board, other_api.get(f"{url}board/", {"date": "2999-01-01"}), 404)
    check("GET", board, api.get(f"{url}board/"), 401)
    week = "/api/groups/{id}/week/"
    check("GET", week, other_api.get(f"{url}week/"), 200)
    check("GET", week, other_api.get(f"{url}week/", {"date": "someday"}), 400)
    check("GET", week, other_api.get(f"{groups}999999/week/"), 404)
    check("GET", week, api.get(f"{url}week/"), 401)

    member = "/api/groups/{id}/members/{username}/"
    stranger = token_client(User.objects.create_user("contract-stranger"))
    check("POST", join, stranger.post(join, {"invite": renewed["invite"]}), 200)
    check("DELETE", member, owner_api.delete(f"{url}members/owner/"), 400)
    check("DELETE", member, other_api.delete(f"{url}members/owner/"), 403)
    check("DELETE", member, owner_api.delete(f"{url}members/nobody/"), 404)
    check("DELETE", member, api.delete(f"{url}members/other/"), 401)
    check("DELETE", member, owner_api.delete(f"{url}members/contract-stranger/"), 200)

    leave = "/api/groups/{id}/leave/"
    check("POST", leave, stranger.post(f"{url}leave/"), 404)
    check("POST", leave, api.post(f"{url}leave/"), 401)
    check("POST", leave, other_api.post(f"{url}leave/"), 204)

    # The caps, then the limits.
    with override_settings(GROUPS_PER_PLAYER=1):
        check("POST", groups, other_api.post(groups, {"name": "One"}), 201)
        check("POST", groups, other_api.post(groups, {"name": "Two"}), 409)
        check("POST", join, other_api.post(join, {"invite": renewed["invite"]}), 409)
    _clear_cache()
    throttle_rates(group_actions="1/hour")
    check("POST", leave, stranger.post(f"{url}leave/"), 404)  # (not a member: not counted)
    taken = check("POST", groups, stranger.post(groups, {"name": "Three"}), 201)
    mine = f"{groups}{taken['id']}/"
    check("POST", groups, stranger.post(groups, {"name": "Four"}), 429)
    check("POST", join, stranger.post(join, {"invite": renewed["invite"]}), 429)
    check("PATCH", detail, stranger.patch(mine, {"name": "Five"}), 429)
    check("POST", invite, stranger.post(f"{mine}invite/"), 429)
    check("POST", leave, stranger.post(f"{mine}leave/"), 429)
    member_of_mine = token_client(User.objects.create_user("contract-member"))
    assert member_of_mine.post(join, {"invite": taken["invite"]}).status_code == 200
    check("DELETE", member, stranger.delete(f"{mine}members/contract-member/"), 429)
    throttle_rates(group_actions=None)
