"""Days are dealt ahead, off the web processes, once: the solver pool certifies; a day is claimed
by one dealer whatever the number of processes or requests; a request never waits for the solver
(503 ``deal_pending`` with Retry-After while it works); every server start keeps today and
tomorrow dealt by itself (``leaderboard.keeper``)."""

from __future__ import annotations

import datetime as dt
import sqlite3
import time

import pytest
from django.utils import timezone

from games import pool
from games.engine.difficulty import Band, measure
from games.models import Game
from leaderboard import deals, keeper
from leaderboard.models import DailyDeal
from tests.conftest import PASSWORD, token_client
from tests.games.test_concurrency import at_once
from tests.leaderboard.helpers import player
from tests.support import Daphne, django_env, migrate, post_json

SECRET = "a test secret of the days dealt ahead"


@pytest.fixture(autouse=True)
def daily_deal(settings) -> None:
    """No deal stored ahead here (conftest.py's fixture of that name stores one); lines are not
    shortened (that costs the search more, and is tested with the certification)."""
    settings.DAILY_DEAL_SECRET = SECRET
    settings.DAILY_DEAL_SHORTEN_POSITIONS = 0


def today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def wait_dealt(day: dt.date, timeout: float = 60) -> DailyDeal:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        row = deals.stored(day)
        if row is not None:
            return row
        time.sleep(0.05)
    raise AssertionError(f"{day} was not dealt within {timeout} s")


@pytest.mark.django_db(transaction=True)
def test_the_first_requests_wait_for_no_search_and_one_search_deals_the_day():
    DailyDeal.objects.filter(date=today()).delete()
    clients = [token_client(player(f"early{i}")) for i in range(6)]
    before = pool.stats()["submitted"]

    answers = at_once(*[lambda c=c: c.post("/api/daily/") for c in clients])

    assert [a.status_code for a in answers] == [503] * 6
    assert {a.json()["code"] for a in answers} == {"deal_pending"}
    assert {a["Retry-After"] for a in answers} == {"2"}
    assert answers[0].json() == {
        "code": "deal_pending",
        "message": "Dealing today's cards…",
        "retry_after": 2,
    }
    assert not Game.objects.filter(kind="daily").exists()  # nothing was created
    row = wait_dealt(today())
    assert pool.stats()["submitted"] == before + 1  # one certification, whoever asked
    assert row.code == deals.certify(today()).code  # the day's one deal under the secret
    assert row.dealing_until is None

    started = [c.post("/api/daily/") for c in clients]

    assert [a.status_code for a in started] == [201] * 6


@pytest.mark.django_db(transaction=True)
def test_concurrent_dealers_of_a_day_share_one_search():
    day = dt.date(2031, 1, 11)  # (a Saturday: the fierce band, where most candidates fall)
    before = pool.stats()["submitted"]

    rows = at_once(*[lambda: deals.deal_of(day)] * 4)

    assert len({(r.code, r.n, tuple(r.line), r.created) for r in rows}) == 1
    assert pool.stats()["submitted"] == before + 1
    assert DailyDeal.objects.filter(date=day).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_day_that_cannot_be_certified_backs_off_and_says_so(settings):
    settings.DAILY_DEAL_CANDIDATES = 0  # no candidate tried: certification fails at once
    DailyDeal.objects.filter(date=today()).delete()
    client = token_client(player("patient"))

    first = client.post("/api/daily/")
    assert (first.status_code, first.json()["code"]) == (503, "deal_pending")
    for _ in range(400):  # the background dealer fails, and the day backs off
        if DailyDeal.objects.get(date=today()).dealing_error:
            break
        time.sleep(0.05)
    row = DailyDeal.objects.get(date=today())
    assert row.dealing_error == (
        f"no certified deal for {today().isoformat()} in 0 candidates "
        f"(band {deals.band_of(today())})"
    )
    assert row.dealing_until is not None and row.dealing_until > timezone.now()

    again = client.post("/api/daily/")

    assert again.status_code == 503
    assert again.json() == {
        "code": "deal_unavailable",
        "message": "Today's deal is not ready yet. Please try again in a few minutes.",
        "retry_after": 60,
    }
    assert again["Retry-After"] == "60"
    assert not deals.claim(today())  # backing off: nobody searches again yet
    assert not Game.objects.filter(kind="daily").exists()


@pytest.mark.django_db
def test_a_claim_is_given_once_and_lapses_when_its_holder_is_gone():
    day = dt.date(2031, 2, 2)

    assert deals.claim(day)
    assert not deals.claim(day)  # alive: one dealer
    DailyDeal.objects.filter(date=day).update(dealing_until=timezone.now() - dt.timedelta(1))
    assert deals.claim(day)  # its holder died: the claim lapsed
    deals.store(
        deals.Certified(
            day,
            0,
            "CF1-D3-AAAAACL",
            ["R-T2"],
            positions=1,
            seconds=0.1,
            total_seconds=0.1,
            difficulty=measure("CF1-D3-AAAAACL", 1),
            band=Band(0, 100),
        )
    )
    assert not deals.claim(day)  # dealt: nothing to claim


@pytest.mark.django_db(transaction=True)
def test_the_keeper_deals_today_and_tomorrow_once():
    now = timezone.now()
    days = keeper.days_ahead(now)
    assert days == [today(), today() + dt.timedelta(days=1)]

    assert keeper.keep_dealt(now) == days
    assert keeper.keep_dealt(now) == []  # dealt: nothing to do

    assert [deals.stored(day) is not None for day in days] == [True, True]


def test_a_fresh_server_deals_today_and_tomorrow_before_anyone_asks(tmp_path):
    database = tmp_path / "db.sqlite3"
    env = django_env(
        f"sqlite:///{database}",
        DEAL_AHEAD="on",
        DAILY_DEAL_SECRET=SECRET,
        DAILY_DEAL_SHORTEN_POSITIONS="0",
    )
    migrate(env)
    days = [today().isoformat(), (today() + dt.timedelta(days=1)).isoformat()]

    with Daphne(env, tmp_path / "daphne.log") as server:
        dealt: list[str] = []
        for _ in range(1200):  # nobody asks: the server deals them by itself
            with sqlite3.connect(database) as db:
                rows = db.execute(
                    "SELECT date FROM leaderboard_dailydeal WHERE code != '' ORDER BY date"
                ).fetchall()
            dealt = [str(day) for (day,) in rows]
            if dealt == days:
                break
            time.sleep(0.05)
        assert dealt == days
        status, body = post_json(
            f"{server.url}/api/auth/signup/", {"username": "first", "password": PASSWORD}
        )
        assert status == 201
        status, game = post_json(f"{server.url}/api/daily/", {}, token=body["token"])
        assert (status, game["kind"], game["daily_date"]) == (201, "daily", days[0])
