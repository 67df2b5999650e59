"""The deal of a day: the first keyed candidate, not dead, whose difficulty is in its weekday's
band, that the solver proves winnable within the budget; stored once (compare-and-set); keyed by a
secret that is never public."""

import datetime as dt
import io
import json

import pytest
from django.core.checks import run_checks
from django.core.management import CommandError, call_command

from games.engine import Canfield, DealCode, daily_deal_code, is_dead
from games.engine.difficulty import WEEK, Band, in_band, measure
from games.engine.solver import solve
from leaderboard import deals
from leaderboard.models import DailyDeal, DealSecret
from tests.leaderboard.helpers import store_deal
from tests.support import TEST_DEAL_POSITIONS

SECRET = "a test secret of the daily deals"
DAY = dt.date(2031, 3, 7)


@pytest.fixture(autouse=True)
def daily_deal() -> None:
    """The real deals here (conftest.py's fixture of that name stores the worked example)."""


@pytest.fixture
def weekly(settings) -> None:
    """The default weekly rhythm (the tests deal in any band unless asked: conftest.py)."""
    settings.DAILY_DIFFICULTY_WEEK = tuple(Band.parse(band) for band in WEEK.split(","))


@pytest.fixture
def secret(settings) -> bytes:
    settings.DAILY_DEAL_SECRET = SECRET
    return SECRET.encode()


def dead_first(day: dt.date) -> bytes:
    """A secret whose candidate 0 of ``day`` is dead (about 1 deal in 300 is)."""
    for i in range(20_000):
        key = f"a secret with a dead first deal {i}".encode()
        if is_dead(daily_deal_code(key, day, 0)):
            return key
    raise AssertionError("no dead candidate 0 found")


@pytest.mark.django_db
def test_it_deals_the_first_live_candidate_in_band_the_solver_proves_winnable(
    secret, settings, weekly
):
    games = settings.DAILY_DIFFICULTY_GAMES
    band = deals.band_of(DAY)
    found = deals.certify(DAY)

    code = daily_deal_code(secret, DAY, found.n)
    assert found.code == str(code) and found.code.startswith("CF2-D3-")
    assert DealCode.parse(found.code).format == "CF2"
    assert Canfield.replay(found.code, found.line).is_won()
    assert found.positions <= TEST_DEAL_POSITIONS
    assert found.band == band == Band(5, 15)  # a Friday's
    assert band.holds(found.difficulty.middle.wins, games)
    assert found.difficulty == measure(found.code, games)
    # Every earlier candidate is dead, out of the band, or not proved winnable on the same budget.
    for n in range(found.n):
        earlier = daily_deal_code(secret, DAY, n)
        assert (
            is_dead(earlier)
            or in_band(earlier, band, games) is None
            or solve(earlier, max_positions=TEST_DEAL_POSITIONS).outcome != "win"
        )
    # The same budgets decide the same deal again (games and positions, not seconds).
    again = deals.certify(DAY)
    assert (again.n, again.code, again.line, again.difficulty) == (
        found.n,
        found.code,
        found.line,
        found.difficulty,
    )


@pytest.mark.django_db
def test_the_week_runs_from_gentle_to_fierce_each_day_in_its_band(secret, settings, weekly):
    """A Monday and a Sunday (the ends of the default week) are dealt in their bands, and the
    band and the simulated players' results are stored with the deal."""
    monday, sunday = dt.date(2031, 3, 3), dt.date(2031, 3, 9)
    rows = [deals.deal_of(day) for day in (monday, sunday)]

    games = settings.DAILY_DIFFICULTY_GAMES
    labels = []
    for row, band in zip(rows, (Band(35, 100), Band(0, 5)), strict=True):
        difficulty = row.measured()
        assert difficulty is not None and row.difficulty_band == str(band)
        assert band.holds(difficulty.middle.wins, games) and difficulty.middle.games == games
        assert difficulty == measure(row.code, games)  # as stored, as measured again
        assert row.difficulty_share == difficulty.share
        assert [r.level for r in difficulty.levels] == ["novice", "casual", "expert"]
        labels.append(difficulty.label)
    assert labels == ["gentle", "fierce"]
    assert (rows[0].difficulty_share or 0) >= 1 / 3  # the easiest band: a third or more won


def test_each_weekday_has_the_band_of_the_settings(settings):
    settings.DAILY_DIFFICULTY_WEEK = (Band(0, 100),) * 6 + (Band(60, 100),)
    assert deals.band_of(dt.date(2031, 3, 9)) == Band(60, 100)  # a Sunday
    assert deals.band_of(dt.date(2031, 3, 10)) == Band(0, 100)  # a Monday


@pytest.mark.django_db
def test_a_day_dealt_before_difficulties_keeps_its_deal_and_is_measured_once(secret, settings):
    row = store_deal(DAY)  # the worked example, stored with no difficulty
    assert row.measured() is None

    measured = deals.measure(DAY)

    assert measured is not None and (measured.code, measured.line) == (row.code, row.line)
    assert measured.measured() == measure(row.code, settings.DAILY_DIFFICULTY_GAMES)
    assert measured.difficulty_band == ""  # not picked in a band
    DailyDeal.objects.filter(date=DAY).update(difficulty_share=0.5)
    again = deals.measure(DAY)
    assert again is not None and again.difficulty_share == 0.5  # measured once: never again
    assert deals.measure(dt.date(2031, 3, 6)) is None  # nothing dealt: nothing to measure


@pytest.mark.django_db
def test_it_skips_a_dead_deal(settings):
    day = dt.date(2031, 3, 8)
    key = dead_first(day)
    settings.DAILY_DEAL_SECRET = key.decode()
    assert is_dead(daily_deal_code(key, day, 0))

    found = deals.certify(day)

    assert found.n >= 1
    assert not is_dead(found.code)


def test_it_refuses_every_candidate_it_cannot_certify(secret):
    key = dead_first(DAY)

    with pytest.raises(deals.NoCertifiedDeal, match="no certified deal for 2031-03-07 in 1"):
        deals.certify(DAY, secret=key, candidates=1)


@pytest.mark.django_db
def test_a_day_is_dealt_once_first_write_wins(secret):
    found = deals.certify(DAY)
    other = deals.Certified(
        DAY, 99, "CF1-D3-AAAAACL", ["R-T2"], 1, 0.0, 0.0, found.difficulty, found.band
    )
    DailyDeal.objects.create(date=DAY, seq=7)  # the row may exist for the live stream first

    first = deals.store(found)
    second = deals.store(other)

    assert (first.code, first.n, first.par, first.outcome) == (
        found.code,
        found.n,
        len(found.line),
        "win",
    )
    assert (second.code, second.n, second.line, second.seq) == (found.code, found.n, found.line, 7)
    assert deals.deal_of(DAY).code == found.code


@pytest.mark.django_db
def test_the_deal_depends_on_the_secret(settings):
    settings.DAILY_DEAL_SECRET = SECRET
    one = deals.certify(DAY)
    settings.DAILY_DEAL_SECRET = "another test secret, just as private"
    two = deals.certify(DAY)

    assert one.code != two.code


@pytest.mark.django_db
def test_without_a_secret_it_generates_one_and_keeps_it(settings):
    settings.DAILY_DEAL_SECRET = ""
    assert not DealSecret.objects.exists()

    key = deals.deal_secret()

    assert len(key) == 32 and deals.deal_secret() == key
    row = DealSecret.objects.get()
    assert bytes.fromhex(row.secret) == key
    assert deals.certify(DAY).code == deals.certify(DAY, secret=key).code
    warnings = [m.id for m in run_checks(include_deployment_checks=True)]
    assert "leaderboard.W001" in warnings


@pytest.mark.django_db
def test_with_a_secret_it_generates_none_and_the_check_is_quiet(secret):
    assert deals.deal_secret() == secret
    assert not DealSecret.objects.exists()
    warnings = [m.id for m in run_checks(include_deployment_checks=True)]
    assert "leaderboard.W001" not in warnings


@pytest.mark.django_db
def test_prepare_daily_deals_deals_today_and_the_next_days_once(secret, settings):
    out = io.StringIO()
    today = dt.datetime.now(dt.UTC).date()

    call_command("prepare_daily_deals", "--days", "2", stdout=out)

    days = [today, today + dt.timedelta(days=1)]
    rows = list(DailyDeal.objects.filter(date__in=days).order_by("date"))
    assert [r.date for r in rows] == days
    for row in rows:  # every prepared deal's stored line replays to a win
        assert row.outcome == "win" and row.code.startswith("CF2-D3-")
        line = list(row.line or [])
        assert row.par == len(line) > 0
        assert Canfield.replay(row.code, line).is_won()
        assert f"{row.date.isoformat()}: dealt n={row.n}" in out.getvalue()

    again = io.StringIO()
    call_command("prepare_daily_deals", "--days", "2", stdout=again)
    assert f"{today.isoformat()}: already dealt" in again.getvalue()
    assert [r.code for r in DailyDeal.objects.filter(date__in=days).order_by("date")] == [
        r.code for r in rows
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("args", [["--days", "0"], ["--days", "-1"], ["--days", "x"]])
def test_prepare_daily_deals_refuses_bad_arguments(args, secret):
    with pytest.raises(CommandError):
        call_command("prepare_daily_deals", *args, stdout=io.StringIO())
    assert not DailyDeal.objects.exists()


@pytest.mark.django_db
def test_daily_deal_prints_a_day(secret, weekly):
    out = io.StringIO()
    call_command("daily_deal", DAY.isoformat(), "--json", stdout=out)

    printed = json.loads(out.getvalue())
    row = DailyDeal.objects.get(date=DAY)
    difficulty = row.measured()
    assert difficulty is not None
    casual = difficulty.middle
    assert printed == {
        "date": "2031-03-07",
        "code": row.code,
        "n": row.n,
        "outcome": "win",
        "par": row.par,
        "line": row.line,
        "difficulty": {
            "label": difficulty.label,
            "share": round(casual.share, 4),
            "cards": round(casual.mean_cards, 1),
            "band": "5-15",
            "levels": {
                r.level: {"games": r.games, "wins": r.wins, "cards": round(r.mean_cards, 1)}
                for r in difficulty.levels
            },
        },
    }
    assert difficulty.label == "hard"  # a Friday's
    text = io.StringIO()
    call_command("daily_deal", DAY.isoformat(), stdout=text)
    assert f"code: {row.code}" in text.getvalue() and f"par:  {row.par}" in text.getvalue()
    assert f"difficulty: hard, the casual player wins {casual.share:.0%} (band 5-15)" in (
        text.getvalue()
    )
    assert f"  casual: {casual.wins}/{casual.games} won" in text.getvalue()


@pytest.mark.django_db
@pytest.mark.parametrize("text", ["2031-3-7", "tomorrow", "2031-02-30"])
def test_daily_deal_refuses_a_malformed_date(text, secret):
    with pytest.raises(CommandError, match="not a date"):
        call_command("daily_deal", text, "--json", stdout=io.StringIO())
    assert not DailyDeal.objects.exists()
