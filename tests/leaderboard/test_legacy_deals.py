"""Days dealt before certified deals keep the deals they were dealt: the migration stores each
day's CF1 code from its attempts, as a legacy deal (no solver line, so no par and no solution)."""

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from leaderboard import deals
from tests.leaderboard.helpers import OPENING, attempt, player

BEFORE = [("leaderboard", "0001_initial"), ("games", "0004_game_engine_state")]
AFTER = [("leaderboard", "0002_daily_deal_stored")]


@pytest.fixture(autouse=True)
def daily_deal() -> None:
    """Nothing stored ahead: the migration stores the days here."""


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def latest_schema_afterwards():
    """The database goes back to the latest migrations once the test is over."""
    yield
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_schema_afterwards")
def test_the_migration_keeps_past_days_deals_as_they_were_dealt():
    old = migrate(BEFORE)
    User = old.get_model("auth", "User")
    Game = old.get_model("games", "Game")
    DailyDeal = old.get_model("leaderboard", "DailyDeal")
    ann = User.objects.create(username="ann")
    bob = User.objects.create(username="bob")
    day, other_day, no_game = dt.date(2026, 11, 20), dt.date(2026, 11, 21), dt.date(2026, 11, 22)
    for user in (ann, bob):
        Game.objects.create(owner=user, code="CF1-D3-QHZKXAB", kind="daily", daily_date=day)
    Game.objects.create(owner=ann, code="CF1-D3-BCDEFGH", kind="daily", daily_date=other_day)
    Game.objects.create(owner=bob, code="CF1-D3-AAAAACL", kind="practice")
    DailyDeal.objects.create(date=other_day, seq=12)
    DailyDeal.objects.create(date=no_game, seq=3)

    new = migrate(AFTER)

    rows = {
        r.date: (r.code, r.outcome, r.line, r.par, r.seq)
        for r in new.get_model("leaderboard", "DailyDeal").objects.all()
    }
    assert rows == {
        day: ("CF1-D3-QHZKXAB", "legacy", None, None, 0),
        other_day: ("CF1-D3-BCDEFGH", "legacy", None, None, 12),
        no_game: ("", "", None, None, 3),  # nobody played it: never dealt
    }


def test_a_legacy_day_shows_its_code_without_par_or_solution(api, clock):
    from leaderboard.models import DailyDeal

    DailyDeal.objects.create(date=dt.date(2030, 6, 15), code="CF1-D3-AAAAACL", outcome="legacy")
    game = attempt(player("ann"), OPENING, clock)
    assert game.code == "CF1-D3-AAAAACL"  # today's attempts play the stored deal
    stored = deals.stored(dt.date(2030, 6, 15))
    assert stored is not None and stored.code == "CF1-D3-AAAAACL"
    clock.advance(24 * 3600)

    board = api.get("/api/daily/2030-06-15/board/").json()
    assert (board["code"], board["par"], board["solution"]) == ("CF1-D3-AAAAACL", None, None)
    assert api.get("/api/daily/2030-06-15/solution/").status_code == 404
    days = api.get("/api/daily/days/").json()["results"]
    assert days[-1]["date"] == "2030-06-15" and days[-1]["par"] is None
