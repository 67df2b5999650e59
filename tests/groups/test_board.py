"""GET /api/groups/<id>/board/ — a day's board among a group's members: the leaderboard's board
among them (``board_among``), for its members only. It shows results, never a card."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import token_client
from tests.leaderboard.helpers import OPENING, WON, attempt, hidden_cards, player

pytestmark = pytest.mark.django_db


def join(group, user):
    response = token_client(user).post("/api/groups/join/", {"invite": group["invite"]})
    assert response.status_code == 200


def test_the_board_ranks_the_members_among_themselves_and_on_the_whole_board(
    group, member, owner, member_api, clock
):
    stranger = player("stranger")
    attempt(stranger, WON, clock, step=0.1)  # first on the whole board, no member
    attempt(member, OPENING, clock)  # 2 cards
    attempt(owner, ["D"], clock)  # 1 card

    response = member_api.get(f"/api/groups/{group['id']}/board/")

    assert response.status_code == 200
    board = response.json()
    rows = [(r["rank"], r["board_rank"], r["player"]) for r in board["results"]]
    assert rows == [(1, 2, "member"), (2, 3, "owner")]
    assert board["me"] == board["results"][0]
    assert (board["date"], board["count"]) == (clock.now.date().isoformat(), 2)


def test_another_day_is_asked_by_its_date(group, owner, owner_api, clock):
    attempt(owner, ["D"], clock)
    yesterday = clock.now.date()
    clock.advance(24 * 3600)

    past = owner_api.get(f"/api/groups/{group['id']}/board/", {"date": yesterday.isoformat()})
    today = owner_api.get(f"/api/groups/{group['id']}/board/")

    assert [r["player"] for r in past.json()["results"]] == ["owner"]
    assert past.json()["results"][0]["result"] == "closed"
    assert today.json()["results"] == []


@pytest.mark.parametrize(
    ("date", "status", "code"),
    [
        ("2030-13-01", 400, "invalid_date"),
        ("tomorrow", 400, "invalid_date"),
        ("2030-07-30", 404, "not_found"),
    ],
)
def test_a_bad_date_is_refused(group, owner_api, clock, date, status, code):
    response = owner_api.get(f"/api/groups/{group['id']}/board/", {"date": date})

    assert response.status_code == status
    assert response.json()["code"] == code


def test_a_date_given_twice_is_refused(group, owner_api, clock):
    response = owner_api.get(f"/api/groups/{group['id']}/board/?date=2030-06-15&date=2030-06-14")

    assert (response.status_code, response.json()["code"]) == (400, "invalid")


def test_to_anyone_else_there_is_no_board(group, other_api, api, owner, clock):
    attempt(owner, ["D"], clock)
    url = f"/api/groups/{group['id']}/board/"

    response = other_api.get(url)
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "No such group."}
    assert other_api.get(url, {"date": "garbage"}).status_code == 404  # (not even a 400)
    assert api.get(url).status_code == 401


def test_the_board_and_the_table_show_no_hidden_card(group, owner, member, member_api, clock):
    playing = attempt(owner, OPENING, clock)
    other = attempt(member, ["D", "D", "D"], clock)
    hidden = hidden_cards(playing) | hidden_cards(other)
    assert hidden

    for tail in ("board/", "week/"):
        text = json.dumps(member_api.get(f"/api/groups/{group['id']}/{tail}").json())
        shown = sorted(c for c in hidden if re.search(rf"(?<![A-Za-z0-9]){c}(?![A-Za-z0-9])", text))
        assert shown == [], f"{tail}: hidden cards {shown} in {text}"
