"""The following endpoints' part of the contract test (tests/site/test_contract.py): each status
the schema documents for them, answered as the schema says."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django.test import override_settings
from rest_framework.test import APIClient

from tests.conftest import SessionClient, _clear_cache

Check = Callable[[str, str, Any, int], Any]


def check_social(
    check: Check,
    owner_api: APIClient,
    api: APIClient,
    throttle_rates: Callable[..., None],
    today: dt.date,
) -> None:
    """Every documented status of the following endpoints (and of the board's Following view),
    with ``owner_api`` following ``other`` (both players of the contract test)."""
    guest = SessionClient()
    assert guest.post("/api/games/", {}, format="json", **guest.csrf_headers()).status_code == 201
    as_guest = guest.csrf_headers()

    follow = "/api/players/{username}/follow/"
    url = "/api/players/other/follow/"
    check("POST", follow, owner_api.post(url), 201)
    check("POST", follow, owner_api.post(url), 200)
    check("POST", follow, owner_api.post("/api/players/owner/follow/"), 400)
    check("POST", follow, api.post(url), 401)
    check("POST", follow, guest.post(url, **as_guest), 403)
    check("POST", follow, owner_api.post("/api/players/nobody/follow/"), 404)
    with override_settings(FOLLOWS_MAX=1):
        check("POST", follow, owner_api.post("/api/players/newcomer/follow/"), 409)

    board = "/api/daily/{date}/board/"
    among = check("GET", board, owner_api.get(f"/api/daily/{today}/board/?following=1"), 200)
    assert [row["player"] for row in among["results"]] == ["owner"]  # (other has not played)
    check("GET", board, api.get(f"/api/daily/{today}/board/?following=1"), 401)

    following = "/api/me/following/"
    listed = check("GET", following, owner_api.get(following), 200)
    assert [row["player"] for row in listed["results"]] == ["other"]
    check("GET", following, owner_api.get(following, {"page": "one"}), 400)
    check("GET", following, api.get(following), 401)
    check("GET", following, guest.get(following), 403)
    check("GET", following, owner_api.get(following, {"page": 9}), 404)

    today_url = "/api/me/following/today/"
    check("GET", today_url, owner_api.get(today_url), 200)
    check("GET", today_url, owner_api.get(today_url, {"page": "one"}), 400)
    check("GET", today_url, api.get(today_url), 401)
    check("GET", today_url, guest.get(today_url), 403)
    check("GET", today_url, owner_api.get(today_url, {"page": 9}), 404)

    check("DELETE", follow, owner_api.delete(url), 200)
    check("DELETE", follow, owner_api.delete("/api/players/owner/follow/"), 400)
    check("DELETE", follow, api.delete(url), 401)
    check("DELETE", follow, guest.delete(url, **as_guest), 403)
    check("DELETE", follow, owner_api.delete("/api/players/nobody/follow/"), 404)

    _clear_cache()
    throttle_rates(follows="1/min")
    check("POST", follow, owner_api.post(url), 201)
    check("POST", follow, owner_api.post(url), 429)
    check("DELETE", follow, owner_api.delete(url), 429)
    throttle_rates(follows=None)
    _clear_cache()
