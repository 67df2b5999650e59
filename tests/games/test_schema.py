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

    one_of = [
        ref["$ref"].rsplit("/", 1)[1] for ref in components[request.rsplit("/", 1)[1]]["oneOf"]
    ]
    assert one_of == ["ActionMoveRequest", "ActionTapRequest"]  # exactly one of them
    move, tap = (components[name] for name in one_of)
    assert (set(move["properties"]), set(move["required"])) == ({"ply", "action"},) * 2
    assert set(tap["properties"]) == {"ply", "tap", "index", "double_click"}
    assert set(tap["required"]) == {"ply", "tap"}
    assert move["additionalProperties"] is tap["additionalProperties"] is False
    played = components[ok.rsplit("/", 1)[1]]
    assert {"applied", "state", "code", "ply"} <= set(played["properties"])
    assert set(actions["responses"]) == {
        "200", "400", "401", "403", "404", "409", "413", "415", "429", "503",
    }  # fmt: skip


def test_it_describes_the_paginated_list_and_the_record(schema):
    listing = schema["paths"]["/api/games/"]["get"]["responses"]["200"]["content"]
    record = schema["paths"]["/api/games/{id}/record/"]["get"]

    assert listing["application/json"]["schema"]["$ref"].endswith("/PaginatedGameList")
    assert {p["name"] for p in record["parameters"]} == {"id", "states"}


def test_it_gives_the_patterns_of_codes_and_usernames(schema):
    components = schema["components"]["schemas"]

    code = components["NewGameRequest"]["properties"]["code"]
    username = components["SignupRequest"]["properties"]["username"]
    assert code["pattern"] == r"^(CF1-[DH][13]-[A-Z]{7}|CF2-[DH][13]-[1-9A-HJ-NP-Za-km-z]{41})$"
    assert username["pattern"] == "^[A-Za-z0-9_-]{3,30}$"


def test_it_documents_a_page_past_the_end(schema):
    listing = schema["paths"]["/api/games/"]["get"]

    assert {"400", "401", "404"} <= set(listing["responses"])
    page = next(p for p in listing["parameters"] if p["name"] == "page")
    assert page["schema"] == {"type": "integer", "minimum": 1, "maximum": 1_000_000}


def test_it_describes_the_hint_and_the_verdict(schema):
    paths = schema["paths"]
    components = schema["components"]["schemas"]

    def answer(path):
        ok = paths[path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        return components[ok["$ref"].rsplit("/", 1)[1]]

    hint, verdict = answer("/api/games/{id}/hint/"), answer("/api/games/{id}/verdict/")
    assert set(paths["/api/games/{id}/hint/"]) == set(paths["/api/games/{id}/verdict/"]) == {"get"}
    assert set(hint["properties"]) == set(hint["required"])
    assert set(hint["required"]) == {"outcome", "action", "remaining", "proved", "undo"}
    assert set(verdict["properties"]) == set(verdict["required"]) == {"outcome", "proved", "undo"}
    undo = components["Undo"]
    assert set(undo["properties"]) == set(undo["required"]) == {"actions", "ply"}
    game = components["Game"]
    assert "verdict" in game["required"]
    assert game["properties"]["verdict"]["oneOf"] == [
        {"$ref": "#/components/schemas/Verdict"},
        {"type": "null"},
    ]
    assert set(paths["/api/games/{id}/verdict/"]["get"]["responses"]) == {
        "200", "401", "403", "404", "409", "429", "503",
    }  # fmt: skip
