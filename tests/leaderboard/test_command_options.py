"""The leaderboard's commands refuse a bad ``--days`` with an error that names it, and do
nothing."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from leaderboard.models import DailyDeal


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("command", "days", "message"),
    [
        ("prepare_daily_deals", "three", "--days: expected a whole number of days, got 'three'"),
        ("prepare_daily_deals", "0", "--days: expected 1 to 31 days, got 0"),
        ("prepare_daily_deals", "32", "--days: expected 1 to 31 days, got 32"),
        ("calibrate_difficulty", "4.5", "--days: expected a whole number of days, got '4.5'"),
        ("calibrate_difficulty", "367", "--days: expected 1 to 366 days, got 367"),
    ],
)
def test_a_bad_day_count_is_refused_and_nothing_is_dealt(command, days, message):
    before = list(DailyDeal.objects.values_list("date", "code"))

    with pytest.raises(CommandError) as refused:
        call_command(command, days=days)

    assert str(refused.value) == message
    assert list(DailyDeal.objects.values_list("date", "code")) == before
