"""The standings' pages read by stored place (``leaderboard.periods.place`` and ``table``): on
random small tables full of ties, every page gives the rows, in the order, that the table's
straightforward ordering gives (``ORDER_BY`` average, days, wins, name, with ``OFFSET``, as the
pages were read before places were stored), and after the rows change the places follow.
Run on SQLite and on PostgreSQL (``DATABASE_URL``): the places are written by one SQL statement
with a window function, whose ordering must be the database's own ``ORDER BY``."""

from __future__ import annotations

import datetime as dt
import math
import random
import string
from typing import Any

import pytest
from django.contrib.auth.models import User

from games.errors import GameError
from leaderboard import periods
from leaderboard.models import PeriodStanding, PeriodTable

pytestmark = pytest.mark.usefixtures("only_our_days")

WEEK = dt.date(2030, 6, 24)
PAGE = 7  # (small pages: a table of a few dozen rows has several, the last one partial)


@pytest.fixture(autouse=True)
def _today(clock: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    clock.set(dt.datetime(2030, 7, 20, 10, tzinfo=dt.UTC))
    monkeypatch.setattr(periods, "PAGE_SIZE", PAGE)


def fill(rng: random.Random, count: int) -> None:
    """``count`` rows of the week, a third not listed, with few distinct averages, days and
    wins, so that most rows tie with others on all three and their names decide."""
    names = rng.sample(["".join(t) for t in _names()], count)
    for name in names:
        days = rng.choice([3, 4])
        total = days * rng.choice([0, 250_000, 500_000, 1_000_000])
        PeriodStanding.objects.create(
            period="week", start=WEEK, user=User.objects.create(username=name), name=name,
            days=days, wins=rng.choice([0, 1]), percentile_sum=total, average=total / days,
            longest_streak=days, run=days, run_end=WEEK, listed=rng.random() < 2 / 3,
        )  # fmt: skip
    rows = PeriodStanding.objects.filter(period="week", start=WEEK)
    PeriodTable.objects.update_or_create(
        period="week",
        start=WEEK,
        defaults={"players": rows.count(), "listed": rows.filter(listed=True).count()},
    )


def _names() -> list[tuple[str, ...]]:
    letters = string.ascii_lowercase[:6]
    return [(a, b, c) for a in letters for b in letters for c in letters]


def by_offset(page: int) -> list[tuple[Any, ...]]:
    """Page ``page`` as the table was read before places: the listed rows in ``periods.ORDER``,
    sliced by ``OFFSET``."""
    first = (page - 1) * PAGE
    found = (
        PeriodStanding.objects.filter(period="week", start=WEEK, listed=True)
        .order_by(*periods.ORDER)
        .values_list("name", "days", "wins", "average", "longest_streak")[first : first + PAGE]
    )
    return [
        (first + k + 1, name, days, wins, periods.percent(average), longest)
        for k, (name, days, wins, average, longest) in enumerate(found)
    ]


def by_place(page: int) -> list[tuple[Any, ...]]:
    return [
        (
            r["place"],
            r["player"],
            r["days"],
            r["wins"],
            r["average_percentile"],
            r["longest_streak"],
        )
        for r in periods.table("week", WEEK, page=page)["results"]
    ]


def in_python() -> list[str]:
    """The listed names in the table's order, sorted here rather than by the database."""
    rows = PeriodStanding.objects.filter(period="week", start=WEEK, listed=True)
    found = rows.values_list("name", "average", "days", "wins")
    return [name for name, *_ in sorted(found, key=lambda r: (-r[1], -r[2], -r[3], r[0]))]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_page_by_place_gives_the_rows_the_ordering_gives(seed):
    fill(random.Random(seed), 40)
    periods.place("week", WEEK)
    listed = PeriodTable.objects.get(period="week", start=WEEK).listed
    pages = math.ceil(listed / PAGE)
    assert listed > 2 * PAGE  # (several pages, ties among them)

    read = [by_place(page) for page in range(1, pages + 1)]

    assert read == [by_offset(page) for page in range(1, pages + 1)]
    assert [row[1] for page in read for row in page] == in_python()
    assert [row[0] for page in read for row in page] == list(range(1, listed + 1))


def test_the_places_follow_the_rows_when_they_change():
    rng = random.Random(7)
    fill(rng, 30)
    periods.place("week", WEEK)
    rows = PeriodStanding.objects.filter(period="week", start=WEEK)
    # A row drops out of the table; another enters it, at the top.
    dropped = rows.filter(listed=True).order_by("name").first()
    entered = rows.filter(listed=False).order_by("name").first()
    assert dropped is not None and entered is not None
    rows.filter(pk=dropped.pk).update(listed=False)
    rows.filter(pk=entered.pk).update(listed=True, average=2_000_000.0)

    written = periods.place("week", WEEK)
    PeriodTable.objects.filter(period="week", start=WEEK).update(
        listed=rows.filter(listed=True).count()
    )

    assert written > 0
    assert rows.get(pk=dropped.pk).place is None
    assert rows.get(pk=entered.pk).place == 1
    pages = math.ceil(rows.filter(listed=True).count() / PAGE)
    read = [name for page in range(1, pages + 1) for _, name, *_ in by_place(page)]
    assert read == in_python()
    assert periods.place("week", WEEK) == 0  # (nothing changed: nothing written)


def test_a_page_past_the_places_is_refused_and_a_row_not_listed_has_no_place():
    fill(random.Random(11), 12)

    periods.place("week", WEEK)

    unlisted = PeriodStanding.objects.filter(period="week", start=WEEK, listed=False)
    assert unlisted.exists()
    assert set(unlisted.values_list("place", flat=True)) == {None}
    with pytest.raises(GameError):
        periods.table("week", WEEK, page=99)
