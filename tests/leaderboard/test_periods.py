"""Standings over time (leaderboard.periods): a week's, a month's and all time's rows added up
from settled days, once each, recomputed when a day is settled again, rebuilt identically; the
tables' order and minimums; GET /api/standings/.

The example (docs/standings.md works it through): four settled days, the first three in the
ISO week of Monday 2030-06-24 and in June, the fourth (Monday 2030-07-01) in the next week and
in July. Percentiles in millionths: 1 - (rank - 1) / (n - 1), tied attempts sharing the best
rank of their tie.

- 06-28: ann won (1,000,000); bob and cat 30 cards (tied: 1 - 1/3 = 666,667); dan 10 (0).
- 06-29: bob won (1,000,000); ann 40 (500,000); eve 20 (0); dan's win disqualified (not
  ranked); fay's attempt never started (not ranked).
- 06-30: cat 45 (1,000,000); ann and bob 20 (tied: 666,667); dan 5 (0).
- 07-01: ann won (1,000,000); bob 30 (0).
"""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django_tasks_db.models import DBTaskResult

from games.models import Game
from leaderboard import periods, tasks
from leaderboard.models import DailyDeal, Milestone, PeriodStanding, PeriodTable, StandingsDay
from leaderboard.standings import settle_day
from tests.leaderboard.contract_standings import check_standings
from tests.leaderboard.helpers import CODE
from tests.site.test_contract import Contract

pytestmark = pytest.mark.usefixtures("only_our_days")

D1, D2, D3, D4 = (dt.date(2030, 6, 28) + dt.timedelta(days=k) for k in range(4))
WEEK, NEXT_WEEK = dt.date(2030, 6, 24), dt.date(2030, 7, 1)
JUNE, JULY = dt.date(2030, 6, 1), dt.date(2030, 7, 1)
ALL = periods.ALL_TIME_START


@pytest.fixture(autouse=True)
def _today(clock: Any) -> None:
    """The server's today: 2030-07-20, after the example's days."""
    clock.set(dt.datetime(2030, 7, 20, 10, tzinfo=dt.UTC))


def at(day: dt.date, hour: int = 10) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour), tzinfo=dt.UTC)


def user(name: str) -> User:
    return User.objects.get_or_create(username=name)[0]


def daily(name: str, day: dt.date, cards: int = 0, won: bool = False, **fields: Any) -> Game:
    """``name``'s attempt at ``day``'s deal, played 50 actions in five minutes: won (all 52
    cards home) or resigned with ``cards`` home."""
    return Game.objects.create(
        owner=user(name),
        code=CODE,
        kind=Game.Kind.DAILY,
        daily_date=day,
        status=Game.Status.WON if won else Game.Status.RESIGNED,
        ply=fields.pop("ply", 50),
        foundation_cards=52 if won else cards,
        started_at=at(day),
        finished_at=at(day) + dt.timedelta(minutes=5),
        **fields,
    )


def settle(day: dt.date, again: bool = False) -> None:
    assert settle_day(day, again=again, now=at(day + dt.timedelta(days=1), 1))


def play_example() -> None:
    """The module's example, each day settled (not yet added to the standings)."""
    daily("ann", D1, won=True)
    daily("bob", D1, 30)
    daily("cat", D1, 30)
    daily("dan", D1, 10)
    daily("bob", D2, won=True)
    daily("ann", D2, 40)
    daily("eve", D2, 20)
    daily("dan", D2, won=True, disqualified=True)
    daily("fay", D2, ply=0)
    daily("cat", D3, 45)
    daily("ann", D3, 20)
    daily("bob", D3, 20)
    daily("dan", D3, 5)
    daily("ann", D4, won=True)
    daily("bob", D4, 30)
    for day in (D1, D2, D3, D4):
        settle(day)


def rows(kind: str, start: dt.date) -> dict[str, tuple[int, int, int, int, bool]]:
    """name: (days, wins, percentile sum, longest streak, listed)."""
    found = PeriodStanding.objects.filter(period=kind, start=start).values_list(
        "name", "days", "wins", "percentile_sum", "longest_streak", "listed"
    )
    return {name: tuple(rest) for name, *rest in found}  # type: ignore[misc]


def everything() -> list[tuple[Any, ...]]:
    """Every row of the standings, every column but the id, and the tables' counts."""
    standings = PeriodStanding.objects.order_by("period", "start", "name").values_list(
        "period",
        "start",
        "user_id",
        "name",
        "days",
        "wins",
        "percentile_sum",
        "average",
        "longest_streak",
        "run",
        "run_end",
        "listed",
        "place",
    )
    tables = PeriodTable.objects.order_by("period", "start").values_list(
        "period", "start", "players", "listed"
    )
    return [*standings, *tables]


@pytest.fixture
def example() -> None:
    play_example()
    assert periods.count_pending() == [D1, D2, D3, D4]


def test_it_adds_each_settled_day_to_its_week_month_and_all_time(example):
    # (each added day places the listed rows of its periods; those not listed have no place)
    assert dict(
        PeriodStanding.objects.filter(period="week", start=WEEK).values_list("name", "place")
    ) == {"bob": 1, "ann": 2, "cat": None, "dan": None, "eve": None}
    assert rows("week", WEEK) == {
        "ann": (3, 1, 2_166_667, 3, True),
        "bob": (3, 1, 2_333_334, 3, True),
        "cat": (2, 0, 1_666_667, 1, False),
        "dan": (2, 0, 0, 1, False),  # (06-29's win disqualified: no day, and the run broken)
        "eve": (1, 0, 0, 1, False),
    }
    assert rows("week", NEXT_WEEK) == {
        "ann": (1, 1, 1_000_000, 1, False),
        "bob": (1, 0, 0, 1, False),
    }
    assert (
        rows("month", JUNE)
        == {  # the same days, below the month's minimum of 10
            name: (*row[:4], False) for name, row in rows("week", WEEK).items()
        }
    )
    assert rows("month", JULY) == rows("week", NEXT_WEEK)
    assert rows("all", ALL) == {
        "ann": (4, 2, 3_166_667, 4, False),
        "bob": (4, 1, 2_333_334, 4, False),
        "cat": (2, 0, 1_666_667, 1, False),
        "dan": (2, 0, 0, 1, False),
        "eve": (1, 0, 0, 1, False),
    }
    assert PeriodTable.objects.get(period="week", start=WEEK).listed == 2
    assert PeriodTable.objects.get(period="all", start=ALL).players == 5


def test_a_weeks_table_lists_those_with_the_minimum_of_days_in_order(example):
    page = periods.table("week", D2)

    assert page == {
        "period": {"kind": "week", "start": "2030-06-24", "end": "2030-06-30"},
        "minimum_days": 3,
        "count": 2,
        "page": 1,
        "pages": 1,
        "results": [
            # 2,333,334 / 3 = 777,778: 77.8; 2,166,667 / 3 = 722,222.3: 72.2
            {"place": 1, "player": "bob", "days": 3, "wins": 1,
             "average_percentile": 77.8, "longest_streak": 3},
            {"place": 2, "player": "ann", "days": 3, "wins": 1,
             "average_percentile": 72.2, "longest_streak": 3},
        ],
    }  # fmt: skip
    assert periods.table("month", D4)["period"] == {
        "kind": "month",
        "start": "2030-07-01",
        "end": "2030-07-31",
    }
    assert periods.table("all", D4)["results"] == []  # nobody has 30 days
    assert periods.table("all", D4)["period"] == {"kind": "all", "start": "2000-01-01", "end": None}


def test_a_months_table_with_a_lower_minimum_lists_by_average_then_days(monkeypatch):
    monkeypatch.setitem(periods.MINIMUM_DAYS, "month", 2)
    play_example()
    periods.count_pending()

    found = [
        (row["player"], row["days"], row["average_percentile"])
        for row in periods.table("month", D1)["results"]
    ]

    # cat: 1,666,667 / 2 = 833,333.5; dan: 0; eve's one day is below the minimum.
    assert found == [("cat", 2, 83.3), ("bob", 3, 77.8), ("ann", 3, 72.2), ("dan", 2, 0.0)]


def test_ties_are_ordered_by_days_then_wins_then_name():
    """Rows with the same average: more days first, then more wins, then by name."""
    rows_ = [
        ("zoe", 3, 1, 1_500_000),
        ("amy", 3, 1, 1_500_000),
        ("kim", 4, 0, 2_000_000),
        ("lou", 3, 2, 1_500_000),
        ("top", 3, 0, 2_400_000),
    ]
    for name, days, wins, total in rows_:
        PeriodStanding.objects.create(
            period="week", start=WEEK, user=user(name), name=name, days=days, wins=wins,
            percentile_sum=total, average=total / days, longest_streak=days, run=days,
            run_end=WEEK + dt.timedelta(days=days - 1), listed=True,
        )  # fmt: skip
    PeriodTable.objects.create(period="week", start=WEEK, players=5, listed=5)
    assert periods.place("week", WEEK) == 5  # (rows written here, not by a day added)

    found = [(r["place"], r["player"]) for r in periods.table("week", WEEK)["results"]]

    assert found == [(1, "top"), (2, "kim"), (3, "lou"), (4, "amy"), (5, "zoe")]


def test_a_day_is_added_once_however_often_its_task_runs(example):
    before = everything()

    assert tasks.count_standings.call(D1.isoformat()) == []
    assert tasks.count_settled_days.call() == []
    assert periods.count_day(D3) is False
    assert everything() == before
    assert StandingsDay.objects.count() == 4


def test_a_day_not_settled_is_not_added():
    daily("ann", D1, won=True)

    assert periods.count_day(D1) is False
    assert periods.count_pending() == []
    assert PeriodStanding.objects.count() == 0


def test_days_added_out_of_order_give_the_same_rows(example):
    in_order = everything()
    PeriodStanding.objects.all().delete()
    PeriodTable.objects.all().delete()
    StandingsDay.objects.all().delete()

    for day in (D3, D1, D4, D2):
        assert periods.count_day(day)

    assert everything() == in_order


def test_a_day_settled_again_is_recomputed_and_a_rebuild_gives_the_same_rows(example):
    """Staff disqualify bob's win of 06-29 after the day was added: settled again, ann's 40
    cards are that day's best (1,000,000) and bob has no day there, his runs broken."""
    Game.objects.filter(owner__username="bob", daily_date=D2).update(disqualified=True)
    settle(D2, again=True)

    assert tasks.count_standings.call(D2.isoformat(), True) == [D2.isoformat()]

    assert rows("week", WEEK) == {
        "ann": (3, 1, 2_666_667, 3, True),
        "bob": (2, 0, 1_333_334, 1, False),
        "cat": (2, 0, 1_666_667, 1, False),
        "dan": (2, 0, 0, 1, False),
        "eve": (1, 0, 0, 1, False),
    }
    assert rows("all", ALL)["bob"] == (3, 0, 1_333_334, 2, False)  # 06-30 and 07-01 in a row
    assert rows("all", ALL)["ann"] == (4, 2, 3_666_667, 4, False)
    assert periods.table("week", WEEK)["results"] == [
        {"place": 1, "player": "ann", "days": 3, "wins": 1,
         "average_percentile": 88.9, "longest_streak": 3},
    ]  # fmt: skip
    recomputed = everything()

    out = io.StringIO()
    call_command("rebuild_standings", stdout=out)

    assert out.getvalue().startswith("Rebuilt the standings from 4 settled day(s): 19 row(s)")
    assert everything() == recomputed
    # A milestone is never taken back: bob's first win stays on the day it was earned.
    assert Milestone.objects.filter(user__username="bob", kind="first_win").get().day == D2


def test_a_rebuild_from_nothing_gives_the_rows_the_days_added_one_by_one(example):
    added = everything()
    PeriodStanding.objects.all().delete()
    PeriodTable.objects.all().delete()
    StandingsDay.objects.all().delete()

    assert periods.rebuild() == 4

    assert everything() == added
    assert sorted(StandingsDay.objects.values_list("day", flat=True)) == [D1, D2, D3, D4]


def test_a_settled_day_enqueues_its_count_once_committed(django_capture_on_commit_callbacks):
    daily("ann", D1, won=True)
    with django_capture_on_commit_callbacks(execute=True):
        settle(D1)
    with django_capture_on_commit_callbacks(execute=True):
        settle(D1, again=True)

    enqueued = DBTaskResult.objects.filter(task_path=tasks.count_standings.module_path)
    assert sorted(r.args_kwargs["args"] for r in enqueued) == [["2030-06-28", False], [
        "2030-06-28", True]]  # fmt: skip
    assert PeriodStanding.objects.count() == 0  # (added by the worker, not here)


# --- GET /api/standings/ --------------------------------------------------------------------


def test_it_answers_the_current_week_by_default(example, api, clock):
    clock.set(at(D3, 12))

    found = api.get("/api/standings/")

    assert found.status_code == 200
    assert found.json() == periods.table("week", WEEK)
    assert [r["player"] for r in found.json()["results"]] == ["bob", "ann"]


def test_it_answers_the_period_containing_a_day(example, api, clock):
    clock.set(at(D4 + dt.timedelta(days=14)))

    found = api.get("/api/standings/", {"period": "month", "at": "2030-07-15"})

    assert found.status_code == 200
    assert found.json() == {
        "period": {"kind": "month", "start": "2030-07-01", "end": "2030-07-31"},
        "minimum_days": 10,
        "count": 0,
        "page": 1,
        "pages": 1,
        "results": [],
    }


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ({"period": "year"}, 400, "invalid"),
        ({"at": "2030-13-01"}, 400, "invalid_date"),
        ({"at": "tomorrow"}, 400, "invalid_date"),
        ({"page": "0"}, 400, "invalid"),
        ({"page": "x"}, 400, "invalid"),
        ({"page": "2", "at": "2030-06-28"}, 404, "not_found"),
        ({"period": "month", "at": "9999-12-31"}, 404, "not_found"),
    ],
)
def test_it_refuses_a_bad_query_clearly_and_changes_nothing(api, query, status, code):
    daily("ann", D1, won=True)
    settle(D1)
    periods.count_pending()
    before = everything()

    found = api.get("/api/standings/", query)

    assert found.status_code == status
    assert found.json()["code"] == code
    assert found.json()["message"]
    assert everything() == before


def test_it_names_the_pages_a_table_has(example, api):
    found = api.get("/api/standings/?period=week&at=2030-06-28&page=2")

    assert found.json() == {"code": "not_found", "message": "The table has 1 page."}


def test_it_refuses_a_period_given_twice(api):
    found = api.get("/api/standings/?period=week&period=month")

    assert found.status_code == 400
    assert found.json()["fields"] == {"period": ["Give this parameter once."]}


def test_the_schema_documents_the_endpoints(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/json").json()

    standings = schema["paths"]["/api/standings/"]["get"]
    assert {p["name"] for p in standings["parameters"]} == {"period", "at", "page"}
    assert {"200", "400", "404"} <= set(standings["responses"])
    assert "/api/players/{username}/milestones/" in schema["paths"]
    row = schema["components"]["schemas"]["StandingRow"]["properties"]
    assert set(row) == {
        "place", "player", "days", "wins", "average_percentile", "longest_streak"
    }  # fmt: skip


def test_a_deal_row_of_a_day_not_settled_is_not_counted(example):
    DailyDeal.objects.get_or_create(date=D4 + dt.timedelta(days=1))

    assert periods.pending() == []


def test_the_answers_validate_against_the_schema(example, api):
    periods.table("week", D1)  # (the example's rows, with a listed table of the week)
    contract = Contract(api.get("/api/schema/", {"format": "json"}).json())

    check_standings(contract.check, api, "ann")
    listed = api.get("/api/standings/", {"at": "2030-06-28"})
    contract.check("GET", "/api/standings/", listed, 200)

    mine = {"/api/standings/", "/api/players/{username}/milestones/"}
    documented = {k for k in contract.documented() if k[1] in mine and k[2] != "503"}
    assert documented - contract.seen == set()
