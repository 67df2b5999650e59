"""No answer about a game in progress shows a hidden card: the stock, or the reserve below its
top. Many random games are played through the API, with random taps and random legal actions, and
every response body is searched for every card hidden at that moment (from the engine)."""

import json
import random
import re
from typing import Any

import pytest
from django.contrib.auth.models import User

from games import services
from games.engine import DealCode
from games.models import DealtDeck, Game
from tests.conftest import token_client
from tests.engine.helpers import FRIENDLY, OPENING, UNFRIENDLY, built_deal, hidden_cards
from tests.games.helpers import act, engine_after, utc_today

TAP_PILES = ["S", "R", "W", "F1", "F2", "F3", "F4", "T1", "T2", "T3", "T4"]


def shown(text: str, card: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9]){card}(?![A-Za-z0-9])", text) is not None


def assert_hides(body: bytes | str, code: str, tokens: list[str]) -> None:
    """``body`` shows none of the cards hidden after ``tokens``."""
    text = body.decode() if isinstance(body, bytes) else body
    hidden = hidden_cards(engine_after(code, tokens))
    assert hidden, "a position with nothing hidden proves nothing"
    leaked = sorted(card for card in hidden if shown(text, card))
    assert leaked == [], f"hidden cards {leaked} in {text}"


def random_request(rng: random.Random, state: dict[str, Any]) -> dict[str, Any]:
    if rng.random() < 0.5 and state["legal"]:
        return {"action": rng.choice(state["legal"])}
    pile = rng.choice(TAP_PILES)
    tap = {"tap": pile, "double_click": rng.random() < 0.7}
    if pile.startswith("T"):
        column = state["columns"][int(pile[1]) - 1]
        if column and rng.random() < 0.5:
            tap["index"] = rng.randrange(len(column))
    return tap


@pytest.mark.parametrize("seed", range(30))
def test_it_never_shows_a_hidden_card(owner_api, owner, seed):
    rng = random.Random(seed)
    code = str(DealCode(rng.randrange(26**7), rng.choice([1, 3]), rng.choice(["app", "classic"])))
    body = owner_api.post("/api/games/", {"code": code}, format="json")
    game = body.json()
    tokens: list[str] = []
    assert_hides(body.content, code, tokens)

    for _ in range(60):
        response = act(owner_api, game["id"], len(tokens), **random_request(rng, game["state"]))
        assert response.status_code == 200, response.json()
        game = response.json()
        if game["applied"]:
            tokens.append(game["applied"])
        assert game["status"] == "in_progress"
        assert game["full_state"] is None
        assert_hides(response.content, code, tokens)

    for url in (f"{game['id']}/", f"{game['id']}/record/", f"{game['id']}/analysis/", ""):
        assert_hides(owner_api.get(f"/api/games/{url}").content, code, tokens)
    # The replay's views: each one hides what was hidden at its own ply (a card seen once may be
    # hidden again later, by an undo or a recycle, and the views of the past show it).
    record = owner_api.get(f"/api/games/{game['id']}/record/?states=1").json()
    for ply, state in enumerate(record.pop("states")):
        assert_hides(json.dumps(state), code, tokens[:ply])
    assert_hides(json.dumps(record), code, tokens)

    # Finish: refused unless the game can finish by itself (then nothing is hidden any more).
    response = owner_api.post(f"/api/games/{game['id']}/finish/", {"ply": len(tokens)})
    if response.status_code == 200:
        assert response.json()["status"] == "won"
    else:
        assert response.json()["code"] == "not_finishable"
        assert_hides(response.content, code, tokens)


def test_it_never_shows_the_code_of_todays_daily_deal(owner_api, owner):
    code = "CF1-D3-QWERTYU"
    daily = services.new_game(owner, code=code, kind="daily", daily_date=utc_today())
    bodies = [owner_api.get(f"/api/games/{daily.pk}/").content]
    for ply, token in enumerate(["D", "D", "U"]):
        bodies.append(act(owner_api, daily.pk, ply, action=token).content)
    bodies += [
        owner_api.post(f"/api/games/{daily.pk}/finish/", {"ply": 3}).content,  # (refused)
        owner_api.get("/api/games/").content,
        owner_api.get(f"/api/games/{daily.pk}/record/?states=1").content,
        owner_api.post(f"/api/games/{daily.pk}/resign/").content,
        owner_api.get(f"/api/games/{daily.pk}/").content,
        owner_api.get(f"/api/games/{daily.pk}/analysis/").content,  # (404 until the day is over)
    ]

    assert [b"QWERTYU" in body for body in bodies] == [False] * len(bodies)


def test_it_shows_the_code_of_a_random_practice_game(owner_api):
    created = owner_api.post("/api/games/", {}).json()

    game = Game.objects.get(pk=created["id"])
    assert created["code"] == str(game.deal_code)  # the real code, not hidden
    assert DealCode.parse(created["code"]) == game.deal_code
    assert owner_api.get(f"/api/games/{created['id']}/").json()["code"] == created["code"]


def test_it_never_serves_todays_solution_or_its_code(api, owner_api, owner):
    """Today's deal, dealt for real (certified by the solver and stored), is not served anywhere
    before the day is over: not its solution, nor its code, nor its line."""
    from leaderboard import deals

    today = utc_today()
    row = deals.deal_of(today)
    daily = services.new_game(owner, code=row.code, kind="daily", daily_date=today)
    rank_text = row.code.split("-")[2]
    opening = " ".join(list(row.line or [])[:3])
    assert opening
    bodies = [
        api.get(f"/api/daily/{today}/solution/"),
        owner_api.get(f"/api/daily/{today}/solution/?states=1"),
        owner_api.get(f"/api/daily/{today}/board/"),
        owner_api.get("/api/daily/"),
        owner_api.get("/api/daily/days/"),
        owner_api.get(f"/api/games/{daily.pk}/record/?states=1"),
        owner_api.get(f"/api/games/{daily.pk}/analysis/"),
    ]

    assert [b.status_code for b in bodies] == [404, 404, 200, 200, 200, 200, 404]
    for body in bodies:
        text = body.content.decode()
        assert rank_text not in text
        assert opening not in text  # the solver's line does not show
    assert owner_api.get(f"/api/daily/{today}/board/").json()["par"] is None


def test_a_daily_attempts_answers_about_what_is_ahead_know_no_hidden_card(
    owner_api, other_api, owner, other
):
    """``finishable`` and ``stuck`` are answers about hidden cards. Two of today's attempts at
    deals that differ only in the stock's order get the same state, answers included, at every
    position of the same play; practice games of the same deals (which may use the hidden
    cards) get different answers."""
    friendly, unfriendly = built_deal(FRIENDLY, 3), built_deal(UNFRIENDLY, 3)
    states = []
    for client, user, code in ((owner_api, owner, friendly), (other_api, other, unfriendly)):
        game = services.new_game(user, code=code, kind="daily", daily_date=utc_today())
        states.append(
            [act(client, game.pk, ply, action=t).json()["state"] for ply, t in enumerate(OPENING)]
        )
    assert states[0] == states[1]
    assert states[0][-1]["finishable"] is False

    practice = []
    for code in (friendly, unfriendly):
        # (decks built for the test: recorded as the server's own, as a random deal's would be)
        DealtDeck.objects.create(fingerprint=DealtDeck.fingerprint_of(DealCode.parse(code).deck()))
        game = owner_api.post("/api/games/", {"code": code}, format="json").json()
        for ply, token in enumerate(OPENING):
            state = act(owner_api, game["id"], ply, action=token).json()["state"]
        practice.append(state["finishable"])
    assert practice == [True, False]

    # Drawing three, no card of this deal can ever move: stuck for good is answered from what
    # the player sees in every game kind, so a practice game and a daily attempt alike say so
    # once the player has seen the whole stock go by.
    dead = "CF1-D3-LQTCNKR"
    opened = owner_api.post("/api/games/", {"code": dead}, format="json").json()
    assert opened["state"]["stuck"] is False
    for ply in range(12):
        state = act(owner_api, opened["id"], ply, action="D").json()["state"]
        assert state["stuck"] is (ply == 11)
    player = User.objects.create_user("third")
    client = token_client(player)
    daily = services.new_game(player, code=dead, kind="daily", daily_date=utc_today())
    assert client.get(f"/api/games/{daily.pk}/").json()["state"]["stuck"] is False
    for ply in range(12):  # 34 cards, three at a time
        state = act(client, daily.pk, ply, action="D").json()["state"]
        assert state["stuck"] is (ply == 11)


def test_a_daily_attempts_finish_shows_no_hidden_card_nor_its_code(owner_api, owner):
    """Finish, asked of today's attempts: refused while hidden cards would decide (two in the
    reserve drawing one; an unseen stock drawing three), with no hidden card in the answer; and
    once finished, the won game's answer without the day's code."""
    for draw, plies in ((1, 11), (3, len(OPENING))):
        code = built_deal(FRIENDLY, draw)
        player = User.objects.create_user(f"finisher{draw}")
        client = token_client(player)
        daily = services.new_game(player, code=code, kind="daily", daily_date=utc_today())
        for ply, token in enumerate(OPENING[:plies]):
            act(client, daily.pk, ply, action=token)
        for ply in (plies, plies - 1):  # not finishable; stale
            response = client.post(f"/api/games/{daily.pk}/finish/", {"ply": ply})
            assert response.status_code == 409, response.json()
            assert_hides(response.content, code, OPENING[:plies])

    code = built_deal(FRIENDLY, 1)
    daily = services.new_game(owner, code=code, kind="daily", daily_date=utc_today())
    for ply, token in enumerate(OPENING[:12]):
        act(owner_api, daily.pk, ply, action=token)
    response = owner_api.post(f"/api/games/{daily.pk}/finish/", {"ply": 12})
    assert response.json()["status"] == "won"
    assert code.split("-")[2] not in response.content.decode()
    assert response.json()["code"] is None and response.json()["full_state"] is None
