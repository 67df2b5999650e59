"""Fixtures of the ratings tests."""

from __future__ import annotations

import pytest

from tests.leaderboard.conftest import clock  # noqa: F401 (the server's clock, as a fixture)


@pytest.fixture(autouse=True)
def only_our_days(db: None) -> None:
    """No DailyDeal row but the test's own: a row another test left behind (an earlier day not
    settled) would hold the ratings back, as a day not settled yet does."""
    from leaderboard.models import DailyDeal

    DailyDeal.objects.all().delete()
