"""GET /api/games/<id>/hint/ — the next action of a winning line, for practice games only; the
best move found when the solver cannot tell; and for a lost position, how many undos lead back to
the last position that can still be won.

A search runs in the solver pool (``games.pool``), and the winning line it found answers every
later hint along it without another search; only searches count against the hint limit."""

from __future__ import annotations

import re

import pytest

from games import pool, services
from games.engine import UNDO, Action, Canfield
from games.engine.solver import solve
from games.models import Game, HintStep
from tests.engine.test_solver import LOST_CODE, LOST_LINE
from tests.games.helpers import (
    CODE,
    WORKED_EXAMPLE,
    act,
    not_authenticated,
    not_found,
    play_tokens,
    solver_pool,
)

#: A deal the solver proves lost at once (about 12,000 positions).
LOST = "CF1-D3-QJQSXIA"
#: A deal whose first win takes the solver some 800,000 positions: in 0.1 s it cannot tell.
HARD = "CF1-D3-OMQHOSD"


@pytest.fixture(autouse=True)
def quick_hints(settings):
    settings.HINT_SECONDS = 0.5  # a win of these deals is found at once; the rest shortens it


def hint(client, game):
    return client.get(f"/api/games/{game.pk}/hint/")


def searches() -> int:
    """Tasks handed to this process's solver pool so far."""
    return pool.stats()["submitted"]


def unchanged(game):
    """The game's stored counters, log and views: what a hint must never change."""
    game.refresh_from_db()
    return (game.ply, game.status, game.views, list(game.log.values_list("token", flat=True)))


def test_it_gives_the_next_action_of_a_winning_line(owner_api, game):
    play_tokens(game, WORKED_EXAMPLE)
    before = unchanged(game)

    response = hint(owner_api, game)

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"outcome", "action", "remaining", "proved", "undo"}
    assert (body["outcome"], body["proved"], body["undo"]) == ("win", True, None)
    assert body["remaining"] >= 52 - 2  # every card still off the foundations needs a move
    engine = Canfield.replay(CODE, WORKED_EXAMPLE)
    assert Action.parse(body["action"]) in engine.legal_moves
    assert unchanged(game) == before  # a hint never changes the game


def test_following_the_hints_wins_the_game_with_one_search_and_no_refusal(
    owner_api, game, throttle_rates
):
    throttle_rates(hints="1/min", actions=None)  # one search a minute: following costs none
    before = searches()
    remaining = None
    for ply in range(400):
        response = hint(owner_api, game)
        assert response.status_code == 200, response.json()
        body = response.json()
        assert body["outcome"] == "win"
        if remaining is not None:
            assert body["remaining"] == remaining - 1  # the same line, one action on
        remaining = body["remaining"]
        played = act(owner_api, game.pk, ply, action=body["action"])
        assert played.status_code == 200, played.json()
        if played.json()["status"] == "won":
            break
    game.refresh_from_db()
    assert game.status == "won"
    assert remaining == 1
    assert searches() - before == 1


def test_the_search_runs_in_the_solver_pool_not_in_the_web_process(owner_api, game, monkeypatch):
    def no_search_here(*args, **kwargs):
        raise AssertionError("a search ran in the web process")

    monkeypatch.setattr("games.engine.solver.solve", no_search_here)
    monkeypatch.setattr("games.pool_jobs.solve", no_search_here)  # (this process's copy of it)
    before = pool.stats()

    response = hint(owner_api, game)

    assert response.json()["outcome"] == "win"
    after = pool.stats()
    assert after["submitted"] == before["submitted"] + 1
    assert after["workers"] == 1


def test_a_position_off_the_line_costs_a_new_search(owner_api, game):
    first = hint(owner_api, game).json()
    engine = Canfield(CODE)
    other = next(a for a in engine.legal_moves if a.token() != first["action"])
    before = searches()

    act(owner_api, game.pk, 0, action=other.token())
    again = hint(owner_api, game)

    assert again.status_code == 200
    assert searches() == before + 1
    assert Action.parse(again.json()["action"]) in Canfield.replay(CODE, [other]).legal_moves


def test_a_search_that_cannot_start_answers_busy_at_once_and_keeps_nothing(owner_api, game):
    with solver_pool(workers=1, queue=4, budget=60) as holders:  # its worker due in a minute
        before = searches()
        response = hint(owner_api, game)

        assert not holders[0].done()  # answered while the worker was still held
        assert searches() == before  # refused before it was handed to the pool
        assert pool.stats()["waiting"] == 0  # (not waiting in a queue)
    assert response.status_code == 503
    assert response.json() == {
        "code": "busy",
        "message": "The server is busy with other searches. Please try again in a moment.",
        "retry_after": 60,  # when the worker is due: refused as it came, not after a wait
    }
    assert response["Retry-After"] == "60"
    assert not HintStep.objects.filter(game=game).exists()
    assert hint(owner_api, game).json()["outcome"] == "win"  # room again: it searches


def test_a_search_waits_for_a_worker_due_to_be_free_soon(owner_api, game, settings):
    settings.SOLVER_WAIT = 5
    # A task of half a second holds the worker, and says so.
    with solver_pool(workers=1, queue=1, budget=0.5, hold=0.5) as holders:
        response = hint(owner_api, game)

        assert holders[0].done()  # it waited for the worker, then searched
    assert response.status_code == 200
    assert response.json()["outcome"] == "win"


def test_a_search_refused_busy_is_not_counted(owner_api, owner, throttle_rates):
    throttle_rates(hints="2/min")
    games = [services.new_game(owner, code=CODE) for _ in range(5)]
    for draws, game in enumerate(games):  # five positions to search (a position is solved once)
        for ply in range(draws):
            services.play(game.pk, owner, ply, "D")

    with solver_pool(budget=60):
        refused = [hint(owner_api, game).status_code for game in games]
    searched = [hint(owner_api, game).status_code for game in games[:3]]

    assert refused == [503] * 5  # none of them counted: never 429
    assert searched == [200, 200, 429]  # the two searches that ran are what the limit counts


def test_it_says_when_no_win_exists(owner_api, owner, settings):
    settings.HINT_SECONDS = 3  # (room on a busy machine: the proof ends the search)
    game = services.new_game(owner, code=LOST)

    assert hint(owner_api, game).json() == {
        "outcome": "no_win",
        "action": None,
        "remaining": None,
        "proved": True,
        "undo": None,  # nothing to undo at the deal
    }


def test_when_it_cannot_tell_in_time_it_gives_its_best_move_unproved(owner_api, owner, settings):
    settings.HINT_SECONDS = 0.1
    game = services.new_game(owner, code=HARD)
    before = searches()

    body = hint(owner_api, game).json()

    assert body == {
        "outcome": "unknown",
        "action": body["action"],
        "remaining": None,
        "proved": False,
        "undo": None,
    }
    assert Action.parse(body["action"]) in Canfield(HARD).legal_moves
    # Kept as what it is, not as a winning line: asked again, the same answer, no new search.
    kept = list(HintStep.objects.filter(game=game).values_list("outcome", "action", "remaining"))
    assert kept == [("unknown", body["action"], None)]
    assert hint(owner_api, game).json() == body
    assert searches() == before + 1


def test_a_proved_answer_replaces_a_kept_unknown_one(owner_api, game):
    """Positions kept undecided (as by searches that had no time) are answered by the line of a
    later search through them."""
    deal = Canfield(CODE)
    for action in deal.legal_moves:  # every position one action from the deal: unknown
        after = Canfield.replay(CODE, [action])
        HintStep.objects.create(
            game=game, digest=after.position_digest(), outcome="unknown", action="D"
        )

    first = hint(owner_api, game).json()  # from the deal: a line through one of them
    act(owner_api, game.pk, 0, action=first["action"])
    after = Canfield.replay(CODE, [first["action"]])

    step = HintStep.objects.get(game=game, digest=after.position_digest())
    assert (step.outcome, step.remaining) == ("win", first["remaining"] - 1)
    assert hint(owner_api, game).json()["proved"] is True


def lost_game(owner):
    """The owner's practice game of LOST_CODE played into its proved-lost position."""
    game = services.new_game(owner, code=LOST_CODE)
    play_tokens(game, LOST_LINE)
    return game


def test_a_lost_position_says_how_many_undos_lead_back_to_a_win(owner_api, owner, settings):
    settings.HINT_SECONDS = 2  # (each position on the way back is decided in a few dozen)
    game = lost_game(owner)
    before = searches()

    body = hint(owner_api, game).json()

    assert body == {
        "outcome": "no_win",
        "action": None,
        "remaining": None,
        "proved": True,
        "undo": {"actions": 3, "ply": len(LOST_LINE) + 3},
    }
    assert searches() == before + 1  # the walk back is part of the same search
    # The solver, asked directly about each position undo reaches: the two between are lost, and
    # the third back can be won.
    engine = Canfield.replay(LOST_CODE, LOST_LINE)
    outcomes = []
    for _ in range(3):
        engine.push(UNDO)
        outcomes.append(solve(engine, max_positions=20_000, shorten=False).outcome)
    assert outcomes == ["no_win", "no_win", "win"]
    assert hint(owner_api, game).json() == body  # kept: a lookup
    assert searches() == before + 1


def test_what_the_walk_back_learned_answers_on_the_way_back(owner_api, owner, settings):
    settings.HINT_SECONDS = 2
    game = lost_game(owner)
    hint(owner_api, game)
    before = searches()
    ply = len(LOST_LINE)
    target = ply + 3  # the ply once the three undos are played

    verdicts = []
    for _ in range(3):
        played = act(owner_api, game.pk, ply, action="U").json()
        ply += 1
        verdicts.append(played["verdict"])
    back = hint(owner_api, game).json()

    assert verdicts == [
        {"outcome": "no_win", "proved": True, "undo": {"actions": 2, "ply": target}},
        {"outcome": "no_win", "proved": True, "undo": {"actions": 1, "ply": target}},
        {"outcome": "win", "proved": True, "undo": None},
    ]
    assert (back["outcome"], back["proved"]) == ("win", True)
    assert Action.parse(back["action"]) in Canfield.replay(LOST_CODE, LOST_LINE[:-3]).legal_moves
    assert searches() == before  # every answer a lookup


def test_a_lost_position_reached_with_another_past_is_walked_back_again(owner_api, owner, settings):
    """The same lost position, reached without one T3-F3 F3-T3 pair of the line: it is lost
    still, but the positions behind it are others, so the kept way back does not hold."""
    settings.HINT_SECONDS = 2
    game = lost_game(owner)
    hint(owner_api, game)
    shorter = [*LOST_LINE[:16], *LOST_LINE[18:]]
    play_tokens(game, ["U"] * (len(LOST_LINE) - 16) + shorter[16:])
    assert Canfield.replay(LOST_CODE, shorter).position_digest() == (
        Canfield.replay(LOST_CODE, LOST_LINE).position_digest()
    )
    before = searches()

    assert owner_api.get(f"/api/games/{game.pk}/").json()["verdict"] is None
    body = hint(owner_api, game).json()

    assert body["undo"] == {"actions": 3, "ply": game.ply + 3}
    assert searches() == before + 1
    step = HintStep.objects.get(
        game=game, digest=Canfield.replay(LOST_CODE, shorter).position_digest()
    )
    assert (step.outcome, step.undo_actions) == ("no_win", 3)
    assert owner_api.get(f"/api/games/{game.pk}/").json()["verdict"] == {
        "outcome": "no_win",
        "proved": True,
        "undo": {"actions": 3, "ply": game.ply + 3},
    }


def test_it_refuses_a_daily_attempt_in_progress(owner_api, daily_game):
    play_tokens(daily_game, ["D"])
    before = unchanged(daily_game)

    response = hint(owner_api, daily_game)

    assert response.status_code == 403
    assert response.json() == {
        "code": "hints_not_allowed",
        "message": "No hints for a ranked daily attempt: a hint knows hidden cards.",
    }
    assert unchanged(daily_game) == before


def test_it_refuses_a_finished_game(owner_api, game):
    services.resign(game, game.owner)

    response = hint(owner_api, game)

    assert response.status_code == 409
    assert response.json()["code"] == "game_over"


def test_it_refuses_a_finished_daily_attempt_as_over(owner_api, daily_game):
    services.resign(daily_game, daily_game.owner)

    response = hint(owner_api, daily_game)

    assert (response.status_code, response.json()["code"]) == (409, "game_over")


def test_it_hides_another_players_game(other_api, game):
    response = hint(other_api, game)

    assert (response.status_code, response.json()) == (404, not_found())


def test_it_refuses_anonymous(api, game):
    response = hint(api, game)

    assert (response.status_code, response.json()) == (401, not_authenticated())


def test_it_answers_a_game_that_does_not_exist(owner_api):
    assert owner_api.get("/api/games/987654/hint/").status_code == 404


def test_its_searches_are_rate_limited(owner_api, game, throttle_rates):
    throttle_rates(hints="1/min")
    first = hint(owner_api, game).json()
    assert hint(owner_api, game).status_code == 200  # the same position: a lookup, not counted
    other = next(a for a in Canfield(CODE).legal_moves if a.token() != first["action"])
    act(owner_api, game.pk, 0, action=other.token())
    before = searches()

    response = hint(owner_api, game)  # off the line: a search, over the limit

    assert response.status_code == 429
    assert response.json()["code"] == "throttled"
    assert re.fullmatch(
        r"Too many hints\. Expected available in \d+ seconds\.", response.json()["message"]
    )
    assert searches() == before  # refused before it searched
    assert Game.objects.get(pk=game.pk).ply == 1
