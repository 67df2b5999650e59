"""GET /api/leagues/: the weeks the signed-in player had a division, newest first, at most 52 —
each week's tier, division and, once closed, final place and movement; in one query. A visitor
is refused (401); a player with no week gets an empty list."""

from __future__ import annotations

import datetime as dt

import pytest

from leagues.models import Division, Membership, Movement, Tier, Week
from leagues.services import WEEKS_LISTED
from tests.leagues.helpers import MONDAY

pytestmark = pytest.mark.django_db

WEEK = dt.timedelta(days=7)


def member(user, monday, tier, number, place=None, movement=None, closed=True):
    week = Week.objects.create(
        monday=monday, closed_at=dt.datetime(2030, 1, 1, tzinfo=dt.UTC) if closed else None
    )
    division = Division.objects.create(week=week, tier=tier, number=number)
    Membership.objects.create(
        week=week, division=division, player=user, place=place, movement=movement
    )


def test_it_lists_my_weeks_newest_first(owner, other, owner_api, django_assert_max_num_queries):
    member(owner, MONDAY - WEEK, Tier.BRONZE, 2, place=1, movement=Movement.UP)
    member(owner, MONDAY, Tier.SILVER, 1, place=7, movement=Movement.STAY, closed=False)
    Membership.objects.create(  # another player's week: not mine
        week_id=MONDAY,
        division=Division.objects.get(week_id=MONDAY),
        player=other,
    )

    with django_assert_max_num_queries(3):  # the token, the player, my memberships
        response = owner_api.get("/api/leagues/")

    assert response.status_code == 200
    assert response.json() == [
        {
            "week": "2030-W25",
            "start": "2030-06-17",
            "end": "2030-06-23",
            "closed": False,
            "tier": {"code": 1, "name": "Silver"},
            "division": 1,
            "place": None,  # open: no final place yet, whatever the row holds
            "zone": None,
        },
        {
            "week": "2030-W24",
            "start": "2030-06-10",
            "end": "2030-06-16",
            "closed": True,
            "tier": {"code": 0, "name": "Bronze"},
            "division": 2,
            "place": 1,
            "zone": "up",
        },
    ]


def test_it_lists_a_year_at_most(owner, owner_api):
    for k in range(WEEKS_LISTED + 1):
        member(owner, MONDAY - k * WEEK, Tier.GOLD, 1, place=3, movement=Movement.DOWN)

    weeks = owner_api.get("/api/leagues/").json()

    assert len(weeks) == 52
    assert (weeks[0]["week"], weeks[-1]["week"]) == ("2030-W25", "2029-W26")
    assert {w["zone"] for w in weeks} == {"down"}


def test_it_answers_an_empty_list_and_refuses_a_visitor(owner_api, api):
    assert owner_api.get("/api/leagues/").json() == []
    refused = api.get("/api/leagues/")
    assert refused.status_code == 401
    assert refused.json()["code"] == "not_authenticated"
