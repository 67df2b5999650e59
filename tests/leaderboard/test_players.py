"""GET /api/players/<username>/ — a player's daily stats and history."""

import datetime as dt

import pytest
from django.contrib.auth.models import User

from games import services as games
from games.models import Game
from leaderboard import standings
from tests.leaderboard.helpers import OPENING, WON, attempt, expected_row, play, player, unlocked

DAY = 24 * 3600


def test_it_gives_a_players_stats_and_history(api, owner, clock):
    attempt(player("rival"), WON, clock, step=0.1)
    first = attempt(owner, WON, clock, step=0.2)  # won, second to rival
    clock.advance(DAY)
    second = attempt(owner, OPENING, clock)
    games.resign(second, owner)
    clock.advance(DAY)  # 2030-06-17: played, still open
    third = attempt(owner, ["D"], clock)
    clock.advance(5)

    response = api.get("/api/players/owner/")

    assert response.status_code == 200
    assert response.json() == {
        "player": "owner",
        "following": 0,
        "followers": 0,
        "followed_by_me": None,
        "rating": None,
        "stats": {
            "played": 3,
            "won": 1,
            "win_rate": 0.3333,
            "best_rank": 1,
            "most_cards": 52,
            "current_streak": 3,
            "longest_streak": 3,
        },
        "practice": {"played": 0, "won": 0, "win_rate": 0.0},
        "count": 3,
        "page": 1,
        "pages": 1,
        "history": [
            {"date": "2030-06-17", **expected_row(third, 1, 5.0)},
            {"date": "2030-06-16", **expected_row(second, 1, 1.0)},
            {"date": "2030-06-15", **expected_row(first, 2, round(221 * 0.2, 3))},
        ],
    }


def test_it_finds_a_player_ignoring_case(api, owner, clock):
    response = api.get("/api/players/OWNER/")

    assert response.status_code == 200
    assert response.json()["player"] == "owner"


def test_it_gives_empty_stats_to_a_new_player(api, owner, clock):
    body = api.get("/api/players/owner/").json()

    assert body["stats"] == {
        "played": 0,
        "won": 0,
        "win_rate": 0.0,
        "best_rank": None,
        "most_cards": None,
        "current_streak": 0,
        "longest_streak": 0,
    }
    assert (body["count"], body["history"]) == (0, [])


def test_it_shows_an_attempt_never_started_without_rank_or_time(api, owner, clock):
    game = attempt(owner)

    body = api.get("/api/players/owner/").json()

    assert body["stats"]["played"] == 0
    assert body["history"] == [{"date": "2030-06-15", **expected_row(game, None, None)}]


def test_it_counts_streaks_of_days_played(api, owner, clock):
    start = clock.now
    for offset in (0, 1, 2, 4, 5, 8, 9, 10, 11):  # runs of 3, 2 and 4 days
        clock.set(start + dt.timedelta(days=offset))
        attempt(owner, ["D"], clock)
    clock.set(start + dt.timedelta(days=12))  # today not played yet: the run is still current

    stats = api.get("/api/players/owner/").json()["stats"]
    assert (stats["current_streak"], stats["longest_streak"]) == (4, 4)

    clock.set(start + dt.timedelta(days=13))  # a day missed: the run is over
    stats = api.get("/api/players/owner/").json()["stats"]
    assert (stats["current_streak"], stats["longest_streak"]) == (0, 4)


def test_it_does_not_count_a_day_whose_attempt_never_started(api, owner, clock):
    attempt(owner, ["D"], clock)
    clock.advance(DAY)
    attempt(owner)  # started nothing
    clock.advance(DAY)
    attempt(owner, ["D"], clock)

    stats = api.get("/api/players/owner/").json()["stats"]

    assert (stats["played"], stats["current_streak"], stats["longest_streak"]) == (2, 1, 1)


def test_it_closes_the_players_attempts_of_past_days(api, owner, clock):
    game = attempt(owner, OPENING, clock)
    clock.advance(DAY)

    row = api.get("/api/players/owner/").json()["history"][0]

    game.refresh_from_db()
    assert (row["status"], row["result"]) == ("resigned", "closed")
    assert row["finished_at"] == "2030-06-16T00:00:00Z"


def test_it_leaves_practice_games_out(api, owner, clock):
    games.new_game(owner)

    assert api.get("/api/players/owner/").json()["count"] == 0


def test_it_answers_404_for_an_unknown_player(api, clock):
    response = api.get("/api/players/nobody/")

    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "No such player."}


def test_it_answers_404_for_a_page_past_the_last(api, owner, clock):
    assert api.get("/api/players/owner/?page=2").status_code == 404
    assert api.get("/api/players/owner/?page=zero").status_code == 400


def test_it_counts_finished_practice_games_apart_from_the_daily_ones(api, owner, clock):
    attempt(owner, OPENING, clock)
    practice = "CF1-D3-QWERTYU"  # (not the daily deal's deck: that is no practice today)
    resigned = unlocked(lambda: games.new_game(owner, practice))
    play(resigned, ["D"], clock)
    games.resign(resigned, owner)
    won = unlocked(lambda: games.new_game(owner, practice))
    play(won, ["D"], clock)
    won.status = won.Status.WON  # as a win leaves it; a whole winning line is not the point here
    won.save(update_fields=["status"])
    in_progress = unlocked(lambda: games.new_game(owner, practice))
    play(in_progress, ["D", "D"], clock)  # being played: not counted until it ends
    unlocked(lambda: games.new_game(owner))  # never started: not counted
    games.resign(unlocked(lambda: games.new_game(owner)), owner)  # no action: not counted

    body = api.get("/api/players/owner/").json()

    assert body["practice"] == {"played": 2, "won": 1, "win_rate": 0.5}
    assert body["stats"]["played"] == 1

    games.resign(in_progress, owner)
    assert api.get("/api/players/owner/").json()["practice"] == {
        "played": 3,
        "won": 1,
        "win_rate": 0.3333,
    }


@pytest.mark.parametrize("days", [1, 60])
def test_its_page_costs_at_most_eleven_queries_whatever_the_days_played(
    api, owner, clock, days, django_assert_max_num_queries
):
    """Past days' ranks are read with their attempts (final ranks, written when each day was
    settled); today's is ranked once on today's board, for the history and the stats alike. The
    rating is one more (the ratings app's answer)."""
    rival = User.objects.create_user("rival")
    past = [clock.now.date() - dt.timedelta(days=k) for k in range(1, days)]
    start = clock.now - dt.timedelta(days=days)
    Game.objects.bulk_create(
        Game(
            owner=user,
            code="CF1-D3-AAAAACL",
            kind="daily",
            daily_date=day,
            status="resigned",
            ply=4,
            foundation_cards=1 if user == owner else 3,
            started_at=start,
            finished_at=start + dt.timedelta(seconds=30),
        )
        for day in past
        for user in (owner, rival)
    )
    assert standings.settle_due(clock.now) == sorted(past)
    attempt(owner, ["D"], clock)
    attempt(rival, OPENING, clock)

    with django_assert_max_num_queries(11):
        body = api.get("/api/players/owner/").json()

    assert body["stats"] == {
        "played": days,
        "won": 0,
        "win_rate": 0.0,
        "best_rank": 2,
        "most_cards": 1,
        "current_streak": days,
        "longest_streak": days,
    }
    assert body["count"] == days
    assert [row["rank"] for row in body["history"]] == [2] * min(days, 30)
