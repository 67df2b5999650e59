"""GET /api/daily/days/ — past days with their code and counts."""

import datetime as dt
import io

import pytest
from django.core.management import call_command

from leaderboard.live import snapshots
from leaderboard.models import DailyDeal
from tests.leaderboard.helpers import CODE, OPENING, WON, attempt, player, store_deal

pytestmark = pytest.mark.usefixtures("only_our_days")


def test_it_lists_past_days_newest_first_with_their_counts(api, clock):
    attempt(player("ann"), WON, clock, step=0.1)
    attempt(player("bob"), OPENING, clock)
    attempt(player("cid"))  # never started: not a player
    clock.advance(24 * 3600)  # 2030-06-16
    attempt(player("dee"), ["D"], clock)
    clock.advance(24 * 3600)  # 2030-06-17: today, not listed
    attempt(player("eve"), ["D"], clock)

    response = api.get("/api/daily/days/")

    assert response.status_code == 200
    assert response.json() == {
        "count": 2,
        "next": None,
        "previous": None,
        "results": [
            {
                "date": "2030-06-16",
                "code": CODE,
                "par": len(WON),
                "players": 1,
                "winners": 0,
                "difficulty": None,
            },
            {
                "date": "2030-06-15",
                "code": CODE,
                "par": len(WON),
                "players": 2,
                "winners": 1,
                "difficulty": None,
            },
        ],
    }


def test_it_counts_a_day_not_settled_yet_and_reads_a_settled_days_counts(api, clock):
    attempt(player("ann"), OPENING, clock)
    clock.set(dt.datetime(2030, 6, 16, 0, 5, tzinfo=dt.UTC))
    assert api.get("/api/daily/days/").json()["results"][0]["players"] == 1
    day = DailyDeal.objects.get(date=dt.date(2030, 6, 15))
    assert (day.players, day.winners) == (None, None)  # a read writes nothing

    call_command("settle_days", stdout=io.StringIO())
    DailyDeal.objects.filter(date=dt.date(2030, 6, 15)).update(players=7)  # (to tell them apart)

    assert api.get("/api/daily/days/").json()["results"][0]["players"] == 7


def test_it_lists_nothing_before_the_first_day_is_over(api, clock):
    attempt(player("ann"), OPENING, clock)

    assert api.get("/api/daily/days/").json()["results"] == []


def test_it_pages_by_30(api, clock):
    for n in range(31):
        store_deal(dt.date(2030, 6, 14) - dt.timedelta(days=n))
    DailyDeal.objects.create(date=dt.date(2030, 5, 1))  # never dealt: not listed

    first = api.get("/api/daily/days/").json()
    second = api.get("/api/daily/days/?page=2").json()

    assert (first["count"], len(first["results"]), len(second["results"])) == (31, 30, 1)
    assert second["results"][0]["date"] == "2030-05-15"
    assert api.get("/api/daily/days/?page=3").status_code == 404


def test_it_lists_a_day_whose_row_was_lost_once_the_command_closed_it(transactional_db, api, clock):
    """Transactional: the closing commits for real, and the command (no event loop serves it)
    publishes the day's live-board update at once, before it returns."""
    game = attempt(player("ann"), OPENING, clock)
    DailyDeal.objects.all().delete()
    clock.advance(24 * 3600)

    call_command("close_daily_attempts", stdout=io.StringIO())

    assert api.get("/api/daily/days/").json()["results"] == [
        {
            "date": "2030-06-15",
            "code": CODE,
            "par": None,
            "players": 1,
            "winners": 0,
            "difficulty": None,
        }
    ]
    game.refresh_from_db()
    assert game.result == "closed"
    final = snapshots.stored(dt.date(2030, 6, 15))
    assert final is not None and [r["result"] for r in final["results"]] == ["closed"]
