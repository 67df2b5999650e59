"""GET /api/leagues/current/ and GET /api/leagues/<week>/: the signed-in player's division —
its tier, number, rows by place with their zones, their own row, and whether the week is
closed. Refused: a visitor (401), a malformed week (400), a week without a division of theirs
(404). (Today's provisional points: test_today.py; the list of weeks: test_weeks.py.)"""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings

from games.clock import day_end
from leaderboard.standings import SETTLE
from leagues import services
from tests.leaderboard.helpers import OPENING, player
from tests.leagues.helpers import MONDAY, at, played, settle

pytestmark = pytest.mark.django_db


@pytest.fixture
def monday(clock, owner):
    """Monday of 2030-W25 played by the owner (first), ann and bob, settled and scored; the
    clock on Tuesday."""
    played(clock, owner, OPENING, at(MONDAY))
    played(clock, player("ann"), ["D"], at(MONDAY))
    played(clock, player("bob"), ["D", "D"], at(MONDAY))
    settle(MONDAY)
    assert services.score_day(MONDAY, now=day_end(MONDAY) + SETTLE)
    clock.set(at(MONDAY + dt.timedelta(days=1)))


def expected(closed: bool) -> dict[str, object]:
    me = {"place": 1, "player": "owner", "points": 100, "days": 1, "today": None, "zone": "up"}
    return {
        "week": "2030-W25",
        "start": "2030-06-17",
        "end": "2030-06-23",
        "closed": closed,
        "tier": {"code": 0, "name": "Bronze"},
        "division": 1,
        "rows": [
            me,
            {"place": 2, "player": "ann", "points": 55, "days": 1, "today": None, "zone": "stay"},
            # Last of three, but in the lowest tier: nobody goes below Bronze.
            {"place": 3, "player": "bob", "points": 10, "days": 1, "today": None, "zone": "stay"},
        ],
        "me": me,
    }


def test_it_answers_my_division_this_week(monday, owner_api, django_assert_max_num_queries):
    # The token, the player, my membership, the rows; today's board among the members: the
    # day's live sequence and their attempts (none today: nothing more). With Redis, the tests
    # rebuild the day's sets from SQL at each read (tests/conftest.py): one more.
    with django_assert_max_num_queries(6 + bool(settings.REDIS_URL)):
        response = owner_api.get("/api/leagues/current/")

    assert response.status_code == 200, response.json()
    assert response.json() == expected(closed=False)


def test_it_answers_a_named_week_and_its_final_places_once_closed(monday, owner_api, clock):
    assert owner_api.get("/api/leagues/2030-W25/").json() == expected(closed=False)
    for day in (MONDAY + dt.timedelta(days=k) for k in range(1, 7)):
        settle(day)
    sunday_end = day_end(MONDAY + dt.timedelta(days=6))
    assert services.close_week(MONDAY, now=sunday_end + SETTLE)
    clock.set(sunday_end + dt.timedelta(days=1))

    response = owner_api.get("/api/leagues/2030-W25/")

    assert response.status_code == 200
    assert response.json() == expected(closed=True)
    missing = owner_api.get("/api/leagues/current/")  # the next week: not played yet
    assert missing.status_code == 404
    assert missing.json()["code"] == "no_division"


def test_it_refuses_a_visitor(monday, api):
    for path in ("/api/leagues/current/", "/api/leagues/2030-W25/"):
        response = api.get(path)

        assert response.status_code == 401
        assert response.json()["code"] == "not_authenticated"


def test_it_answers_404_for_a_week_without_my_division(monday, other_api, owner_api):
    response = other_api.get("/api/leagues/2030-W25/")

    assert response.status_code == 404
    assert response.json() == {
        "code": "no_division",
        "message": "You have no division in the week 2030-W25: a player joins their tier's "
        "division with their first ranked daily attempt of the week, once its day is settled.",
    }
    assert owner_api.get("/api/leagues/2030-W24/").status_code == 404


@pytest.mark.parametrize("week", ["2026-W60", "abc", "2030-W0", "2030W25"])
def test_it_refuses_a_malformed_week(monday, owner_api, week):
    response = owner_api.get(f"/api/leagues/{week}/")

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid_week",
        "message": f"“{week}” is not a week: write an ISO week as the year, -W and the week's "
        "number, like 2026-W49.",
    }
