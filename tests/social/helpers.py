"""Helpers for the following tests."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from tests.conftest import SessionClient


def a_guest() -> tuple[SessionClient, User]:
    """A browser that became a guest as a visitor does: by its first practice game (a random
    deal: these tests' daily deal is the worked example's)."""
    client = SessionClient()
    made = client.post("/api/games/", {}, format="json", **client.csrf_headers())
    assert made.status_code == 201
    return client, User.objects.get(username=made.json()["player"])


def follow(client: SessionClient, name: str, method: str = "post") -> Any:
    """POST (or DELETE) /api/players/<name>/follow/ as a page sends it."""
    call = client.post if method == "post" else client.delete
    return call(f"/api/players/{name}/follow/", **client.csrf_headers())
