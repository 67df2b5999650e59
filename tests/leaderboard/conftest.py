"""Fixtures of the leaderboard tests (people and clients: tests/conftest.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from unittest import mock

import pytest

from games.engine import DealCode
from tests.leaderboard.helpers import CODE


@pytest.fixture(autouse=True)
def daily_deal() -> Iterator[DealCode]:
    """Today's (and every day's) daily deal is the worked example in these tests."""
    code = DealCode.parse(CODE)
    with mock.patch("leaderboard.services.daily_deal", return_value=code):
        yield code


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
            from rest_framework.authtoken.models import Token

            Token.objects.update(created=fake.now)
        yield fake


@pytest.fixture
def only_our_days(db: None) -> None:
    """No DailyDeal row but the test's own: the live-board broadcasts of other tests' daily games
    (transactional tests send the games signals) leave the real today's row behind."""
    from leaderboard import broadcast
    from leaderboard.models import DailyDeal

    assert broadcast.wait_idle(10)
    DailyDeal.objects.all().delete()
