"""The game payload's ``safe_home``: the move of the card safe to send to its foundation
(``games.engine.auto``), which the page's "cards home by themselves" setting plays as an ordinary
action — and only that card: not one its foundation takes but that a play may still need, and
none for a finished game. The same in a daily attempt (it reads only what the player sees)."""

from __future__ import annotations

from games import services
from games.engine import Canfield
from games.engine.auto import safe_home
from games.models import Game
from tests.engine.test_auto_home import WON
from tests.games.helpers import CODE, act, play_tokens, utc_today

#: After these actions the waste's top is the 8 of clubs, and both red 7s are home: safe.
TO_SAFE = WON[:59]


def test_the_payload_names_the_safe_card_and_only_it(owner_api, game: Game) -> None:
    play_tokens(game, WON[:1])
    # The 8 of hearts can go home (R-F1) but a black 7 may still need it: none named.
    first = owner_api.get(f"/api/games/{game.pk}/").json()
    assert "R-F1" in first["state"]["legal"]
    assert first["safe_home"] is None

    play_tokens(game, WON[1:58])
    answer = act(owner_api, game.pk, game.ply, action=WON[58])
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert body["state"]["waste"]["cards"][-1] == "8C"
    assert body["safe_home"] == "W-F4"
    assert owner_api.get(f"/api/games/{game.pk}/").json()["safe_home"] == "W-F4"

    # Played as an ordinary logged action; then the 9 of clubs, which may be needed: none.
    moved = act(owner_api, game.pk, game.ply + 1, action="W-F4").json()
    assert moved["applied"] == "W-F4"
    assert "W-F4" in moved["state"]["legal"]
    assert moved["safe_home"] is None
    record = owner_api.get(f"/api/games/{game.pk}/record/").json()
    assert [m["token"] for m in record["moves"]][-1] == "W-F4"


def test_a_finished_game_names_none(owner_api, game: Game) -> None:
    play_tokens(game, TO_SAFE)
    assert owner_api.get(f"/api/games/{game.pk}/").json()["safe_home"] == "W-F4"
    resigned = owner_api.post(f"/api/games/{game.pk}/resign/").json()
    assert resigned["status"] == "resigned"
    assert resigned["safe_home"] is None


def test_a_daily_attempt_names_it_as_a_practice_game_does(owner, owner_api) -> None:
    """The rule reads only the player's view: a daily attempt at any deal gets the same answer
    as the engine gives from that view."""
    daily = services.new_game(owner, code=CODE, kind="daily", daily_date=utc_today())
    play_tokens(daily, TO_SAFE)
    body = owner_api.get(f"/api/games/{daily.pk}/").json()
    assert body["code"] is None  # (the day is not over)
    assert body["safe_home"] == "W-F4"
    assert safe_home(Canfield.replay(CODE, TO_SAFE).player_view()) == "W-F4"
