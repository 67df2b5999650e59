"""The scouting attack: a second account that learnt today's deck from its own attempt gets no
help from the server. It cannot start a practice game of that deck — by any code, draw or rule
set — so it gets no hint, no record and no replay of it; tomorrow's deck, dealt ahead, neither.
The server plays only decks it dealt, and it never dealt these as practice: they are refused as
any deck nobody was dealt here is, with the same answer (tests/leaderboard/test_dealt_decks.py:
the guesses, the relabelled copies). Once the days are over, their decks are anyone's
practice."""

from __future__ import annotations

import datetime as dt

import pytest

from games.engine import DealCode
from games.engine.cards import parse_card
from games.models import Game
from leaderboard import deals
from leaderboard.models import DailyDeal
from tests.conftest import token_client
from tests.leaderboard.helpers import player
from tests.support import TEST_DEAL_POSITIONS

pytestmark = pytest.mark.usefixtures("only_our_days")


@pytest.fixture
def dealt(clock, settings) -> tuple[str, str]:
    """Today and tomorrow dealt for real (keyed, certified): their codes."""
    settings.DAILY_DEAL_SECRET = "a secret for the scouting attack"
    DailyDeal.objects.all().delete()
    today = clock.now.date()
    codes = []
    for day in (today, today + dt.timedelta(days=1)):
        found = deals.certify(day, max_positions=TEST_DEAL_POSITIONS)
        codes.append(deals.store(found).code)
    return codes[0], codes[1]


def rebuild_deck(client, game_id: int, stored_code: str) -> tuple[int, ...]:
    """Today's deck, as a scout rebuilds it: what its own attempt shows (the base card, the
    columns, the reserve's top; the stock, drawn through and undone), and the reserve's hidden
    cards, which the real attack guessed and played out (here, read from the stored deal)."""
    state = client.get(f"/api/games/{game_id}/").json()["state"]
    layout = DealCode.parse(stored_code).layout()
    seen_columns = tuple((parse_card(column[0]),) for column in state["columns"])
    assert seen_columns == layout.columns
    assert parse_card(state["reserve"]["top"]) == layout.reserve[-1]
    ply = 0
    while state["stock"]["count"]:  # the whole stock seen, then every draw undone
        state = client.post(f"/api/games/{game_id}/actions/", {"ply": ply, "action": "D"})
        state = state.json()["state"]
        ply += 1
    for _ in range(ply):
        client.post(f"/api/games/{game_id}/actions/", {"ply": ply, "action": "U"})
        ply += 1
    return layout.deck()


def test_a_scout_gets_no_practice_game_of_todays_or_tomorrows_deck(dealt, clock):
    today_code, tomorrow_code = dealt
    scout = token_client(player("scout"))
    attempt = scout.post("/api/daily/").json()
    assert attempt["code"] is None
    deck = rebuild_deck(scout, attempt["id"], today_code)
    tomorrow = DealCode.parse(tomorrow_code).deck()
    helper = token_client(player("helper"))

    refused = []
    for target in (deck, tomorrow):
        for draw in (1, 3):
            for variant in ("app", "classic"):
                code = str(DealCode.from_deck(target, draw, variant))
                for body in ({"code": code}, {"code": code, "draw": 4 - draw}):
                    response = helper.post("/api/games/", body)
                    refused.append((response.status_code, response.json()["code"]))
        stored = str(DealCode.from_deck(target))
        response = helper.post("/api/games/", {"code": stored, "draw": 1, "variant": "classic"})
        refused.append((response.status_code, response.json()["code"]))

    assert set(refused) == {(400, "unknown_deal")} and len(refused) == 18
    assert not Game.objects.filter(kind="practice").exists()  # nothing was created
    by_code = helper.post("/api/games/", {"code": today_code})
    never_dealt = helper.post("/api/games/", {"code": str(DealCode.from_deck(deck[::-1]))})
    assert by_code.content == never_dealt.content  # today's deck tells itself from no other
    assert by_code.json()["message"] == (
        "This code is not a deal this server has dealt: start a random deal, a numbered deal (a "
        "CF1 code), a past day's daily deal, or the code of a game someone played here."
    )

    clock.advance(2 * 24 * 3600)  # both days over: their decks are public
    for target in (deck, tomorrow):
        response = helper.post("/api/games/", {"code": str(DealCode.from_deck(target, 1))})
        assert (response.status_code, response.json()["kind"]) == (201, "practice")
