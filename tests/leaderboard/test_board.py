"""GET /api/daily/<date>/board/ — a day's board: its order, its pages, my own row."""

import datetime as dt

import pytest

from games import services as games
from leaderboard import standings
from leaderboard.models import DailyDeal
from leaderboard.standings import sql
from tests.leaderboard.helpers import (
    CODE,
    OPENING,
    TAKE_BACK,
    TO_TAKE_BACK,
    WON,
    attempt,
    expected_row,
    play,
    player,
)

URL = "/api/daily/2030-06-15/board/"


def board(client, url=URL):
    response = client.get(url)
    assert response.status_code == 200, response.json()
    return response.json()


def ranks(body):
    return [(row["rank"], row["player"]) for row in body["results"]]


def test_it_gives_todays_board_without_the_code(api, clock):
    a = attempt(player("ann"), OPENING, clock)  # 2 actions, 1 s apart: started 10:00:01
    clock.advance(10)

    assert board(api) == {
        "date": "2030-06-15",
        "code": None,
        "par": None,
        "solution": None,
        "count": 1,
        "page": 1,
        "pages": 1,
        "results": [expected_row(a, 1, 11.0)],
        "me": None,
        "seq": 0,
        "difficulty": None,
    }


def test_it_ranks_won_first_then_more_foundation_cards(api, clock):
    attempt(player("few"), ["D"], clock)  # 1 card, 1 action
    attempt(player("more"), OPENING, clock)  # 2 cards, 2 actions
    attempt(player("won"), WON, clock, step=0.1)  # 52 cards, 222 actions

    assert ranks(board(api)) == [(1, "won"), (2, "more"), (3, "few")]


def test_it_ranks_fewer_actions_first_among_equal_cards(api, clock):
    attempt(player("undoer"), ["R-T2", "U", *OPENING], clock, step=0.1)  # 2 cards, 4 actions
    attempt(player("direct"), OPENING, clock, step=10)  # 2 cards, 2 actions, slower

    assert ranks(board(api)) == [(1, "direct"), (2, "undoer")]


def test_it_ranks_less_time_first_among_equal_actions(api, clock):
    slow = attempt(player("slow"), OPENING, clock, step=30)
    games.resign(slow, slow.owner)  # 30 s from the first action to resigning
    fast = attempt(player("fast"), OPENING, clock, step=5)
    games.resign(fast, fast.owner)  # 5 s
    attempt(player("open"), OPENING, clock, step=1)
    clock.advance(10)  # still playing: 11 s so far, and counting

    body = board(api)

    assert ranks(body) == [(1, "fast"), (2, "open"), (3, "slow")]
    assert [row["time_seconds"] for row in body["results"]] == [5.0, 11.0, 30.0]

    clock.advance(20)  # 31 s: now slower than "slow"
    assert ranks(board(api)) == [(1, "fast"), (2, "slow"), (3, "open")]


def test_it_ranks_who_finished_first_among_equal_times(api, clock):
    late = player("late")
    early = attempt(player("early"), OPENING, clock)
    games.resign(early, early.owner)
    clock.advance(300)
    late_game = attempt(late, OPENING, clock)
    games.resign(late_game, late)

    body = board(api)

    assert ranks(body) == [(1, "early"), (2, "late")]
    assert body["results"][0]["time_seconds"] == body["results"][1]["time_seconds"] == 1.0


def test_it_never_ranks_by_score(api, clock):
    """A take-back from a foundation and placing the card again earns 5 points each cycle; the
    points are shown, the rank does not rise."""
    farmer = attempt(player("farmer"), TO_TAKE_BACK, clock)  # 24 actions
    attempt(player("rival"), [*TO_TAKE_BACK, "D", "U"], clock)  # 26 actions, same cards
    before = board(api)
    assert ranks(before) == [(1, "farmer"), (2, "rival")]

    play(farmer, TAKE_BACK * 3, clock)
    after = board(api)

    rows = {row["player"]: row for row in after["results"]}
    assert rows["farmer"]["score"] == rows["rival"]["score"] + 15
    assert rows["farmer"]["foundation_cards"] == rows["rival"]["foundation_cards"]
    assert ranks(after) == [(1, "rival"), (2, "farmer")]


def test_its_take_backs_never_raise_a_rank(api, clock):
    farmer = attempt(player("farmer"), TO_TAKE_BACK, clock)
    for _ in range(5):
        rank = next(r["rank"] for r in board(api)["results"] if r["player"] == "farmer")
        attempt(player(f"rival{_}"), TO_TAKE_BACK[:20], clock)  # others keep playing too
        score = farmer.score
        play(farmer, TAKE_BACK, clock)
        assert farmer.score == score + 5
        now = next(r["rank"] for r in board(api)["results"] if r["player"] == "farmer")
        assert now >= rank


def test_it_leaves_attempts_without_an_action_off_the_board(api, owner_api, owner, clock):
    attempt(owner)
    attempt(player("ann"), ["D"], clock)

    body = board(owner_api)

    assert (body["count"], ranks(body)) == (1, [(1, "ann")])
    assert body["me"] is None


def test_it_gives_my_row_on_the_page(owner_api, owner, clock):
    mine = attempt(owner, OPENING, clock)
    attempt(player("ann"), ["D"], clock)

    body = board(owner_api)

    assert body["me"] == body["results"][0] == expected_row(mine, 1, 2.0)


def test_it_pages_by_100_and_gives_my_row_from_any_page(owner_api, owner, clock):
    for n in range(150):
        attempt(player(f"p{n:03}"), OPENING, clock, step=0)  # all the same: started in order
    mine = attempt(owner, ["D"], clock)  # 1 card: last

    first = board(owner_api)
    second = board(owner_api, URL + "?page=2")

    assert (first["count"], first["pages"], len(first["results"])) == (151, 2, 100)
    assert ranks(first)[:2] == [(1, "p000"), (2, "p001")]
    assert ranks(second)[0] == (101, "p100")
    assert ranks(second)[-1] == (151, "owner")
    assert first["me"] == second["me"] == second["results"][-1]
    assert first["me"]["rank"] == 151 and first["me"]["game_id"] == mine.pk


def test_it_ranks_my_row_as_the_list_does(db, clock):
    """``me`` is ranked by counting the rows ahead (standings.rank_of); on every key, and on ties,
    that count must agree with the list's order."""
    attempt(player("a"), ["R-T2", "U", *OPENING], clock, step=2)  # 2 cards, 4 actions
    for name in ("b", "c"):  # 3 s each, b finished first
        game = attempt(player(name), OPENING, clock, step=3)
        games.resign(game, game.owner)
    attempt(player("d"), ["D"], clock)  # 1 card
    attempt(player("e"), OPENING, clock, step=1)  # open: its time runs on
    attempt(player("f"), WON, clock, step=0.1)
    clock.set(clock.now.replace(hour=12))
    for n in range(3):  # 0 s each, finished at the same instant: the earlier attempt first
        game = attempt(player(f"tie{n}"), OPENING, clock, step=0)
        games.resign(game, game.owner)

    listed = list(sql.ranked(dt.date(2030, 6, 15), clock.now))

    assert [g.owner.username for g in listed] == [
        "f", "tie0", "tie1", "tie2", "b", "c", "e", "a", "d",
    ]  # fmt: skip
    for position, game in enumerate(listed, start=1):
        assert standings.rank_of(game, clock.now) == position


def test_it_publishes_a_past_days_code_and_shows_its_open_attempts_closed(api, clock):
    open_ = attempt(player("ann"), OPENING, clock)
    clock.set(dt.datetime(2030, 6, 16, 9, 0, tzinfo=dt.UTC))

    body = board(api)

    assert body["code"] == CODE
    # Closed as it stood, its clock stopped at the day's end: 10:00:01 to midnight.
    assert body["results"] == [
        {
            **expected_row(open_, 1, 14 * 3600 - 1.0),
            "status": "resigned",
            "result": "closed",
            "finished_at": "2030-06-16T00:00:00Z",
        }
    ]
    open_.refresh_from_db()
    assert open_.status == "in_progress"  # a read never writes: close_daily_attempts does


def test_it_gives_the_live_streams_sequence_number(api, clock):
    DailyDeal.objects.filter(date=dt.date(2030, 6, 15)).update(seq=41)

    assert board(api)["seq"] == 41


def test_it_gives_an_empty_board_for_a_dealt_day_without_attempts(api, clock):
    clock.advance(24 * 3600)
    body = board(api, "/api/daily/2030-06-15/board/")

    assert (body["count"], body["results"], body["pages"]) == (0, [], 1)


def test_it_answers_404_for_a_past_day_that_had_no_deal_without_caching_anything(api, clock):
    from django.core.cache import cache

    kept = getattr(cache, "_cache", None)  # (the in-memory cache's dict; Redis has its own keys)
    before = len(kept) if isinstance(kept, dict) else 0
    for date in ("2030-06-01", "1999-12-31", "0001-01-01"):
        response = api.get(f"/api/daily/{date}/board/")

        assert response.status_code == 404
        assert response.json() == {
            "code": "not_found",
            "message": f"There was no daily deal on {date}.",
        }
    if isinstance(kept, dict):  # (the in-memory cache: nothing was stored for those dates)
        assert len(kept) == before


def test_it_answers_404_for_a_day_not_begun(api, clock):
    response = api.get("/api/daily/2030-06-16/board/")

    assert response.status_code == 404
    assert response.json() == {
        "code": "not_found",
        "message": "There is no daily deal for 2030-06-16 yet.",
    }


@pytest.mark.parametrize(
    "date", ["2030-6-15", "2030-02-30", "yesterday", "20300615", "2030-06-15x"]
)
def test_it_answers_400_for_a_malformed_date(api, clock, date):
    response = api.get(f"/api/daily/{date}/board/")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_date"


@pytest.mark.parametrize("page", ["0", "-1", "x", "1.5"])
def test_it_answers_400_for_a_malformed_page(api, clock, page):
    response = api.get(f"{URL}?page={page}")

    assert (response.status_code, response.json()["code"]) == (400, "invalid")


def test_it_answers_404_for_a_page_past_the_last(api, clock):
    attempt(player("ann"), ["D"], clock)

    response = api.get(f"{URL}?page=2")

    assert (response.status_code, response.json()["code"]) == (404, "not_found")
