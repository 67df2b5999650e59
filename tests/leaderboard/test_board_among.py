"""leaderboard.services.board_among — a day's board among some players (the Following view's, a
group's): their attempts in the whole board's order, ranked among them and on the whole board."""

from leaderboard import services
from tests.leaderboard.helpers import OPENING, WON, attempt, expected_row, player


def test_it_ranks_some_players_among_themselves_and_on_the_whole_board(db, clock):
    few = attempt(player("few"), ["D"], clock)  # 1 card: third on the board
    more = attempt(player("more"), OPENING, clock)  # 2 cards: second
    won = attempt(player("won"), WON, clock, step=0.1)  # first
    player("idle")  # no attempt: not on it

    among = services.board_among(won.daily_date, [few.owner_id, won.owner_id], viewer=few.owner)

    rows = [(r["rank"], r["board_rank"], r["player"]) for r in among["results"]]
    assert rows == [(1, 1, "won"), (2, 3, "few")]
    assert (among["count"], among["page"], among["pages"]) == (2, 1, 1)
    assert among["me"] == among["results"][1]
    assert {k: v for k, v in among["results"][1].items() if k != "board_rank"} == {
        **expected_row(few, 2, among["results"][1]["time_seconds"])
    }
    assert more.pk not in {r["game_id"] for r in among["results"]}


def test_nobody_followed_and_nobody_played_is_an_empty_board(db, clock):
    ann = player("ann")
    attempt(player("bob"), ["D"], clock)
    among = services.board_among(clock.now.date(), [ann.pk], viewer=ann)
    assert (among["count"], among["results"], among["me"]) == (0, [], None)
