"""GET /api/schema/ describes every games endpoint with its request and response bodies."""

import pytest


@pytest.fixture
def schema(api):
    response = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


def test_it_describes_every_games_endpoint(schema):
    paths = schema["paths"]

    assert set(paths["/api/games/"]) == {"get", "post"}
    assert set(paths["/api/games/{id}/"]) == {"get"}
    assert set(paths["/api/games/{id}/actions/"]) == {"post"}
    assert set(paths["/api/games/{id}/resign/"]) == {"post"}
    assert set(paths["/api/games/{id}/record/"]) == {"get"}


def test_it_gives_request_and_response_bodies(schema):
    actions = schema["paths"]["/api/games/{id}/actions/"]["post"]
    request = actions["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    ok = actions["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    components = schema["components"]["schemas"]

    assert set(components[request.rsplit("/", 1)[1]]["properties"]) == {
        "ply", "action", "tap", "index", "double_click",
    }  # fmt: skip
    played = components[ok.rsplit("/", 1)[1]]
    assert {"applied", "state", "code", "ply"} <= set(played["properties"])
    assert {"400", "401", "404", "409", "429"} <= set(actions["responses"])


def test_it_describes_the_paginated_list_and_the_record(schema):
    listing = schema["paths"]["/api/games/"]["get"]["responses"]["200"]["content"]
    record = schema["paths"]["/api/games/{id}/record/"]["get"]

    assert listing["application/json"]["schema"]["$ref"].endswith("/PaginatedGameList")
    assert {p["name"] for p in record["parameters"]} == {"id", "states"}
