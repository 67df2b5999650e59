"""GET /api/me/following/today/ — what the players I follow did at today's deal: results only
(finished or not, won, cards home), never a move, a card nor a way into their game until my own
attempt at today's deal is over (games.services.can_watch).

People: ``owner`` follows ``other`` and ``ann`` (who play) and ``idle`` (who does not)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from games import services as games
from social import services
from social.models import Follow
from tests.leaderboard.helpers import OPENING, WON, attempt, player
from tests.social.helpers import a_guest

URL = "/api/me/following/today/"
ROW_KEYS = {
    "player", "status", "result", "won", "foundation_cards", "actions", "board_rank", "watch",
}  # fmt: skip
#: A card as the API writes one (7H, TC): none may appear in the feed, whatever its state.
CARD = re.compile(r"\b[A2-9TJQK][SHDC]\b")


@pytest.fixture
def followed(owner, other, clock):
    ann, idle = player("ann"), player("idle")
    for someone in (other, ann, idle):
        Follow.objects.create(follower=owner, followed=someone)
    return {
        "ann": attempt(ann, WON[:39], clock),  # 4 cards home, still playing
        "other": games.resign(attempt(other, OPENING, clock), other),  # 2 cards, resigned
    }


def rows(body: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (r["player"], r["status"], r["result"], r["won"], r["foundation_cards"], r["board_rank"])
        for r in body["results"]
    ]


def test_before_my_attempt_is_over_it_gives_their_results_only(owner_api, followed, clock):
    response = owner_api.get(URL)

    assert response.status_code == 200
    body = response.json()
    assert rows(body) == [
        ("ann", "in_progress", "in_progress", False, 4, 1),
        ("other", "resigned", "resigned", False, 2, 2),
    ]
    assert all(set(row) == ROW_KEYS and row["watch"] is None for row in body["results"])
    assert (body["mine_over"], body["following"], body["waiting"], body["count"]) == (
        False,
        3,
        1,
        2,
    )
    assert (body["date"], body["page"], body["pages"]) == (clock.now.date().isoformat(), 1, 1)
    assert not CARD.search(json.dumps(body))


def test_while_my_attempt_runs_it_still_gives_results_only(owner_api, owner, followed, clock):
    attempt(owner, ["D"], clock)

    body = owner_api.get(URL).json()

    assert body["mine_over"] is False
    assert [row["watch"] for row in body["results"]] == [None, None]
    assert "owner" not in {row["player"] for row in body["results"]}  # (whom I follow, not me)


def test_once_my_attempt_is_over_their_games_open_to_me(owner_api, owner, followed, clock):
    games.resign(attempt(owner, ["D"], clock), owner)

    body = owner_api.get(URL).json()

    assert body["mine_over"] is True
    assert [row["watch"] for row in body["results"]] == [
        f"/games/{followed['ann'].pk}/replay/",
        f"/games/{followed['other'].pk}/replay/",
    ]


def test_a_new_day_starts_with_nobody_played(owner_api, followed, clock):
    clock.advance(24 * 3600)

    body = owner_api.get(URL).json()

    assert (body["results"], body["count"], body["waiting"]) == ([], 0, 3)


def test_it_pages_its_list(owner_api, followed, monkeypatch):
    monkeypatch.setattr(services, "TODAY_PAGE_SIZE", 1)

    second = owner_api.get(URL, {"page": 2}).json()

    assert ([r["player"] for r in second["results"]], second["pages"]) == (["other"], 2)
    past = owner_api.get(URL, {"page": 3})
    assert (past.status_code, past.json()["code"]) == (404, "not_found")
    bad = owner_api.get(URL, {"page": "x"})
    assert (bad.status_code, bad.json()["code"]) == (400, "invalid")


def test_a_visitor_is_asked_to_log_in_and_a_guest_to_sign_up(api, followed):
    assert api.get(URL).status_code == 401
    client, _ = a_guest()
    refused = client.get(URL)
    assert (refused.status_code, refused.json()["code"]) == (403, "account_required")
