"""manage.py settle_days — a day's final ranks and counts, written once when it is over; the
day's board, the list of days and the players' pages read them from then on."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from games import services as games
from games.models import Game
from leaderboard import signals, standings
from leaderboard.models import DailyDeal, FinalRank
from leaderboard.standings import settled, sql
from tests.leaderboard.helpers import OPENING, WON, attempt, player

pytestmark = pytest.mark.usefixtures("only_our_days")

DAY = dt.date(2030, 6, 15)
#: A minute and a second after DAY ended: DAY is due.
DUE = dt.datetime(2030, 6, 16, 0, 1, 1, tzinfo=dt.UTC)


def settle(*args: str) -> str:
    out = io.StringIO()
    call_command("settle_days", *args, stdout=out)
    return out.getvalue()


def finals(day: dt.date = DAY) -> dict[str, int | None]:
    return dict(
        FinalRank.objects.filter(day=day).values_list("game__owner__username", "rank").order_by()
    )


@pytest.fixture
def day(clock):
    """DAY played: a win, two attempts resigned with the same cards, one left open, one never
    started."""
    attempt(player("won"), WON, clock, step=0.1)
    for name in ("slow", "fast"):
        game = attempt(player(name), OPENING, clock, step=20 if name == "slow" else 1)
        games.resign(game, game.owner)
    attempt(player("open"), ["D"], clock)
    attempt(player("never"))
    return clock


def test_it_settles_a_day_that_is_over_as_its_board_stood_at_its_end(day):
    day.set(DUE)
    board = [g.owner.username for g in sql.ranked(DAY, DUE)]

    assert settle() == "2030-06-15: settled, 4 ranked attempt(s)\nSettled 1 day(s).\n"

    assert board == ["won", "fast", "slow", "open"]
    assert finals() == {"won": 1, "fast": 2, "slow": 3, "open": 4, "never": None}
    deal = DailyDeal.objects.get(date=DAY)
    assert (deal.players, deal.winners, deal.settled_at) == (4, 1, DUE)


def test_it_settles_nothing_before_a_minute_after_the_days_end(day):
    day.set(DUE - dt.timedelta(seconds=2))

    assert settle() == "Settled 0 day(s).\n"
    assert FinalRank.objects.count() == 0
    with pytest.raises(CommandError, match="not over yet"):
        settle("--day", "2030-06-15")


def test_it_settles_a_day_once_and_again_only_when_asked(day):
    day.set(DUE)
    settle()
    # A correction written to an attempt after the day was settled (the ranks stay as written)...
    Game.objects.filter(owner__username="slow").update(foundation_cards=3)

    assert settle() == "Settled 0 day(s).\n"
    assert settle("--day", "2030-06-15") == (
        "2030-06-15: already settled (--again to redo it)\nSettled 0 day(s).\n"
    )
    assert finals()["slow"] == 3
    # ... is taken in when the day is settled again.
    assert settle("--day", "2030-06-15", "--again").startswith("2030-06-15: settled, 4")
    assert finals() == {"won": 1, "slow": 2, "fast": 3, "open": 4, "never": None}


def test_a_settled_days_board_reads_its_final_ranks(day, django_assert_max_num_queries):
    day.set(DUE)
    settle()
    # The day's ranks are final: a change written after settling moves nothing on its board.
    Game.objects.filter(owner__username="open").update(foundation_cards=30)

    board = standings.board(DAY, DUE)
    assert isinstance(board, settled.SettledBoard)
    with django_assert_max_num_queries(1):
        rows = [(g.owner.username, g.foundation_cards) for g in board.rows(0, 100)]
    assert rows == [("won", 52), ("fast", 2), ("slow", 2), ("open", 30)]
    assert [g.owner.username for g in board.rows(1, 3)] == ["fast", "slow"]
    assert board.count == 4
    assert board.rank_of(Game.objects.get(owner__username="open")) == 4
    assert board.rank_of(Game.objects.get(owner__username="never")) is None


def test_no_read_of_a_day_over_settles_it(day, api):
    day.set(DUE + dt.timedelta(days=1))

    assert api.get("/api/daily/2030-06-15/board/").json()["count"] == 4
    assert api.get("/api/daily/days/").json()["results"][-1]["players"] == 4
    assert api.get("/api/players/won/").json()["stats"]["best_rank"] == 1

    assert FinalRank.objects.count() == 0
    deal = DailyDeal.objects.get(date=DAY)
    assert (deal.players, deal.winners, deal.settled_at) == (None, None, None)


def test_it_settles_every_day_due_oldest_first(clock):
    for _ in range(3):
        attempt(player(f"p{clock.now.day}"), ["D"], clock)
        clock.advance(24 * 3600)
    clock.set(dt.datetime(2030, 6, 18, 0, 1, 1, tzinfo=dt.UTC))

    assert settle().splitlines() == [
        "2030-06-15: settled, 1 ranked attempt(s)",
        "2030-06-16: settled, 1 ranked attempt(s)",
        "2030-06-17: settled, 1 ranked attempt(s)",
        "Settled 3 day(s).",
    ]
    # The days after them, dealt ahead, are not over.
    assert DailyDeal.objects.filter(settled_at__isnull=True, date__lt="2030-06-18").count() == 0


def test_a_settled_days_percentiles_share_a_tied_result_and_leave_the_unranked_out(clock):
    """1.0 for the best, 0.0 for the last, the share of the others each beats: two attempts with
    the same result (cards, actions, time) have the same, whatever order the board gives them."""
    attempt(player("won"), WON, clock, step=0.1)
    for name in ("tie-a", "tie-b"):
        game = attempt(player(name), OPENING, clock, step=1)
        games.resign(game, game.owner)
    slow = attempt(player("slow"), OPENING, clock, step=20)
    games.resign(slow, slow.owner)
    attempt(player("never"))
    owners = {u.pk: u.username for u in User.objects.all()}

    found = [(owners[owner], p) for _, owner, p in settled.percentiles(DAY)]

    assert [name for name, _ in found][0] == "won"
    assert dict(found) == pytest.approx({"won": 1.0, "tie-a": 2 / 3, "tie-b": 2 / 3, "slow": 0.0})


def test_a_day_settled_is_announced_once_it_committed_and_again_when_settled_afresh(
    day, django_capture_on_commit_callbacks
):
    heard: list[tuple[dt.date, bool]] = []

    def listen(sender, day, again, **kwargs):
        heard.append((day, again))

    signals.day_settled.connect(listen)
    try:
        day.set(DUE)
        with django_capture_on_commit_callbacks(execute=True):
            settle()
            assert heard == []  # (not before the ranks are committed)
        assert heard == [(DAY, False)]
        with django_capture_on_commit_callbacks(execute=True):
            settle("--day", "2030-06-15", "--again")
    finally:
        signals.day_settled.disconnect(listen)

    assert heard == [(DAY, False), (DAY, True)]
