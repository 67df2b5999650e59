"""GET /api/groups/<id>/week/ — the week's table: each member's points of each day by their place
among the members on that day's board (of n who played: n for the first, 1 for the last, the
same result sharing its places' points evenly, 0 for no attempt), their total and their current
daily streak. Checked against points worked out by hand (docs/api.md's example)."""

from __future__ import annotations

import datetime as dt

import pytest

from groups.services import day_points
from tests.conftest import token_client
from tests.leaderboard.helpers import OPENING, WON, attempt, player

pytestmark = pytest.mark.django_db

MONDAY = dt.date(2030, 6, 17)


def on(clock, day: dt.date) -> None:
    clock.set(dt.datetime(day.year, day.month, day.day, 10, 0, tzinfo=dt.UTC))


def row(player_: str, won: bool, cards: int, actions: int):
    """A row of a board among members, as far as points read it."""
    return {"player": player_, "won": won, "foundation_cards": cards, "actions": actions}


def test_the_first_of_n_gets_n_points_and_the_last_one():
    rows = [row("a", True, 52, 200), row("b", False, 20, 90), row("c", False, 3, 10)]

    assert day_points(rows) == {"a": 3, "b": 2, "c": 1}


def test_the_same_result_shares_the_points_of_its_places_evenly():
    rows = [
        row("a", True, 52, 200),
        row("b", False, 9, 40),
        row("c", False, 9, 40),
        row("d", False, 9, 40),
        row("e", False, 9, 41),  # one action more: not the same result
    ]

    # Places 2, 3 and 4 of five are worth 4, 3 and 2 points: 3 each.
    assert day_points(rows) == {"a": 5, "b": 3, "c": 3, "d": 3, "e": 1}
    assert day_points([row("x", False, 1, 1), row("y", False, 1, 1)]) == {"x": 1.5, "y": 1.5}
    assert day_points([]) == {}


@pytest.fixture
def people(group, owner, member, clock):
    """The owner ("owner") and member ("member") of the group, a third member "cat", a fourth
    "dan" who never plays, and "eve", who plays but is in no group of theirs."""
    on(clock, MONDAY)
    cat, dan = player("cat"), player("dan")
    for user in (cat, dan):
        response = token_client(user).post("/api/groups/join/", {"invite": group["invite"]})
        assert response.status_code == 200
    return {"owner": owner, "member": member, "cat": cat, "dan": dan, "eve": player("eve")}


def test_the_week_is_scored_as_worked_out_by_hand(group, people, owner_api, clock):
    p = people
    on(clock, MONDAY - dt.timedelta(days=1))  # Sunday before: the owner's streak begins
    attempt(p["owner"], ["D"], clock)
    on(clock, MONDAY)  # owner won, member 2 cards, cat 1 card: 3, 2, 1 (eve is no member)
    attempt(p["eve"], WON, clock, step=0.05)
    attempt(p["owner"], WON, clock, step=0.1)
    attempt(p["member"], OPENING, clock)
    attempt(p["cat"], ["D"], clock)
    on(clock, MONDAY + dt.timedelta(days=1))  # member and cat: the same result; owner last
    attempt(p["member"], OPENING, clock)
    attempt(p["cat"], OPENING, clock, step=5)
    attempt(p["owner"], ["D"], clock)
    on(clock, MONDAY + dt.timedelta(days=2))  # the owner alone: 1
    attempt(p["owner"], ["D"], clock)
    on(clock, MONDAY + dt.timedelta(days=3))  # today, Thursday: member 1 action, cat 2
    attempt(p["member"], ["D"], clock)
    attempt(p["cat"], ["D", "D"], clock)

    response = owner_api.get(f"/api/groups/{group['id']}/week/")

    assert response.status_code == 200
    table = response.json()
    assert table["start"] == "2030-06-17"
    assert table["days"] == [(MONDAY + dt.timedelta(days=i)).isoformat() for i in range(7)]
    assert table["rows"] == [
        {
            "rank": 1,
            "player": "member",
            "points": [2, 2.5, 0, 2, None, None, None],
            "total": 6.5,
            "current_streak": 1,
        },
        {
            "rank": 2,
            "player": "owner",
            "points": [3, 1, 1, 0, None, None, None],
            "total": 5,
            "current_streak": 4,  # Sunday to Wednesday; today not played yet
        },
        {
            "rank": 3,
            "player": "cat",
            "points": [1, 2.5, 0, 1, None, None, None],
            "total": 4.5,
            "current_streak": 1,
        },
        {
            "rank": 4,
            "player": "dan",
            "points": [0, 0, 0, 0, None, None, None],
            "total": 0,
            "current_streak": 0,
        },
    ]


def test_equal_totals_share_a_place(group, people, member_api, clock):
    on(clock, MONDAY)
    attempt(people["owner"], ["D"], clock)
    attempt(people["member"], ["D"], clock)

    rows = member_api.get(f"/api/groups/{group['id']}/week/").json()["rows"]

    assert [(r["rank"], r["player"], r["total"]) for r in rows] == [
        (1, "member", 1.5),
        (1, "owner", 1.5),
        (3, "cat", 0),
        (3, "dan", 0),
    ]


def test_another_week_is_asked_by_a_day_of_it(group, people, owner_api, clock):
    on(clock, MONDAY)
    attempt(people["owner"], ["D"], clock)
    on(clock, MONDAY + dt.timedelta(days=8))

    this = owner_api.get(f"/api/groups/{group['id']}/week/").json()
    last = owner_api.get(f"/api/groups/{group['id']}/week/", {"date": "2030-06-20"}).json()

    assert this["start"] == "2030-06-24"
    assert [r["total"] for r in this["rows"]] == [0, 0, 0, 0]
    assert last["start"] == "2030-06-17"
    assert last["rows"][0]["player"] == "owner"
    assert last["rows"][0]["points"] == [1, 0, 0, 0, 0, 0, 0]


@pytest.mark.parametrize(
    ("date", "status", "code"),
    [("2030-6-17", 400, "invalid_date"), ("2030-06-18", 404, "not_found")],
)
def test_a_bad_or_future_day_is_refused(group, owner_api, clock, date, status, code):
    on(clock, MONDAY)

    response = owner_api.get(f"/api/groups/{group['id']}/week/", {"date": date})

    assert (response.status_code, response.json()["code"]) == (status, code)


def test_to_anyone_else_there_is_no_table(group, other_api, api, clock):
    url = f"/api/groups/{group['id']}/week/"

    assert other_api.get(url).json() == {"code": "not_found", "message": "No such group."}
    assert api.get(url).status_code == 401
