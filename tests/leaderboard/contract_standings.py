"""The standings and milestones endpoints' part of the contract test
(tests/site/test_contract.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework.test import APIClient

Check = Callable[[str, str, Any, int], Any]


def check_standings(check: Check, api: APIClient, player: str) -> None:
    """Every documented status of the standings and milestones endpoints but 503, answered as
    the schema says (for tests/site/test_contract.py, which checks that each is seen). ``player``: a
    player's name; the week's table has one page at most."""
    standings = "/api/standings/"
    check("GET", standings, api.get(standings), 200)
    check("GET", standings, api.get(standings, {"period": "all", "page": "1"}), 200)
    check("GET", standings, api.get(standings, {"period": "year"}), 400)
    check("GET", standings, api.get(standings, {"at": "2030-02-30"}), 400)
    check("GET", standings, api.get(standings, {"page": "2"}), 404)
    check("GET", standings, api.get(standings, {"at": "9999-12-31"}), 404)
    milestones = "/api/players/{username}/milestones/"
    check("GET", milestones, api.get(f"/api/players/{player}/milestones/"), 200)
    check("GET", milestones, api.get("/api/players/nobody/milestones/"), 404)
