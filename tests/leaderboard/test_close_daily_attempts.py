"""manage.py close_daily_attempts — close the attempts still open when their day ended."""

import datetime as dt
import io

from django.core.management import call_command

from games import services as games
from tests.leaderboard.helpers import OPENING, attempt, player


def close() -> str:
    out = io.StringIO()
    call_command("close_daily_attempts", stdout=out)
    return out.getvalue()


def test_it_closes_open_attempts_of_past_days_as_they_stand(db, clock):
    open_ = attempt(player("ann"), OPENING, clock)
    never = attempt(player("bob"))
    resigned = attempt(player("cid"), ["D"], clock)
    games.resign(resigned, resigned.owner)
    clock.advance(24 * 3600)
    today = attempt(player("dee"), ["D"], clock)

    output = close()

    assert output == "2030-06-15: closed 2 attempt(s)\nClosed 2 attempt(s) in all.\n"
    for game in (open_, never, resigned, today):
        game.refresh_from_db()
    assert (open_.status, open_.result, open_.score) == ("resigned", "closed", 5)
    assert open_.finished_at == dt.datetime(2030, 6, 16, tzinfo=dt.UTC)
    assert (never.result, resigned.result, today.result) == ("closed", "resigned", "in_progress")


def test_it_closes_nothing_twice(db, clock):
    attempt(player("ann"), OPENING, clock)
    clock.advance(24 * 3600)
    close()

    assert close() == "Closed 0 attempt(s) in all.\n"


def test_it_leaves_todays_attempts_open(db, clock):
    game = attempt(player("ann"), OPENING, clock)
    clock.set(dt.datetime(2030, 6, 15, 23, 59, 59, tzinfo=dt.UTC))

    assert close() == "Closed 0 attempt(s) in all.\n"
    game.refresh_from_db()
    assert game.status == "in_progress"
