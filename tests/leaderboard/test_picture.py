"""GET /api/daily/<date>/picture/ — how everyone did on a day's deal, in counts only: the
attempts by their cards on the foundations, the real share of wins next to the predicted one,
par once the day is over, and my own place."""

from collections import Counter

from games.engine.difficulty import Difficulty, LevelResult
from leaderboard.models import DailyDeal
from tests.leaderboard.helpers import OPENING, WON, attempt, player

URL = "/api/daily/2030-06-15/picture/"
BOARD = "/api/daily/2030-06-15/board/"
#: A difficulty as certification stores it: the casual player won 12 of 30 (gentle).
DIFFICULTY = Difficulty(
    (
        LevelResult("novice", 30, 3, 400),
        LevelResult("casual", 30, 12, 900),
        LevelResult("expert", 30, 20, 1200),
    )
)


def with_difficulty() -> None:
    DailyDeal.objects.filter(date="2030-06-15").update(
        difficulty_band="35-100", **DailyDeal.difficulty_fields(DIFFICULTY)
    )


def test_its_counts_are_the_boards(api, owner_api, owner, clock):
    """The bars count the board's rows by their cards: the same attempts (one action or more),
    the same cards, the wins at 52."""
    attempt(player("few"), ["D"], clock)  # 1 card
    attempt(player("more"), OPENING, clock)  # 2 cards
    attempt(player("also"), OPENING, clock)
    attempt(player("won"), WON, clock, step=0.1)  # 52 cards
    attempt(player("idle"))  # no action: neither on the board nor in the picture
    mine = attempt(owner, ["D", *OPENING], clock)  # 2 cards
    with_difficulty()

    board = api.get(BOARD).json()
    picture = owner_api.get(URL).json()

    by_cards = Counter(row["foundation_cards"] for row in board["results"])
    assert picture["bars"] == [{"cards": c, "players": n} for c, n in sorted(by_cards.items())]
    assert picture == {
        "date": "2030-06-15",
        "final": False,
        "players": board["count"],
        "winners": 1,
        "share": 0.2,
        "mean_cards": round((1 + 2 + 2 + 52 + 2) / 5, 1),
        "bars": [
            {"cards": 1, "players": 1},
            {"cards": 2, "players": 3},
            {"cards": 52, "players": 1},
        ],
        "predicted": {"label": "gentle", "share": 0.4, "cards": 30.0},
        "par": None,  # not before the day is over
        "me": {"foundation_cards": 2, "won": False, "ahead": 1, "behind": 1},
    }
    assert mine.foundation_cards == 2


def test_once_the_day_is_over_it_is_final_with_par(api, owner_api, owner, clock):
    attempt(player("won"), WON, clock, step=0.1)
    attempt(owner, ["D"], clock)
    clock.advance(24 * 3600)

    picture = owner_api.get(URL).json()

    assert (picture["final"], picture["par"], picture["players"]) == (True, len(WON), 2)
    assert picture["share"] == 0.5 and picture["predicted"] is None  # (dealt without one)
    assert picture["me"] == {"foundation_cards": 1, "won": False, "ahead": 1, "behind": 0}
    assert api.get(URL).json()["me"] is None  # anonymous: no place of its own


def test_a_day_nobody_played_is_empty(api, clock):
    assert api.get(URL).json() == {
        "date": "2030-06-15",
        "final": False,
        "players": 0,
        "winners": 0,
        "share": 0.0,
        "mean_cards": None,
        "bars": [],
        "predicted": None,
        "par": None,
        "me": None,
    }


def test_it_refuses_a_day_to_come_and_a_malformed_date(api, clock):
    assert api.get("/api/daily/2030-06-16/picture/").status_code == 404
    response = api.get("/api/daily/2030-6-15/picture/")
    assert (response.status_code, response.json()["code"]) == (400, "invalid_date")
