"""The daily deal's difficulty in the API — today's deal, its board, the past days — before and
during the day, never a card; and ``manage.py calibrate_difficulty``, each past day's predicted
difficulty against the players' real results."""

import io
import json

from django.core.management import call_command

from games.engine.difficulty import measure
from leaderboard.models import DailyDeal
from tests.leaderboard.helpers import CODE, OPENING, WON, attempt, player
from tests.leaderboard.test_picture import DIFFICULTY, with_difficulty

SHOWN = {"label": "gentle", "share": 0.4, "cards": 30.0}


def test_todays_difficulty_is_shown_before_and_during_the_day(api, owner_api, owner, clock):
    with_difficulty()

    before = owner_api.get("/api/daily/").json()
    attempt(owner, OPENING, clock)
    during = owner_api.get("/api/daily/").json()
    board = api.get("/api/daily/2030-06-15/board/").json()

    assert before["difficulty"] == during["difficulty"] == board["difficulty"] == SHOWN
    assert api.get("/api/daily/").json()["difficulty"] == SHOWN  # anonymous too
    assert (board["code"], board["par"]) == (None, None)  # (and still nothing of the deal)


def test_a_past_day_lists_its_difficulty(api, clock):
    with_difficulty()
    clock.advance(24 * 3600)

    (day,) = api.get("/api/daily/days/").json()["results"]

    assert day["difficulty"] == SHOWN
    assert api.get("/api/daily/2030-06-15/board/").json()["difficulty"] == SHOWN


def test_a_day_without_a_difficulty_shows_none(api, clock):
    assert api.get("/api/daily/").json()["difficulty"] is None
    assert DailyDeal.objects.get(date="2030-06-15").measured() is None


def test_calibration_prints_each_past_day_predicted_against_real(db, clock, settings):
    with_difficulty()  # 2030-06-15: predicted 40% (gentle)
    attempt(player("won"), WON, clock, step=0.1)
    attempt(player("lost"), OPENING, clock)
    clock.advance(24 * 3600)  # 2030-06-16: dealt without a difficulty, one player
    attempt(player("late"), ["D"], clock)
    clock.advance(24 * 3600)  # 2030-06-17: today, not a past day

    out = io.StringIO()
    call_command("calibrate_difficulty", "--days", "5", "--json", stdout=out)

    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    measured = measure(CODE, settings.DAILY_DIFFICULTY_GAMES)  # the day measured for the report
    assert lines == [
        {
            "date": "2030-06-16",
            "weekday": "Sun",
            "band": None,
            "label": measured.label,
            "predicted_share": round(measured.share, 4),
            "predicted_cards": round(measured.cards, 1),
            "players": 1,
            "winners": 0,
            "real_share": 0.0,
            "real_cards": 1.0,
        },
        {
            "date": "2030-06-15",
            "weekday": "Sat",
            "band": "35-100",
            "label": "gentle",
            "predicted_share": DIFFICULTY.share,
            "predicted_cards": DIFFICULTY.cards,
            "players": 2,
            "winners": 1,
            "real_share": 0.5,
            "real_cards": 27.0,
        },
    ]
    assert DailyDeal.objects.get(date="2030-06-16").measured() == measured  # stored

    text = io.StringIO()
    call_command("calibrate_difficulty", stdout=text)
    assert "2030-06-15 Sat 35-100 gentle       40%      30.0       2   50%  27.0" in (
        text.getvalue()
    )
    assert "  gentle: 1 day(s), predicted 40% -> real 50% (1/2 won)" in text.getvalue()
