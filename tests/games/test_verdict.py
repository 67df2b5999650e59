"""GET /api/games/<id>/verdict/ — whether a practice game can still be won, which the game page asks
unasked after a move, and the game payload's ``verdict``: the solver's kept answer for the
position.

A verdict is a hint without its move: the same search in the solver pool, the same steps kept, so
that either answers the other's position with a lookup; its searches count against a limit of
their own (``THROTTLE_VERDICTS``), never against the hints'."""

from __future__ import annotations

import random
import re

import pytest

from games import pool, services
from games.engine import Action, Canfield, DealCode
from games.models import HintStep
from tests.engine.test_solver import LOST_CODE, LOST_LINE
from tests.games.helpers import (
    CODE,
    act,
    not_authenticated,
    not_found,
    play_tokens,
    solver_pool,
)
from tests.games.test_hidden_cards import assert_hides

#: A deal whose first win takes the solver some 800,000 positions: in 0.1 s it cannot tell.
HARD = "CF1-D3-OMQHOSD"
WON = {"outcome": "win", "proved": True, "undo": None}


@pytest.fixture(autouse=True)
def quick_searches(settings):
    settings.HINT_SECONDS = 0.5  # a win of CODE is found at once; the rest shortens it


def verdict(client, game):
    return client.get(f"/api/games/{game.pk}/verdict/")


def hint(client, game):
    return client.get(f"/api/games/{game.pk}/hint/")


def searches() -> int:
    """Tasks handed to this process's solver pool so far."""
    return pool.stats()["submitted"]


def unchanged(game):
    """The game's stored counters, log and views: what a verdict must never change."""
    game.refresh_from_db()
    return (game.ply, game.status, game.views, list(game.log.values_list("token", flat=True)))


def test_it_says_whether_the_game_can_still_be_won_and_gives_no_move(owner_api, game):
    before = unchanged(game)

    response = verdict(owner_api, game)

    assert response.status_code == 200
    assert response.json() == WON
    assert unchanged(game) == before


def test_a_lost_position_gets_its_way_back(owner_api, owner, settings):
    settings.HINT_SECONDS = 2  # (each position on the way back is decided in a few dozen)
    game = services.new_game(owner, code=LOST_CODE)
    play_tokens(game, LOST_LINE)

    body = verdict(owner_api, game).json()

    expected = {
        "outcome": "no_win",
        "proved": True,
        "undo": {"actions": 3, "ply": len(LOST_LINE) + 3},
    }
    assert body == expected
    assert owner_api.get(f"/api/games/{game.pk}/").json()["verdict"] == expected


def test_an_undecided_position_is_unproved_and_its_best_move_kept_for_a_hint(
    owner_api, owner, settings
):
    settings.HINT_SECONDS = 0.1
    game = services.new_game(owner, code=HARD)
    before = searches()

    body = verdict(owner_api, game).json()
    asked = hint(owner_api, game).json()

    assert body == {"outcome": "unknown", "proved": False, "undo": None}
    assert (asked["outcome"], asked["proved"]) == ("unknown", False)
    assert Action.parse(asked["action"]) in Canfield(HARD).legal_moves
    assert searches() == before + 1  # the hint was a lookup of what the verdict found


def test_it_is_a_lookup_after_a_hint(owner_api, game):
    hint(owner_api, game)
    before = (searches(), HintStep.objects.filter(game=game).count())

    response = verdict(owner_api, game)

    assert response.json() == WON
    assert (searches(), HintStep.objects.filter(game=game).count()) == before


def test_a_hint_after_it_is_a_lookup(owner_api, game):
    verdict(owner_api, game)
    before = searches()

    body = hint(owner_api, game).json()

    assert (body["outcome"], body["proved"]) == ("win", True)
    assert Action.parse(body["action"]) in Canfield(CODE).legal_moves
    assert searches() == before


def test_its_searches_have_their_own_limit(owner_api, owner, throttle_rates):
    throttle_rates(verdicts="1/min", hints="1/min")
    first, second, third = (services.new_game(owner, code=code) for code in (CODE, HARD, CODE))
    services.play(third.pk, owner, 0, "D")  # (another position: one solved is never searched)

    assert verdict(owner_api, first).status_code == 200  # a search: the one a minute
    assert verdict(owner_api, first).status_code == 200  # a lookup: not counted
    before = searches()
    refused = verdict(owner_api, second)
    assert searches() == before  # refused before it searched
    hinted = hint(owner_api, second)  # the hints' limit is untouched
    hinted_again = hint(owner_api, third)

    assert refused.status_code == 429
    assert refused.json()["code"] == "throttled"
    assert re.fullmatch(
        r"Too many checks of whether the game can still be won\. Expected available in \d+ "
        r"seconds\.",
        refused.json()["message"],
    )
    assert hinted.status_code == 200
    assert hinted_again.status_code == 429  # the hints' own one a minute
    assert re.fullmatch(r"Too many hints\. .*", hinted_again.json()["message"])


def test_a_search_that_cannot_start_answers_busy_at_once_and_is_not_counted(
    owner_api, game, throttle_rates
):
    throttle_rates(verdicts="1/min")

    with solver_pool(budget=60):
        response = verdict(owner_api, game)

    assert response.status_code == 503
    assert response.json() == {
        "code": "busy",
        "message": "The server is busy with other searches. Please try again in a moment.",
        "retry_after": 60,
    }
    assert not HintStep.objects.filter(game=game).exists()
    assert verdict(owner_api, game).json() == WON  # the refusal was not counted


def test_it_refuses_a_daily_attempt_in_progress(owner_api, daily_game):
    play_tokens(daily_game, ["D"])
    before = (unchanged(daily_game), searches())

    response = verdict(owner_api, daily_game)

    assert response.status_code == 403
    assert response.json() == {
        "code": "hints_not_allowed",
        "message": "No hints for a ranked daily attempt: a hint knows hidden cards.",
    }
    assert (unchanged(daily_game), searches()) == before


def test_it_refuses_a_finished_game(owner_api, game):
    services.resign(game, game.owner)

    response = verdict(owner_api, game)

    assert (response.status_code, response.json()["code"]) == (409, "game_over")


def test_it_hides_another_players_game(other_api, game):
    response = verdict(other_api, game)

    assert (response.status_code, response.json()) == (404, not_found())


def test_it_refuses_anonymous(api, game):
    response = verdict(api, game)

    assert (response.status_code, response.json()) == (401, not_authenticated())


def test_it_answers_a_game_that_does_not_exist(owner_api):
    assert owner_api.get("/api/games/987654/verdict/").status_code == 404


# -- the game payload's verdict --------------------------------------------------------------------


def test_a_practice_game_shows_the_kept_answer_for_its_position(owner_api, game):
    def shown():
        detail = owner_api.get(f"/api/games/{game.pk}/").json()["verdict"]
        listed = owner_api.get("/api/games/").json()["results"][0]["verdict"]
        assert listed == detail
        return detail

    assert shown() is None  # nothing asked yet
    first = hint(owner_api, game).json()
    assert shown() == WON
    played = act(owner_api, game.pk, 0, action=first["action"]).json()
    assert played["verdict"] == WON  # the next position of the line: kept too
    on_line = hint(owner_api, game).json()["action"]  # (a lookup)
    off_line = next(
        a.token()
        for a in Canfield.replay(CODE, [first["action"]]).legal_moves
        if a.token() not in (on_line, "U")
    )
    assert act(owner_api, game.pk, 1, action=off_line).json()["verdict"] is None  # not asked
    services.resign(game, game.owner)
    assert shown() is None  # a finished game: never looked up


def test_a_daily_attempt_never_shows_one(owner_api, daily_game):
    engine = Canfield(daily_game.code)
    # Whatever is kept for its position, a daily attempt's payload never looks it up.
    HintStep.objects.create(
        game=daily_game, digest=engine.position_digest(), outcome="no_win", action=""
    )

    assert owner_api.get(f"/api/games/{daily_game.pk}/").json()["verdict"] is None
    assert owner_api.get("/api/games/").json()["results"][0]["verdict"] is None
    assert act(owner_api, daily_game.pk, 0, action="D").json()["verdict"] is None


# -- fair play -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_hints_and_verdicts_never_show_a_hidden_card(owner_api, settings, seed):
    """A hint's or a verdict's answer is a move and an outcome, never a card: random practice
    games, played by random legal actions, asked at two positions each; every body is searched
    for every card hidden at that moment."""
    settings.HINT_SECONDS = 0.2  # (often undecided: the best move's answer is scanned too)
    rng = random.Random(seed)
    code = str(DealCode(rng.randrange(26**7), rng.choice([1, 3]), rng.choice(["app", "classic"])))
    game = owner_api.post("/api/games/", {"code": code}, format="json").json()
    tokens: list[str] = []

    for _ in range(2):
        for _ in range(10):
            legal = [t for t in game["state"]["legal"] if t != "U"]
            game = act(owner_api, game["id"], len(tokens), action=rng.choice(legal)).json()
            tokens.append(game["applied"])
        for path in ("hint/", "verdict/", ""):
            response = owner_api.get(f"/api/games/{game['id']}/{path}")
            assert response.status_code == 200, response.json()
            assert_hides(response.content, code, tokens)
