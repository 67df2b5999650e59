"""Days are dealt ahead, off the web processes, once: the worker tier certifies
(``leaderboard.tasks.deal_ahead``); a day is claimed by one dealer whatever the number of
processes; a request never waits for the solver and starts nothing (503 ``deal_pending`` with
Retry-After until a worker has dealt the day). The worker processes themselves are tried in
``tests/worker/test_deployment.py``."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from games.engine.difficulty import Band, measure
from games.models import Game
from leaderboard import deals, tasks
from leaderboard.models import DailyDeal
from tests.conftest import token_client
from tests.games.test_concurrency import at_once
from tests.leaderboard.helpers import player

SECRET = "a test secret of the days dealt ahead"


@pytest.fixture(autouse=True)
def daily_deal(settings) -> None:
    """No deal stored ahead here (conftest.py's fixture of that name stores one); lines are not
    shortened (that costs the search more, and is tested with the certification)."""
    settings.DAILY_DEAL_SECRET = SECRET
    settings.DAILY_DEAL_SHORTEN_POSITIONS = 0


def today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def run_worker() -> None:
    """A worker's run of the tasks ready now, in this process (``manage.py worker --batch``)."""
    call_command("worker", "--batch")


@pytest.mark.django_db(transaction=True)
def test_the_first_requests_wait_for_no_search_and_the_worker_deals_the_day():
    DailyDeal.objects.filter(date=today()).delete()
    clients = [token_client(player(f"early{i}")) for i in range(6)]
    queued = DBTaskResult.objects.count()

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
    assert DBTaskResult.objects.count() == queued  # and nothing started: the worker tier deals
    tasks.deal_ahead.enqueue()  # (its periodic run)

    run_worker()

    row = deals.stored(today())
    assert row is not None
    assert row.code == deals.certify(today()).code  # the day's one deal under the secret
    assert row.dealing_until is None
    assert deals.stored(today() + dt.timedelta(days=1)) is not None  # and tomorrow, ahead

    started = [c.post("/api/daily/") for c in clients]

    assert [a.status_code for a in started] == [201] * 6


@pytest.mark.django_db(transaction=True)
def test_concurrent_dealers_of_a_day_share_one_search():
    day = dt.date(2031, 1, 11)  # (a Saturday: the fierce band, where most candidates fall)

    rows = at_once(*[lambda: deals.deal_of(day)] * 4)

    assert len({(r.code, r.n, tuple(r.line), r.created) for r in rows}) == 1  # stored once
    assert DailyDeal.objects.filter(date=day).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_day_that_cannot_be_certified_backs_off_and_says_so(settings):
    settings.DAILY_DEAL_CANDIDATES = 0  # no candidate tried: certification fails at once
    DailyDeal.objects.filter(date=today()).delete()
    client = token_client(player("patient"))

    first = client.post("/api/daily/")
    assert (first.status_code, first.json()["code"]) == (503, "deal_pending")
    tasks.deal_ahead.enqueue()

    run_worker()  # the worker's dealing fails, and the day backs off

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
def test_the_worker_deals_today_and_tomorrow_once():
    now = timezone.now()
    days = tasks.days_ahead(now)
    assert days == [today(), today() + dt.timedelta(days=1)]

    assert tasks.keep_dealt(now) == days
    assert tasks.keep_dealt(now) == []  # dealt: nothing to do

    assert [deals.stored(day) is not None for day in days] == [True, True]
