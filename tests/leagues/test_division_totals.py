"""A division's table while its week is open (``leagues.services.division_of``): each member's
points, days and best day summed from their day rows, one subquery each per member — a member
with several days, members tied on points (then days, then the best day decides) and a member
with no day row at all (nothing to sum: 0, not missing)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User

from leagues import services
from leagues.models import DayPoints, Division, Membership, Tier, Week

pytestmark = pytest.mark.django_db

MONDAY = dt.date(2030, 6, 17)
#: A reading after the week, before it is closed: the totals are summed, with no today.
AFTER = dt.datetime(2030, 6, 25, 12, tzinfo=dt.UTC)


def test_an_open_weeks_totals_are_summed_from_each_members_day_rows():
    week = Week.objects.create(monday=MONDAY)
    division = Division.objects.create(week=week, tier=Tier.SILVER, number=1)
    days = {
        "amy": [90, 10],  # 100 in 2 days, best 90
        "ben": [50, 50],  # 100 in 2 days, best 50
        "cal": [100],  # 100 in 1 day
        "dee": [],  # a member without a day row
        "eve": [30, 40, 20],  # 90 in 3 days
    }
    for name, points in days.items():
        member = Membership.objects.create(
            week=week, division=division, player=User.objects.create(username=name)
        )
        for k, p in enumerate(points):
            DayPoints.objects.create(membership=member, day=MONDAY + dt.timedelta(days=k), points=p)

    found = services.division_of(User.objects.get(username="dee"), MONDAY, now=AFTER)

    assert [(r["player"], r["points"], r["days"], r["today"]) for r in found["rows"]] == [
        ("amy", 100, 2, None),
        ("ben", 100, 2, None),
        ("cal", 100, 1, None),
        ("eve", 90, 3, None),
        ("dee", 0, 0, None),
    ]
    assert found["me"]["player"] == "dee"
    assert found["closed"] is False
