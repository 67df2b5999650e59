"""OPTIONS is answered on every endpoint of the API: 200 with what the view renders and parses
(for a caller it admits), never a 500 — GameListView, which has no serializer, was one."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from games import services


@pytest.fixture
def paths(owner) -> list[str]:
    """Every path of the schema, with its parameters filled in."""
    game = services.new_game(owner, code="CF1-D3-AAAAACL")
    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    values = {"id": str(game.pk), "date": "2026-11-29", "username": "owner", "week": "2026-W49"}
    return [re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path) for path in schema["paths"]]


def test_it_answers_options_on_every_endpoint(owner_api, paths):
    assert "/api/games/" in paths
    for path in paths:
        response = owner_api.options(path)

        assert response.status_code == 200, (path, response.content)
        body = response.json()
        assert body["renders"] == ["application/json"], path
        assert set(body) == {"name", "renders", "parses"}, path


def test_it_answers_options_for_anonymous_callers_without_a_server_error(api, paths):
    for path in paths:
        response = api.options(path)

        assert response.status_code in (200, 401), (path, response.content)
