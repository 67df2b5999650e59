"""The schema is the contract: every endpoint's live responses, for each status the schema
documents, validate against /api/schema/ — and every documented status is seen.

Responses are validated with jsonschema against the schema that the running site serves (OpenAPI
3.1: its schemas are JSON Schema 2020-12). To catch a payload field the schema forgets, every
object schema is made strict here (no properties beyond the documented ones).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import urllib.error
import urllib.request
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from rest_framework.test import APIClient

from canfield_site.asgi import application
from games import services
from leaderboard import deals
from leaderboard.models import DailyDeal
from tests.conftest import PASSWORD, SessionClient, _clear_cache, token_client
from tests.games.helpers import CODE, WORKED_EXAMPLE, solver_pool
from tests.games.test_finish import near_end_of
from tests.groups.contract import check_groups
from tests.leaderboard.contract_standings import check_standings
from tests.leaderboard.helpers import CODE as LEADERBOARD_CODE
from tests.leaderboard.helpers import store_deal
from tests.leagues.contract import check_leagues
from tests.ratings.contract import check_ratings
from tests.social.contract import check_social
from tests.support import Daphne, asgi_request, django_env

API = "urn:canfield:api"


class Contract:
    """Validates responses against the served schema and records which (method, path, status)
    have been seen."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = _strict(schema)
        self.registry = Registry().with_resource(
            API, Resource.from_contents(self.schema, default_specification=DRAFT202012)
        )
        self.seen: set[tuple[str, str, str]] = set()

    def documented(self) -> set[tuple[str, str, str]]:
        return {
            (method.upper(), path, status)
            for path, operations in self.schema["paths"].items()
            if path.startswith("/api/")
            for method, operation in operations.items()
            for status in operation["responses"]
        }

    def check(self, method: str, path: str, response: Any, status: int) -> Any:
        """``response`` (to ``method`` on the path template ``path``) has ``status``, the schema
        documents that status for the operation, and the body validates against it."""
        assert response.status_code == status, (method, path, response.content[:300])
        key = (method, path, str(status))
        operation = self.schema["paths"][path][method.lower()]
        assert str(status) in operation["responses"], f"{key} is not documented"
        self.seen.add(key)
        documented = operation["responses"][str(status)]
        if "content" not in documented:
            assert not response.content, key
            return None
        pointer = "/".join(
            part.replace("~", "~0").replace("/", "~1")
            for part in ("paths", path, method.lower(), "responses", str(status))
        )
        body = response.json()
        validator = jsonschema.Draft202012Validator(
            {"$ref": f"{API}#/{pointer}/content/application~1json/schema"},
            registry=self.registry,
            format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER,
        )
        errors = sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))
        assert not errors, f"{key}: " + "; ".join(
            f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]
        )
        return body


def _strict(node: Any) -> Any:
    """A copy of the schema where every object schema with properties admits no others."""
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    copy = {key: _strict(value) for key, value in node.items()}
    if copy.get("type") == "object" and "properties" in copy:
        copy.setdefault("additionalProperties", False)
    return copy


class AsgiResponse:
    """An answer of the ASGI application Daphne serves (what the test client skips)."""

    def __init__(self, method: str, path: str, headers: list[tuple[bytes, bytes]]) -> None:
        self.status_code, _, self.content, _ = asgi_request(application, method, path, headers)

    def json(self) -> Any:
        return json.loads(self.content)


class LiveResponse:
    """An answer of a live server (urllib), as the test client's responses look to ``check``."""

    def __init__(
        self, url: str, method: str = "GET", body: bytes | None = None, token: str = ""
    ) -> None:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["Authorization"] = f"Token {token}"
        request = urllib.request.Request(url, body, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                self.status_code, self.content = response.status, response.read()
                self.headers = response.headers
        except urllib.error.HTTPError as error:
            self.status_code, self.content, self.headers = error.code, error.read(), error.headers

    def json(self) -> Any:
        return json.loads(self.content)


@pytest.fixture
def contract(api: APIClient) -> Contract:
    response = api.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return Contract(response.json())


def test_every_endpoint_answers_each_documented_status_as_the_schema_says(
    contract, api, owner, other, throttle_rates, tmp_path
):
    owner_api, other_api = token_client(owner), token_client(other)
    check = contract.check
    today = dt.datetime.now(dt.UTC).date()

    # --- health and accounts -------------------------------------------------------------------
    check("GET", "/api/health/", api.get("/api/health/"), 200)
    ready = "/api/health/ready/"
    check("GET", ready, api.get(ready), 200)
    with Daphne(django_env(f"sqlite:///{tmp_path / 'missing' / 'db'}"), tmp_path / "log") as down:
        check("GET", ready, LiveResponse(f"{down.url}{ready}"), 503)  # its database is missing
        # Every other operation, its database away: 503 unavailable, never a 500.
        for path, operations in contract.schema["paths"].items():
            for method in operations:
                if path == ready or "503" not in operations[method]["responses"]:
                    continue
                url = down.url + re.sub(r"\{(\w+)\}", "1", path).replace("{date}", "2030-01-01")
                body = b"{}" if method == "post" else None
                answer = LiveResponse(url, method.upper(), body, token="0" * 64)  # (a key's shape)
                unavailable = check(method.upper(), path, answer, 503)
                assert (unavailable["code"], unavailable["retry_after"]) == ("unavailable", 5)
                assert answer.headers["Retry-After"] == "5"
    check("GET", "/api/auth/me/", owner_api.get("/api/auth/me/"), 200)
    check("GET", "/api/auth/me/", api.get("/api/auth/me/"), 401)
    mine = "/api/auth/me/settings/"
    check("GET", mine, owner_api.get(mine), 200)
    check("GET", mine, api.get(mine), 401)
    check("PATCH", mine, owner_api.patch(mine, {"practice_private": False}, format="json"), 200)
    check("PATCH", mine, owner_api.patch(mine, {"practice_private": "no"}, format="json"), 400)
    check("PATCH", mine, api.patch(mine, {"practice_private": True}, format="json"), 401)
    a_guest = SessionClient()
    made = a_guest.post("/api/games/", {}, format="json", **a_guest.csrf_headers())
    assert made.status_code == 201  # (a guest now)
    check("GET", mine, a_guest.get(mine), 403)  # account_required
    check("PATCH", mine, a_guest.patch(mine, {}, format="json", **a_guest.csrf_headers()), 403)

    signup = "/api/auth/signup/"
    newcomer = {"username": "newcomer", "password": PASSWORD}
    check("POST", signup, APIClient().post(signup, newcomer), 201)  # (it logs the client in)
    check("POST", signup, APIClient().post(signup, {"username": "x", "password": PASSWORD}), 400)
    login = "/api/auth/login/"
    good = {"username": "owner", "password": PASSWORD}
    check("POST", login, APIClient().post(login, good), 200)
    check("POST", login, APIClient().post(login, {**good, "password": "wrong"}), 400)
    session = SessionClient()
    session.force_login(owner)  # a logged-in session must send its CSRF token
    check("POST", signup, session.post(signup, {"username": "later", "password": PASSWORD}), 403)
    check("POST", login, session.post(login, good), 403)
    logout = "/api/auth/logout/"
    check("POST", logout, session.post(logout), 403)
    check("POST", logout, session.post(logout, **session.csrf_headers()), 204)

    # --- games ---------------------------------------------------------------------------------
    games = "/api/games/"
    game = check("POST", games, owner_api.post(games, {"code": CODE}), 201)
    check("POST", games, owner_api.post(games, {"code": "CF1-D3-nope"}), 400)
    check("POST", games, APIClient().post(games, {}), 201)  # a visitor: now a guest
    check("GET", games, owner_api.get(games), 200)
    check("GET", games, owner_api.get(games, {"status": "sideways"}), 400)
    check("GET", games, owner_api.get(games, {"page": 9}), 404)
    check("GET", games, api.get(games), 401)

    detail = "/api/games/{id}/"
    check("GET", detail, owner_api.get(f"{games}{game['id']}/"), 200)
    check("GET", detail, other_api.get(f"{games}{game['id']}/"), 404)
    check("GET", detail, api.get(f"{games}{game['id']}/"), 401)

    actions = "/api/games/{id}/actions/"
    url = f"{games}{game['id']}/actions/"
    for ply, token in enumerate(WORKED_EXAMPLE):
        check("POST", actions, owner_api.post(url, {"ply": ply, "action": token}), 200)
    check("POST", actions, owner_api.post(url, {"ply": 3, "tap": "T3"}), 200)
    check("POST", actions, owner_api.post(url, {"ply": 3, "action": "W-F1"}), 400)
    check("POST", actions, owner_api.post(url, {"ply": 0, "action": "D"}), 409)
    check("POST", actions, other_api.post(url, {"ply": 3, "action": "D"}), 404)
    check("POST", actions, api.post(url, {"ply": 3, "action": "D"}), 401)
    _clear_cache()
    throttle_rates(actions="1/min")
    check("POST", actions, owner_api.post(url, {"ply": 3, "action": "D"}), 200)
    check("POST", actions, owner_api.post(url, {"ply": 4, "action": "D"}), 429)
    throttle_rates(actions=None)

    record = "/api/games/{id}/record/"
    url = f"{games}{game['id']}/record/"
    check("GET", record, owner_api.get(url, {"states": "1"}), 200)
    throttle_rates(states="1/min")  # (one read already)
    check("GET", record, owner_api.get(url, {"states": "1"}), 429)
    throttle_rates(states=None)
    check("GET", record, owner_api.get(url, {"states": "perhaps"}), 400)
    check("GET", record, api.get(url), 401)
    check("GET", record, other_api.get(url), 404)

    hint = "/api/games/{id}/hint/"
    actions_url = f"{games}{game['id']}/actions/"
    url = f"{games}{game['id']}/hint/"
    found = check("GET", hint, owner_api.get(url), 200)
    assert found["outcome"] == "win"
    check("GET", hint, api.get(url), 401)
    check("GET", hint, other_api.get(url), 404)
    _clear_cache()
    throttle_rates(hints="1/min")

    def leave_the_line(hinted: str) -> None:
        """Play an action other than the hint's: a position no search has seen."""
        now = owner_api.get(f"{games}{game['id']}/").json()
        other = next(token for token in now["state"]["legal"] if token != hinted)
        owner_api.post(actions_url, {"ply": now["ply"], "action": other})

    leave_the_line(found["action"])
    found = check("GET", hint, owner_api.get(url), 200)  # a search: the one the limit allows
    leave_the_line(found["action"])
    check("GET", hint, owner_api.get(url), 429)
    throttle_rates(hints=None)
    with solver_pool(workers=1, queue=0):
        check("GET", hint, owner_api.get(url), 503)

    verdict = "/api/games/{id}/verdict/"
    url = f"{games}{game['id']}/verdict/"
    check("GET", verdict, owner_api.get(url), 200)  # a search: the hint above was refused
    check("GET", verdict, api.get(url), 401)
    check("GET", verdict, other_api.get(url), 404)
    throttle_rates(verdicts="1/min")  # (one search already)
    leave_the_line("")
    check("GET", verdict, owner_api.get(url), 429)
    throttle_rates(verdicts=None)
    with solver_pool(workers=1, queue=0):
        check("GET", verdict, owner_api.get(url), 503)

    finish = "/api/games/{id}/finish/"
    url = f"{games}{game['id']}/finish/"
    ply = owner_api.get(f"{games}{game['id']}/").json()["ply"]
    check("POST", finish, owner_api.post(url, {}), 400)
    check("POST", finish, other_api.post(url, {"ply": ply}), 404)
    check("POST", finish, api.post(url, {"ply": ply}), 401)
    _clear_cache()
    throttle_rates(actions="1/min")
    check("POST", finish, owner_api.post(url, {"ply": ply}), 409)  # not_finishable
    check("POST", finish, owner_api.post(url, {"ply": ply}), 429)
    throttle_rates(actions=None)
    near, played = near_end_of(owner)  # a game Finish can finish
    finished = check(
        "POST", finish, owner_api.post(f"{games}{near.pk}/finish/", {"ply": len(played)}), 200
    )
    assert finished["status"] == "won" and finished["applied"]

    resign = "/api/games/{id}/resign/"
    url = f"{games}{game['id']}/resign/"
    check("POST", resign, other_api.post(url), 404)
    check("POST", resign, api.post(url), 401)
    check("POST", resign, owner_api.post(url), 200)
    check("POST", resign, owner_api.post(url), 409)
    finished = check("GET", record, other_api.get(f"{games}{game['id']}/record/"), 200)
    assert finished["result"] == "resigned"
    check("GET", hint, owner_api.get(f"{games}{game['id']}/hint/"), 409)
    check("GET", verdict, owner_api.get(f"{games}{game['id']}/verdict/"), 409)
    analysis = "/api/games/{id}/analysis/"
    check("GET", analysis, api.get(f"{games}{game['id']}/analysis/"), 200)  # (analysing)
    check("GET", analysis, api.get(f"{games}999999/analysis/"), 404)

    # --- the daily deal and the leaderboard -----------------------------------------------------
    daily = "/api/daily/"
    check("GET", daily, api.get(daily), 200)
    check("POST", daily, api.post(daily), 401)
    guest = SessionClient()
    made = guest.post(games, {}, format="json", **guest.csrf_headers())
    assert made.status_code == 201  # a guest now
    check("POST", daily, guest.post(daily, **guest.csrf_headers()), 403)  # account_required
    # The day's deal is being dealt (another process claimed it): 503, and no attempt created.
    assert not DailyDeal.objects.filter(date=today).exclude(code="").exists()
    assert deals.claim(today)
    pending = check("POST", daily, owner_api.post(daily), 503)
    assert (pending["code"], pending["retry_after"]) == ("deal_pending", 2)
    assert check("GET", daily, owner_api.get(daily), 200)["attempt"] is None
    store_deal(today)  # (as the dealer would)
    attempt = check("POST", daily, owner_api.post(daily), 201)
    check("POST", daily, owner_api.post(daily), 409)
    mine = check("GET", daily, owner_api.get(daily), 200)
    assert mine["attempt"]["id"] == attempt["id"]
    check("GET", hint, owner_api.get(f"{games}{attempt['id']}/hint/"), 403)
    check("GET", verdict, owner_api.get(f"{games}{attempt['id']}/verdict/"), 403)
    services.play(attempt["id"], owner, 0, "D")
    # Today's attempt has no analysis before its day is over: a visitor is told to log in.
    check("GET", analysis, api.get(f"{games}{attempt['id']}/analysis/"), 401)

    board = "/api/daily/{date}/board/"
    check("GET", board, owner_api.get(f"/api/daily/{today}/board/"), 200)
    check("GET", board, api.get("/api/daily/today/board/"), 400)
    check("GET", board, api.get(f"/api/daily/{today + dt.timedelta(days=1)}/board/"), 404)

    picture = "/api/daily/{date}/picture/"
    drawn = check("GET", picture, owner_api.get(f"/api/daily/{today}/picture/"), 200)
    assert drawn["me"] is not None and drawn["players"] == 1
    check("GET", picture, api.get("/api/daily/2030-02-30/picture/"), 400)
    check("GET", picture, api.get(f"/api/daily/{today + dt.timedelta(days=1)}/picture/"), 404)

    # Today's attempt is being played: its player may watch it, a visitor may not.
    watch, seen = "/api/watch/", lambda lists: [g["id"] for g in lists["playing"]]
    assert attempt["id"] in seen(check("GET", watch, owner_api.get(watch), 200))
    assert attempt["id"] not in seen(check("GET", watch, api.get(watch), 200))

    solution = "/api/daily/{date}/solution/"
    check("GET", solution, api.get(f"/api/daily/{today}/solution/"), 404)  # not over yet
    check("GET", solution, api.get("/api/daily/2030-02-30/solution/"), 400)
    yesterday = today - dt.timedelta(days=1)
    store_deal(yesterday)
    solved = check("GET", solution, api.get(f"/api/daily/{yesterday}/solution/"), 200)
    assert (solved["result"], solved["code"]) == ("won", LEADERBOARD_CODE)
    check("GET", solution, api.get(f"/api/daily/{yesterday}/solution/?states=2"), 400)
    throttle_rates(states="1/min")
    check("GET", solution, owner_api.get(f"/api/daily/{yesterday}/solution/?states=1"), 200)
    check("GET", solution, owner_api.get(f"/api/daily/{yesterday}/solution/?states=1"), 429)
    throttle_rates(states=None)

    days = "/api/daily/days/"
    check("GET", days, api.get(days), 200)
    check("GET", days, api.get(days, {"page": 9}), 404)
    check("GET", days, api.get(days, {"page": "1.0"}), 400)

    players = "/api/players/{username}/"
    check("GET", players, api.get("/api/players/owner/"), 200)
    check("GET", players, api.get("/api/players/owner/", {"page": 0}), 400)
    check("GET", players, api.get("/api/players/nobody/"), 404)
    check_social(check, owner_api, api, throttle_rates, today)  # following (tests/social)
    player_games = "/api/players/{username}/games/"
    check("GET", player_games, api.get("/api/players/owner/games/"), 200)
    check("GET", player_games, owner_api.get("/api/players/owner/games/?kind=daily"), 200)
    check("GET", player_games, api.get("/api/players/owner/games/?result=lost"), 400)
    check("GET", player_games, api.get("/api/players/nobody/games/"), 404)

    # --- groups ----------------------------------------------------------------------------------
    check_groups(check, owner_api, other_api, api, throttle_rates)
    _clear_cache()

    # --- standings over time, milestones, ratings ------------------------------------------------
    check_standings(check, api, "owner")
    check_ratings(check, api)
    check_leagues(check, owner, owner_api, other_api, api)

    # --- what every POST may answer: 413, 415 (with a body), 403 (a session without CSRF) -------
    ids = {"id": str(game["id"]), "username": "other"}
    session = SessionClient()
    session.force_login(other)
    for path, operations in contract.schema["paths"].items():
        if "post" not in operations:
            continue
        url = re.sub(r"\{(\w+)\}", lambda m: ids[m.group(1)], path)
        for status in sorted({"413", "415", "403"} & set(operations["post"]["responses"])):
            response: Any
            if status == "413":
                headers = [(b"content-type", b"application/json"), (b"content-length", b"70000")]
                response = AsgiResponse("POST", url, headers)
            elif status == "415":
                response = owner_api.post(url, "ply=0", content_type="text/plain")
            else:
                response = session.post(url, {}, format="json")
            check("POST", path, response, int(status))

    # --- rate limits, then: every documented response was seen ---------------------------------
    _clear_cache()
    throttle_rates(signup="1/min", login="1/min")
    check("POST", signup, APIClient().post(signup, {"username": "one", "password": PASSWORD}), 201)
    check("POST", signup, APIClient().post(signup, {"username": "two", "password": PASSWORD}), 429)
    check("POST", login, APIClient().post(login, good), 200)
    check("POST", login, APIClient().post(login, good), 429)
    _clear_cache()
    throttle_rates(login="100/min", login_account="1/hour")
    check("POST", login, APIClient().post(login, {**good, "password": "wrong"}), 400)
    check("POST", login, APIClient().post(login, good), 429)  # the account's limit
    _clear_cache()
    throttle_rates(practice="1/hour")
    check("POST", games, owner_api.post(games, {}), 201)
    check("POST", games, owner_api.post(games, {}), 429)

    assert contract.documented() - contract.seen == set()
