"""Fixtures of the leaderboard tests (people and clients: tests/conftest.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from unittest import mock

import pytest

from tests.leaderboard.helpers import CODE, store_test_deals


@pytest.fixture(autouse=True)
def daily_deal(request: pytest.FixtureRequest) -> str:
    """The deal stored for the days these tests play (the clock's days from 2030-06-15 on; the
    real today and tomorrow for a test without the clock) is the worked example, with a known
    winning line as its solver's line: the days are dealt as a database that has them stored."""
    names = set(request.fixturenames)
    marker = request.node.get_closest_marker("django_db")
    if "transactional_db" in names or (marker and marker.kwargs.get("transaction")):
        request.getfixturevalue("transactional_db")
    elif "db" in names or marker:
        request.getfixturevalue("db")
    else:
        return CODE
    store_test_deals(real_days="clock" not in names)
    return CODE


class Clock:
    """The server's clock, ``django.utils.timezone.now``, under the test's control."""

    def __init__(self, now: dt.datetime) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now

    def set(self, now: dt.datetime) -> None:
        self.now = now

    def advance(self, seconds: float) -> dt.datetime:
        self.now += dt.timedelta(seconds=seconds)
        return self.now


@pytest.fixture
def clock(request: pytest.FixtureRequest) -> Iterator[Clock]:
    """Frozen at 10:00 UTC on 2030-06-15 unless moved; every server time comes from it — the
    issue of the API tokens that the clients made before it included (tokens expire)."""
    fake = Clock(dt.datetime(2030, 6, 15, 10, 0, tzinfo=dt.UTC))
    with mock.patch("django.utils.timezone.now", new=fake):
        if {"db", "transactional_db"} & set(request.fixturenames):
            from core.accounts import auth

            auth.token_model().objects.update(created=fake.now, expiry=fake.now + auth.lifetime())
        yield fake


@pytest.fixture
def only_our_days(db: None) -> None:
    """No DailyDeal row but the test's own: the live-board broadcasts of other tests' daily games
    (transactional tests send the games signals) leave the real today's row behind."""
    from leaderboard.models import DailyDeal

    DailyDeal.objects.all().delete()
    store_test_deals(real_days=False)
