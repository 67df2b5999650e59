"""The leagues endpoints' part of the contract test (tests/site/test_contract.py): each status the
schema documents for them, answered as the schema says. ``owner`` is given a division of this
week's by rows written directly (the contract test keeps the real clock)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import User
from rest_framework.test import APIClient

from leagues.models import Division, Membership, Tier, Week
from leagues.rules import week_label, week_of

Check = Callable[[str, str, Any, int], Any]


def check_leagues(
    check: Check, owner: User, owner_api: APIClient, other_api: APIClient, api: APIClient
) -> None:
    """Every documented status of the leagues endpoints: ``owner`` has a division this week,
    the player of ``other_api`` has none."""
    monday = week_of(dt.datetime.now(dt.UTC).date())
    week, _made = Week.objects.get_or_create(monday=monday)
    division, _made = Division.objects.get_or_create(week=week, tier=Tier.SILVER, number=1)
    Membership.objects.get_or_create(
        week=week, player=owner, defaults={"division": division, "points": 55, "days": 1}
    )
    weeks, current, named = "/api/leagues/", "/api/leagues/current/", "/api/leagues/{week}/"
    check("GET", weeks, owner_api.get(weeks), 200)
    check("GET", weeks, api.get(weeks), 401)
    this_week = f"/api/leagues/{week_label(monday)}/"
    check("GET", current, owner_api.get(current), 200)
    check("GET", current, other_api.get(current), 404)
    check("GET", current, api.get(current), 401)
    check("GET", named, owner_api.get(this_week), 200)
    check("GET", named, owner_api.get("/api/leagues/2026-W60/"), 400)
    check("GET", named, other_api.get(this_week), 404)
    check("GET", named, api.get(this_week), 401)
