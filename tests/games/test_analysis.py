"""GET /api/games/<id>/analysis/ — where a finished game's win slipped away, computed by the
worker tier (``games.tasks.analyse_game``) and checked here against the solver itself: every
position of the game is solved, and the slip must be the last action after which a position
proved winnable became one proved lost.
"""

from __future__ import annotations

import datetime as dt
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from django.core.management import call_command
from django.db import connections
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from core.worker.schedule import DUTIES
from games import analysis, services, tasks
from games.engine import Action, Canfield, IllegalAction
from games.engine.solver import Outcome, shorten, solve
from games.models import Game, GameAnalysis, LoggedAction
from tests.conftest import token_client
from tests.games.helpers import (
    CODE,
    WORKED_EXAMPLE,
    not_authenticated,
    not_found,
    play_tokens,
    utc_today,
    winning_line,
)

TASK = "games.tasks.analyse_game"


def tokens(text: str) -> list[str]:
    return text.split()


#: A deal and a lost game of it, pinned: the game is a simulated novice's
#: (``games.engine.players.play(LOST_CODE, NOVICE, "m6")`` when it was pinned), and solving each
#: of its positions gives: winnable up to action 21, lost from action 22 (W-F3: the waste's card
#: to its foundation shifts the draws of the next passes) to the end. Every position decides
#: within a thousand positions.
LOST_CODE = "CF1-D3-OSLUKEV"
LOST = tokens(
    "D R-T4 R-T4 D D D W-F4 D D D D D D W-F1 D D C D D D W-F1 W-F3 D D D D D D D D C D D D D D D D "
    "D D D C D D D D D D D D D D"
)
#: The same deal, played as far as 8 actions past that slip, then 9 undos back to before it
#: (winnable again) and the move the analysis of LOST names there (D), then on (random legal
#: actions, pinned) until it slips again: the slips are at actions 22 and 77, the last is 77.
UNDONE = tokens(
    "D R-T4 R-T4 D D D W-F4 D D D D D D W-F1 D D C D D D W-F1 W-F3 D D D D D D D D U U U U U U U "
    "U U D D D D D D D D C D D D W-F2 W-F3 D W-T1 D D D D W-T3 F2-T3 T1:2-T3 D W-T1 D D C D D D D "
    "D W-F4 D D D D C D D"
)
#: A deal that can never be won (the solver proves its start lost).
NEVER_CODE = "CF1-D3-ANOKQUA"

#: The solver's budget for a position in these tests' own checks (each decides in far fewer).
CHECK_POSITIONS = 300_000


@pytest.fixture(autouse=True)
def _short_lines(settings: Any) -> None:
    """A smaller budget for shortening the reported line: the tests check whatever line comes."""
    settings.ANALYSIS_SHORTEN_POSITIONS = 20_000


def outcome(code: str, tokens: list[str]) -> Outcome:
    """The solver's answer for the position after ``tokens``."""
    return solve(
        Canfield.replay(code, tokens), max_positions=CHECK_POSITIONS, shorten=False
    ).outcome


def solved_positions(code: str, tokens: list[str]) -> list[Outcome]:
    """The solver's answer for every position of the game: p0 (the deal) to pn."""
    return [outcome(code, tokens[:i]) for i in range(len(tokens) + 1)]


def slips(outcomes: list[Outcome]) -> list[int]:
    """Every action i after which a position proved winnable became one proved lost."""
    return [
        i for i in range(1, len(outcomes)) if (outcomes[i - 1], outcomes[i]) == ("win", "no_win")
    ]


def expected_slip(code: str, tokens: list[str], ply: int, shorten_positions: int) -> dict[str, Any]:
    """The slip at action ``ply`` as the solver gives it: the winning line from the position
    before it (decided, then shortened on the same budget of positions), checked to win when
    replayed and to start with a legal action other than the one played."""
    before = Canfield.replay(code, tokens[: ply - 1])
    found = solve(before, max_positions=CHECK_POSITIONS, shorten=False)
    assert found.outcome == "win"
    line = shorten(before, found.line, max_positions=shorten_positions)
    assert line[0] in before.legal_moves
    assert line[0] != Action.parse(tokens[ply - 1])
    assert Canfield.replay(code, [*tokens[: ply - 1], *(a.token() for a in line)]).is_won()
    return {"ply": ply, "played": tokens[ply - 1], "better": line[0].token(), "line": len(line)}


def enqueued(game: Game) -> list[DBTaskResult[Any, Any]]:
    return [
        row
        for row in DBTaskResult.objects.filter(task_path=TASK).order_by("enqueued_at")
        if row.args_kwargs["args"] == [game.pk]
    ]


def run_worker() -> None:
    """A worker's run of the tasks ready now, in this process (``manage.py worker --batch``)."""
    call_command("worker", "--batch")


def finished(owner: Any, code: str, tokens: list[str], **kind: Any) -> Game:
    """``owner``'s game of ``code`` after ``tokens``, resigned."""
    game = services.new_game(owner, code=code, **kind)
    play_tokens(game, tokens)
    services.resign(game, owner)
    game.refresh_from_db()
    return game


def dated(game: Game, day: dt.date) -> Game:
    """``game``, a daily attempt played today, moved to ``day`` (as if played then)."""
    Game.objects.filter(pk=game.pk).update(daily_date=day)
    game.refresh_from_db()
    return game


@contextmanager
def a_day_later() -> Iterator[None]:
    """The server's clock a day ahead: today's daily is over."""
    later = timezone.now() + dt.timedelta(days=1)
    with mock.patch("django.utils.timezone.now", return_value=later):
        yield


def url(game: Game | int) -> str:
    return f"/api/games/{game if isinstance(game, int) else game.pk}/analysis/"


# --- the slip, checked against the solver ------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # (the task is enqueued once the resignation commits)
def test_it_finds_where_a_lost_practice_game_slipped_as_the_solver_proves(owner, other, settings):
    outcomes = solved_positions(LOST_CODE, LOST)
    assert slips(outcomes) == [22]  # the pinned game: one slip, at action 22
    game = finished(owner, LOST_CODE, LOST)

    [task] = enqueued(game)  # asked for when it ended
    assert task.status == TaskResultStatus.READY
    assert token_client(other).get(url(game)).json() == {"status": "analysing"}
    assert enqueued(game) == [task]  # a reader asks for nothing more

    run_worker()

    task.refresh_from_db()
    assert (task.status, task.return_value) == (TaskResultStatus.SUCCESSFUL, "ready")
    body = token_client(other).get(url(game)).json()
    slip = expected_slip(LOST_CODE, LOST, 22, settings.ANALYSIS_SHORTEN_POSITIONS)
    assert body == {"status": "ready", "won": False, "winnable": True, "slip": slip}
    # Lost from the slip to the end: every later position is proved lost.
    assert outcomes[22:] == ["no_win"] * (len(LOST) - 21)
    row = GameAnalysis.objects.get(game=game)
    assert (row.version, row.task_id) == (analysis.ANALYSIS_VERSION, "")
    assert row.computed_at is not None and row.solves >= 2


def test_with_undos_the_slip_is_the_last_one(owner, api, settings):
    outcomes = solved_positions(LOST_CODE, UNDONE)
    # Lost at action 22, winnable again once undone back before it (action 39), lost at 77.
    assert slips(outcomes) == [22, 77]
    assert outcomes[38:40] == ["no_win", "win"]
    assert outcomes[77:] == ["no_win"] * (len(UNDONE) - 76)
    game = finished(owner, LOST_CODE, UNDONE)

    assert analysis.analyse(game.pk) == "ready"

    slip = expected_slip(LOST_CODE, UNDONE, 77, settings.ANALYSIS_SHORTEN_POSITIONS)
    assert api.get(url(game)).json() == {
        "status": "ready",
        "won": False,
        "winnable": True,
        "slip": slip,
    }


def test_the_slip_needs_few_positions_solved(owner):
    """Halving the line of actions in effect: 1 + ceil(log2(m + 1)) positions at most."""
    game = finished(owner, LOST_CODE, UNDONE)
    in_effect = len(analysis.actions_in_effect(UNDONE))
    assert in_effect == len(UNDONE) - 2 * 9

    analysis.analyse(game.pk)

    assert GameAnalysis.objects.get(game=game).solves <= 1 + math.ceil(math.log2(in_effect + 1))


def test_the_actions_in_effect_take_out_every_undone_one():
    assert analysis.actions_in_effect(["D", "R-T4", "U", "D", "D", "U", "U", "R-T4"]) == [
        (1, "D"),
        (8, "R-T4"),
    ]


@pytest.mark.django_db(transaction=True)
def test_a_won_game_is_stored_won_at_once_without_a_task(owner, api):
    game = services.new_game(owner, code=CODE)
    play_tokens(game, winning_line())

    assert enqueued(game) == []
    row = GameAnalysis.objects.get(game=game)
    assert (row.status, row.won, row.version) == ("ready", True, analysis.ANALYSIS_VERSION)
    assert api.get(url(game)).json() == {
        "status": "ready",
        "won": True,
        "winnable": True,
        "slip": None,
    }


def test_a_deal_that_never_could_be_won_says_so(owner, api):
    assert outcome(NEVER_CODE, []) == "no_win"
    game = finished(owner, NEVER_CODE, ["T1-T3", "D", "D"])

    assert analysis.analyse(game.pk) == "ready"

    assert api.get(url(game)).json() == {
        "status": "ready",
        "won": False,
        "winnable": False,
        "slip": None,
    }


def test_a_game_resigned_while_it_could_still_be_won_has_no_slip(owner, api):
    assert outcome(CODE, WORKED_EXAMPLE) == "win"
    game = finished(owner, CODE, WORKED_EXAMPLE)

    analysis.analyse(game.pk)

    assert api.get(url(game)).json() == {
        "status": "ready",
        "won": False,
        "winnable": True,
        "slip": None,
    }


def test_a_position_the_solver_cannot_decide_in_its_budget_leaves_it_undecided(
    owner, api, settings
):
    settings.ANALYSIS_POSITIONS = 1  # (the last position needs more than its root)
    game = finished(owner, LOST_CODE, LOST)

    assert analysis.analyse(game.pk) == "undecided"

    assert api.get(url(game)).json() == {"status": "undecided"}
    row = GameAnalysis.objects.get(game=game)
    assert (row.slip_ply, row.played, row.better, row.winnable) == (None, "", "", None)
    assert enqueued(game) == []  # an undecided answer is an answer: not asked for again


def test_an_analysis_of_another_version_is_computed_again(owner, api):
    game = finished(owner, CODE, WORKED_EXAMPLE)
    analysis.analyse(game.pk)
    GameAnalysis.objects.filter(game=game).update(version=analysis.ANALYSIS_VERSION - 1)

    assert api.get(url(game)).json() == {"status": "analysing"}

    [task] = enqueued(game)
    assert tasks.analyse_game.call(game.pk) == "ready"
    assert api.get(url(game)).json()["status"] == "ready"


def test_a_pending_analysis_whose_task_is_gone_is_asked_for_again_once(owner, api):
    game = finished(owner, CODE, WORKED_EXAMPLE)
    tasks.request_analysis(game)
    DBTaskResult.objects.filter(task_path=TASK).delete()  # (pruned, say)

    assert api.get(url(game)).json() == {"status": "analysing"}
    assert api.get(url(game)).json() == {"status": "analysing"}

    assert len(enqueued(game)) == 1


def test_a_failed_analysis_is_answered_undecided(owner, api):
    game = finished(owner, CODE, WORKED_EXAMPLE)
    LoggedAction.objects.filter(game=game, ply=0).update(token="T4-F1")  # a log that cannot be
    with pytest.raises(IllegalAction):
        analysis.analyse(game.pk)

    assert GameAnalysis.objects.get(game=game).status == "failed"
    assert api.get(url(game)).json() == {"status": "undecided"}
    assert enqueued(game) == []


# --- the daily: only after its day ---------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_daily_attempt_is_analysed_only_after_its_day(owner, other, api, settings):
    game = finished(owner, LOST_CODE, LOST, kind="daily", daily_date=utc_today())

    assert token_client(owner).get(url(game)).json() == not_found()
    assert token_client(other).get(url(game)).json() == not_found()
    response = api.get(url(game))
    assert (response.status_code, response.json()) == (401, not_authenticated())
    assert analysis.analyse(game.pk) == "not_analysable"  # (nor would the task compute it)
    assert enqueued(game) == []
    assert not GameAnalysis.objects.filter(game=game).exists()

    with a_day_later():
        assert api.get(url(game)).json() == {"status": "analysing"}
        run_worker()
        body = api.get(url(game)).json()

    slip = expected_slip(LOST_CODE, LOST, 22, settings.ANALYSIS_SHORTEN_POSITIONS)
    assert body == {"status": "ready", "won": False, "winnable": True, "slip": slip}
    assert len(enqueued(game)) == 1


def test_the_sweep_asks_for_the_past_days_attempts_a_batch_at_a_time(db, django_user_model):
    today = utc_today()
    players = [django_user_model.objects.create_user(f"p{i}") for i in range(7)]

    def attempt(i: int, day: dt.date, tokens: list[str], code: str = LOST_CODE) -> Game:
        game = services.new_game(players[i], code=code, kind="daily", daily_date=today)
        play_tokens(game, tokens)
        return dated(game, day)

    yesterday = today - dt.timedelta(days=1)
    won = attempt(3, yesterday, winning_line(), code=CODE)
    lost = [attempt(i, yesterday, ["D", "R-T4"]) for i in range(3)]  # (left open: closed)
    untouched = attempt(4, yesterday, [])  # no action: nothing to analyse
    current = attempt(5, today, ["D"])  # today's: not before its day is over
    old = attempt(6, today - dt.timedelta(days=analysis.SWEEP_DAYS + 1), ["D"])

    assert tasks.sweep_analyses(batch=2) == 2
    asked = set(GameAnalysis.objects.values_list("game_id", "status"))
    assert asked == {(won.pk, "ready"), (lost[0].pk, "pending")}  # the won one needs no task
    [task] = DBTaskResult.objects.filter(task_path=TASK)
    assert (task.args_kwargs["args"], task.priority) == ([lost[0].pk], analysis.PRIORITY_SWEPT)

    assert tasks.sweep_analyses(batch=2) == 1  # one waiting: room for one more
    assert tasks.sweep_analyses(batch=2) == 0  # two waiting
    GameAnalysis.objects.filter(status="pending").update(status="ready")
    assert tasks.sweep_analyses(batch=2) == 1
    assert tasks.sweep_analyses(batch=10) == 0  # nothing left in the sweep's days
    swept = set(GameAnalysis.objects.values_list("game_id", flat=True))
    assert swept == {won.pk, *(game.pk for game in lost)}
    assert not swept & {untouched.pk, current.pk, old.pk}


@pytest.mark.django_db(transaction=True)  # (the worker runs the tasks as deployed)
def test_a_reader_gets_a_swept_analysis_at_their_own_priority(owner, api):
    game = finished(owner, LOST_CODE, ["D"], kind="daily", daily_date=utc_today())
    dated(game, utc_today() - dt.timedelta(days=1))
    tasks.sweep_analyses()
    [swept] = DBTaskResult.objects.filter(task_path=TASK)
    assert swept.priority == analysis.PRIORITY_SWEPT

    assert api.get(url(game)).json() == {"status": "analysing"}
    assert api.get(url(game)).json() == {"status": "analysing"}  # (asked once more: no third)

    swept_task, asked = enqueued(game)
    assert (swept_task.pk, swept_task.priority) == (swept.pk, analysis.PRIORITY_SWEPT)
    assert asked.priority == analysis.PRIORITY_REQUESTED
    assert GameAnalysis.objects.get(game=game).task_id == str(asked.pk)

    run_worker()  # the reader's first; the swept one then finds the answer current
    assert api.get(url(game)).json()["status"] == "ready"
    assert sorted(row.return_value for row in enqueued(game)) == ["ready", "ready"]


def test_the_sweep_is_a_periodic_duty_of_every_minute():
    duty = DUTIES["games.tasks.analyse_past_days"]
    assert (duty.task, duty.every) == (tasks.analyse_past_days, dt.timedelta(minutes=1))


# --- who may read it -----------------------------------------------------------------------------


def test_a_finished_practice_game_s_analysis_is_open_to_all(owner, other, api):
    game = finished(owner, CODE, WORKED_EXAMPLE)
    analysis.analyse(game.pk)
    expected = {"status": "ready", "won": False, "winnable": True, "slip": None}

    for client in (token_client(owner), token_client(other), api):
        response = client.get(url(game))
        assert (response.status_code, response.json()) == (200, expected)


def test_a_game_in_progress_has_none(owner, other, api):
    game = services.new_game(owner, code=LOST_CODE)
    play_tokens(game, LOST)

    for client in (token_client(owner), token_client(other)):
        response = client.get(url(game))
        assert (response.status_code, response.json()) == (404, not_found())
    response = api.get(url(game))
    assert (response.status_code, response.json()) == (401, not_authenticated())
    assert not GameAnalysis.objects.filter(game=game).exists()
    assert DBTaskResult.objects.filter(task_path=TASK).count() == 0


def test_a_game_that_does_not_exist_is_not_found(owner_api, api):
    for client in (owner_api, api):
        response = client.get(url(987654))
        assert (response.status_code, response.json()) == (404, not_found())
    assert owner_api.get("/api/games/abc/analysis/").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_parallel_readers_enqueue_one_analysis(owner, other):
    game = finished(owner, LOST_CODE, LOST)
    DBTaskResult.objects.all().delete()
    GameAnalysis.objects.all().delete()  # (as before the feature: nobody has asked yet)
    clients = [token_client(other) for _ in range(6)]
    barrier = threading.Barrier(6)
    answers: list[Any] = [None] * 6

    def read(i: int) -> None:
        try:
            barrier.wait()
            response = clients[i].get(url(game))
            answers[i] = (response.status_code, response.json())
        finally:
            connections.close_all()

    threads = [threading.Thread(target=read, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert answers == [(200, {"status": "analysing"})] * 6
    [task] = enqueued(game)
    assert GameAnalysis.objects.get(game=game).task_id == str(task.pk)
