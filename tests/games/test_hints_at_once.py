"""Hints at once: a hint's search answers with the first winning line it proves (not the
shortest), the worker tier improves the line afterwards (``games.tasks.improve_hint``), and every
hint is still a move on a proved line; a position already solved, by any game, is never searched
again."""

from __future__ import annotations

from typing import Any

import pytest
from django_tasks_db.models import DBTaskResult

from games import pool, services, tasks
from games.engine import Action, Canfield
from games.engine.solver import shorten, solve
from games.models import Game, HintStep
from tests.games.helpers import CODE

IMPROVE = "games.tasks.improve_hint"
#: A deal whose first winning line (255 actions) the shortening cuts to 139 within 2,000
#: positions: the improvement's budget here, so that what it finds does not hang on the clock.
SHORTENS = "CF1-D3-MBMGFVB"
POSITIONS = 2_000


@pytest.fixture(autouse=True)
def hint_budget(settings):
    settings.HINT_SECONDS = 2  # (a win of these deals is found at once)


@pytest.fixture
def fresh(owner):
    """The owner's practice game of :data:`SHORTENS`, nothing played yet."""
    return services.new_game(owner, code=SHORTENS)


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """A block whose commit callbacks run (the improvement is asked for once the search's steps
    are committed)."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def searches() -> int:
    """Tasks handed to this process's solver pool so far."""
    return pool.stats()["submitted"]


def follow_hints(game: Game) -> list[int]:
    """Play every hint from ``game``'s position until it is won: the line's length each hint
    said. Fails if a hint is not a win's."""
    said: list[int] = []
    while True:
        game.refresh_from_db()
        if game.status == Game.Status.WON:
            return said
        found = services.hint(game.pk, game.owner)
        assert found.outcome == "win" and found.action is not None
        said.append(found.remaining or 0)
        services.play(game.pk, game.owner, game.ply, found.action)


def improvement_asked() -> list[Any]:
    row = DBTaskResult.objects.get(task_path=IMPROVE)
    return list(row.args_kwargs["args"])


def test_the_first_hint_gives_the_first_line_proved_and_asks_for_a_better_one(fresh, committed):
    first = solve(SHORTENS, shorten=False)
    shorter = shorten(SHORTENS, first.line, max_positions=POSITIONS)
    assert len(shorter) < len(first.line)  # (a deal whose first line can be shortened)

    with committed():
        found = services.hint(fresh.pk, fresh.owner)

    assert (found.outcome, found.action) == ("win", first.line[0].token())
    assert found.remaining == len(first.line)  # the first line proved, not shortened
    game_id, code, state, line = improvement_asked()
    assert (game_id, code, line) == (fresh.pk, SHORTENS, first.tokens())
    assert isinstance(state, str)


def test_the_improved_line_is_followed_by_the_later_hints(fresh, committed):
    with committed():
        first = services.hint(fresh.pk, fresh.owner)
    game_id, code, state, line = improvement_asked()
    kept = tasks.improve_hint.call(game_id, code, state, line, positions=POSITIONS)
    before = searches()

    said = follow_hints(fresh)

    assert kept > 0
    assert said[0] < (first.remaining or 0)  # a better line than the first one
    assert said == list(range(said[0], 0, -1))  # one proved line, followed to the win
    assert searches() == before  # every hint a lookup


def test_a_better_line_never_replaces_a_step_with_one_off_a_proved_line(fresh, committed):
    with committed():
        services.hint(fresh.pk, fresh.owner)
    game_id, code, state, line = improvement_asked()

    assert services.keep_better_line(fresh.pk, ()) == 0  # nothing better: nothing changes
    steps = {s.digest: (s.action, s.remaining) for s in HintStep.objects.filter(game=fresh)}
    assert tasks.improve_hint.call(game_id, code, state, line, positions=POSITIONS) > 0

    after = {s.digest: (s.action, s.remaining) for s in HintStep.objects.filter(game=fresh)}
    assert set(steps) <= set(after)  # the first line's positions all keep a step
    assert after != steps
    engine = Canfield(SHORTENS)  # from the start, the kept steps lead to the win
    played = 0
    while not engine.is_won():
        action, remaining = after[engine.position_digest()]
        assert remaining and played + remaining <= len(line)  # (never longer)
        engine.push(Action.parse(action))
        played += 1


def test_a_position_solved_by_another_game_is_not_searched_again(game, other_game):
    answer = services.hint(game.pk, game.owner)
    before = searches()

    again = services.verdict(other_game.pk, other_game.owner)
    hinted = services.hint(other_game.pk, other_game.owner)

    assert searches() == before
    assert (again.outcome, hinted.action, hinted.remaining) == (
        "win",
        answer.action,
        answer.remaining,
    )
    digest = Canfield(CODE).position_digest()
    assert HintStep.objects.filter(game=other_game, digest=digest, outcome="win").exists()
    assert services.kept_verdicts([other_game])[other_game.pk].outcome == "win"


def test_a_verdict_asked_again_at_a_checked_position_is_not_searched_again(game):
    services.verdict(game.pk, game.owner)
    before = searches()

    answers = {services.verdict(game.pk, game.owner).outcome for _ in range(3)}

    assert answers == {"win"}
    assert searches() == before
