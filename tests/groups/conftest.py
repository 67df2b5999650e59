"""Fixtures of the groups tests. People (tests/conftest.py has ``owner`` and ``other``): the
``owner`` owns the group, a ``member`` joined it, and ``other`` must be refused — to them the
group does not exist. The days, their deals and the clock are the leaderboard tests' own."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from tests.conftest import PASSWORD, SessionClient, token_client
from tests.leaderboard.conftest import clock, daily_deal  # noqa: F401 (fixtures)


@pytest.fixture
def member(db: None) -> User:
    return User.objects.create_user("member", password=PASSWORD)


@pytest.fixture
def member_api(member: User) -> APIClient:
    return token_client(member)


@pytest.fixture
def group(owner_api: APIClient, member_api: APIClient) -> dict[str, Any]:
    """A group of the owner's, which the member joined: its payload as the member saw it."""
    made = owner_api.post("/api/groups/", {"name": "Friday club"})
    assert made.status_code == 201, made.json()
    joined = member_api.post("/api/groups/join/", {"invite": made.json()["invite"]})
    assert joined.status_code == 200, joined.json()
    body: dict[str, Any] = joined.json()
    return body


@pytest.fixture
def guest() -> SessionClient:
    """A guest: a visitor whose first practice game made them one (core.accounts.guests)."""
    client = SessionClient()
    made = client.post("/api/games/", {}, format="json", **client.csrf_headers())
    assert made.status_code == 201, made.json()
    return client
