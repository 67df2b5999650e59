"""GET /api/watch/ — the games to watch: those being played now (most recently active first), the
practice games finished today and yesterday's best daily attempts (best first, by the board's
order). Each list holds only what the asker may watch (``can_watch``), never a guest's game, and
never a card."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth.models import User
from rest_framework.test import APIClient

from core.accounts.models import PlayerSettings
from games import services
from games.engine import GameRecord
from games.models import Game
from tests.conftest import SessionClient, token_client
from tests.engine.helpers import CORPUS
from tests.leaderboard.helpers import OPENING, WON, attempt, iso, play, player

WATCH = "/api/watch/"
#: The practice games' deal (the daily deal of these tests, the worked example, is refused as
#: practice while its day lasts) and a winning line of it; after its first 26 actions two cards
#: are home (W-F4).
PRACTICE = GameRecord.parse((CORPUS / "won-d1-AAAAAAA.txt").read_text())
PRACTICE_CODE, PRACTICE_WON = str(PRACTICE.code), list(PRACTICE.tokens)
TWO_CARDS = PRACTICE_WON[:26]


def lists(client: APIClient) -> Any:
    response = client.get(WATCH)
    assert response.status_code == 200, response.json()
    return response.json()


def ids(games: list[dict[str, Any]]) -> list[int]:
    return [game["id"] for game in games]


def practice(user: User, tokens: list[str], clock: Any, step: float = 1.0) -> Game:
    return play(services.new_game(user, code=PRACTICE_CODE), tokens, clock, step)


def test_the_games_being_played_most_recently_active_first(db, clock):
    ann, bob, cat = player("ann"), player("bob"), player("cat")
    first = practice(ann, ["D"], clock)
    second = practice(bob, ["D", "D"], clock)
    idle = practice(cat, ["D"], clock)
    clock.advance(16 * 60)  # (idle for longer than the list looks back)
    play(first, ["D"], clock)
    play(second, ["D"], clock)
    over = practice(cat, ["D"], clock)
    services.resign(over.pk, cat)

    shown = lists(APIClient())["playing"]

    assert ids(shown) == [second.pk, first.pk]
    assert idle.pk not in ids(shown) and over.pk not in ids(shown)
    assert shown[0] == {
        "id": second.pk,
        "player": "bob",
        "kind": "practice",
        "daily_date": None,
        "status": "in_progress",
        "result": "in_progress",
        "foundation_cards": 1,
        "actions": 3,
        "at": iso(second.active_at),
    }


def test_private_practice_is_listed_to_its_player_alone_and_a_guest_s_to_nobody(db, clock):
    ann, bob = player("ann"), player("bob")
    PlayerSettings.objects.create(user=ann, practice_private=True)
    kept = practice(ann, ["D"], clock)
    guest = SessionClient()
    made = guest.post("/api/games/", {"code": PRACTICE_CODE}, format="json", **guest.csrf_headers())
    played = guest.post(
        f"/api/games/{made.json()['id']}/actions/",
        {"ply": 0, "action": "D"},
        format="json",
        **guest.csrf_headers(),
    )
    assert (made.status_code, played.status_code) == (201, 200)

    assert ids(lists(APIClient())["playing"]) == []
    assert ids(lists(token_client(bob))["playing"]) == []
    assert ids(lists(token_client(ann))["playing"]) == [kept.pk]
    assert ids(lists(guest)["playing"]) == []  # (not even to the guest: listed nowhere)


def test_a_daily_attempt_is_listed_once_the_asker_s_own_attempt_is_over(db, clock):
    ann, bob = player("ann"), player("bob")
    theirs = attempt(ann, ["D"], clock)
    bob_api = token_client(bob)

    assert theirs.pk not in ids(lists(APIClient())["playing"])
    assert theirs.pk not in ids(lists(bob_api)["playing"])  # (no attempt of their own)
    own = attempt(bob, ["D"], clock)
    assert theirs.pk not in ids(lists(bob_api)["playing"])  # (theirs in progress)
    services.resign(own.pk, bob)
    assert theirs.pk in ids(lists(bob_api)["playing"])
    assert theirs.pk in ids(lists(token_client(ann))["playing"])  # (their own, always)


def test_the_practice_games_finished_today_best_first_by_the_board_s_order(db, clock):
    ann, bob, cat, dan = player("ann"), player("bob"), player("cat"), player("dan")
    clock.advance(3600)
    more_actions = practice(ann, [*TWO_CARDS, "D"], clock, step=0.01)  # 2 cards, 27 actions
    services.resign(more_actions.pk, ann)
    fewer_actions = practice(bob, TWO_CARDS, clock, step=0.01)  # 2 cards, 26 actions
    services.resign(fewer_actions.pk, bob)
    won = practice(cat, PRACTICE_WON, clock, step=0.01)
    one_card = practice(dan, ["D"], clock)
    services.resign(one_card.pk, dan)
    later_same = practice(ann, TWO_CARDS, clock, step=0.01)  # as fewer_actions, finished later
    services.resign(later_same.pk, ann)
    practice(dan, ["D"], clock)  # still in progress: not finished

    finished = lists(APIClient())["practice"]

    assert ids(finished) == [won.pk, fewer_actions.pk, later_same.pk, more_actions.pk, one_card.pk]
    assert [g["result"] for g in finished] == ["won"] + ["resigned"] * 4
    assert [g["foundation_cards"] for g in finished] == [52, 2, 2, 2, 1]


def test_yesterday_s_best_daily_attempts_in_the_board_s_order(db, clock):
    players = [player(name) for name in ("ann", "bob", "cat", "dan")]
    won = attempt(players[0], WON, clock, step=0.01)
    few = attempt(players[1], ["D"], clock)
    more = attempt(players[2], OPENING, clock)
    attempt(players[3])  # no action: not on the board
    day = clock.now.date()
    clock.set(dt.datetime.combine(day + dt.timedelta(days=1), dt.time(9), tzinfo=dt.UTC))

    shown = lists(APIClient())

    assert shown["daily_date"] == day.isoformat()
    assert ids(shown["daily"]) == [won.pk, more.pk, few.pk]
    assert [g["result"] for g in shown["daily"]] == ["won", "closed", "closed"]
    assert ids(shown["playing"]) == []  # (closed with their day)
