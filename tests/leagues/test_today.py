"""Today's provisional points in a division's table (GET /api/leagues/current/): while the week
is open and today is in it, each member who has played today gets ``today`` — 10 + 90 × the
percentile of their attempt's current rank on today's whole board — and the places and zones
count it; once the day settles, its points are the settled ones and ``today`` is gone."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from games.clock import day_end
from leaderboard.standings import SETTLE
from leagues import services
from tests.leaderboard.helpers import OPENING, WON, hidden_cards, player
from tests.leagues.helpers import MONDAY, at, played, settle

pytestmark = pytest.mark.django_db

TUESDAY = MONDAY + dt.timedelta(days=1)


@pytest.fixture
def members(clock, owner):
    """Monday of 2030-W25 settled and scored: owner 100, ann 55, bob 10 (Bronze division 1);
    the clock on Tuesday morning, nobody has played Tuesday yet."""
    ann, bob = player("ann"), player("bob")
    played(clock, owner, OPENING, at(MONDAY))
    played(clock, ann, ["D"], at(MONDAY))
    played(clock, bob, ["D", "D"], at(MONDAY))
    settle(MONDAY)
    assert services.score_day(MONDAY, now=day_end(MONDAY) + SETTLE)
    clock.set(at(TUESDAY, hour=9))
    return owner, ann, bob


def table(client):
    response = client.get("/api/leagues/current/")
    assert response.status_code == 200, response.json()
    body = response.json()
    return [(r["place"], r["player"], r["points"], r["today"], r["zone"]) for r in body["rows"]]


def test_it_counts_today_as_the_board_stands_and_then_as_settled(members, clock, owner_api):
    owner, ann, _bob = members
    assert table(owner_api) == [
        (1, "owner", 100, None, "up"),
        (2, "ann", 55, None, "stay"),
        (3, "bob", 10, None, "stay"),  # last, but nobody goes below Bronze
    ]

    # The owner alone on Tuesday's board: a board of one, percentile 1.0, 100 points.
    played(clock, owner, OPENING, at(TUESDAY))
    assert table(owner_api) == [
        (1, "owner", 100, 100, "up"),
        (2, "ann", 55, None, "stay"),
        (3, "bob", 10, None, "stay"),
    ]

    # Ann wins: 1st of 2 (100 points), the owner 2nd of 2, percentile 0 (10 points). Ann's 155
    # passes the owner's 110.
    played(clock, ann, WON, at(TUESDAY, second=1))
    assert table(owner_api) == [
        (1, "ann", 55, 100, "up"),
        (2, "owner", 100, 10, "stay"),
        (3, "bob", 10, None, "stay"),
    ]

    # Cat, in no division, plays below the owner: the owner is 2nd of 3 on the whole board,
    # percentile (3 − 2) / (3 − 1) = 0.5, 10 + 45 = 55 points. Ann and the owner have 155 each,
    # 2 days each, a best day of 100 each: the older account, the owner's, is first.
    played(clock, player("cat"), ["D"], at(TUESDAY, second=2))
    rows = table(owner_api)
    assert rows == [
        (1, "owner", 100, 55, "up"),
        (2, "ann", 55, 100, "stay"),
        (3, "bob", 10, None, "stay"),
    ]
    me = owner_api.get("/api/leagues/current/").json()["me"]
    assert (me["place"], me["today"], me["days"]) == (1, 55, 1)

    # Tuesday settles and is scored: the same points, now settled (cat, placed with Tuesday's
    # newcomers, joins the division with 10); on Wednesday nobody has played yet.
    settle(TUESDAY)
    assert services.score_day(TUESDAY, now=day_end(TUESDAY) + SETTLE)
    clock.set(at(TUESDAY + dt.timedelta(days=1), hour=9))
    assert table(owner_api) == [
        (1, "owner", 155, None, "up"),
        (2, "ann", 155, None, "stay"),
        (3, "bob", 10, None, "stay"),  # bob and cat: 10 in 1 day each; bob's the older account
        (4, "cat", 10, None, "stay"),
    ]


def test_a_week_that_is_not_this_one_has_no_today(members, clock, owner, owner_api):
    played(clock, owner, OPENING, at(TUESDAY))
    # The next Monday, before the week closes: its table is as settled, nothing of today's.
    clock.set(at(MONDAY + dt.timedelta(days=7), hour=0))
    response = owner_api.get("/api/leagues/2030-W25/")
    assert response.status_code == 200
    assert [r["today"] for r in response.json()["rows"]] == [None, None, None]


def test_today_is_read_in_bounded_queries(members, clock, owner_api, django_assert_max_num_queries):
    owner, ann, bob = members
    for k, user in enumerate((owner, ann, bob)):
        played(clock, user, ["D"] * (k + 1), at(TUESDAY, second=k))
    # Auth (2), my membership, the rows, today's sequence and the members' attempts; then their
    # ranks on the whole board (Redis: one round trip; SQL: the board's two summaries and one
    # query each, at most 30) and the board's count.
    with django_assert_max_num_queries(6 + 2 + 3 + 1):
        rows = table(owner_api)
    # 3 attempts: 0 cards each, fewer actions first: owner 1st (100), ann 2nd (55), bob 3rd (10).
    assert rows == [
        (1, "owner", 100, 100, "up"),
        (2, "ann", 55, 55, "stay"),
        (3, "bob", 10, 10, "stay"),
    ]


def test_the_division_and_the_weeks_show_no_hidden_card(members, clock, owner, owner_api):
    """Results only: with members' attempts open today, neither the division's table (with
    today's points) nor the list of weeks names a card its players cannot see."""
    _owner, ann, _bob = members
    playing = [
        played(clock, owner, OPENING, at(TUESDAY, hour=9)),
        played(clock, ann, ["D", "D", "D"], at(TUESDAY, hour=9, second=30)),
    ]
    hidden = set().union(*(hidden_cards(game) for game in playing))
    assert hidden

    for path in ("/api/leagues/current/", "/api/leagues/"):
        text = json.dumps(owner_api.get(path).json())
        shown = sorted(c for c in hidden if re.search(rf"(?<![A-Za-z0-9]){c}(?![A-Za-z0-9])", text))
        assert shown == [], f"{path}: hidden cards {shown} in {text}"
