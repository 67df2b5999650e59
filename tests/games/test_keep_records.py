"""A finished game's records are built and kept by the worker tier (``games.tasks.keep_records``,
enqueued when a practice game ends), once, and only once its code is public; its readers then
read them as kept."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.management import call_command
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from games import pool, pool_jobs, records, services, tasks
from games.models import Game, StoredRecord
from tests.conftest import token_client
from tests.games.helpers import CODE, WORKED_EXAMPLE, play_tokens, utc_today, winning_line

TASK = "games.tasks.keep_records"


def enqueued(game: Game) -> list[DBTaskResult[Any, Any]]:
    return [
        row
        for row in DBTaskResult.objects.filter(task_path=TASK).order_by("enqueued_at")
        if row.args_kwargs["args"] == [game.pk]
    ]


def run_worker() -> None:
    """A worker's run of the tasks ready now, in this process (``manage.py worker --batch``)."""
    call_command("worker", "--batch")


def kept(game: Game) -> list[tuple[int, bool, str, int]]:
    return list(
        StoredRecord.objects.filter(game=game)
        .order_by("states")
        .values_list("pk", "states", "etag", "version")
    )


@pytest.mark.django_db(transaction=True)  # (the task is enqueued once the change has committed)
@pytest.mark.parametrize("end", ["won", "resigned"])
def test_a_practice_game_that_ends_has_its_records_kept_by_the_worker(owner, other, end):
    game = services.new_game(owner, code=CODE)
    line = winning_line() if end == "won" else WORKED_EXAMPLE
    play_tokens(game, line[:-1])
    assert enqueued(game) == []  # (nothing while it is played)
    play_tokens(game, line[-1:])
    if end == "resigned":
        services.resign(game, owner)

    [task] = enqueued(game)
    assert task.status == TaskResultStatus.READY
    assert not StoredRecord.objects.filter(game=game).exists()

    run_worker()

    task.refresh_from_db()
    assert (task.status, task.return_value) == (TaskResultStatus.SUCCESSFUL, 2)
    assert [(states, version) for _, states, _, version in kept(game)] == [
        (False, pool_jobs.RECORD_VERSION),
        (True, pool_jobs.RECORD_VERSION),
    ]
    client = token_client(other)
    before = pool.stats()["submitted"]
    for states in (0, 1):
        response = client.get(f"/api/games/{game.pk}/record/", {"states": states})
        assert response.status_code == 200
        assert response["ETag"] == f'W/"{kept(game)[states][2]}"'
        assert response.json()["result"] == end
    assert pool.stats()["submitted"] == before  # read as kept: nothing built in the pool


@pytest.mark.django_db(transaction=True)
def test_a_second_run_keeps_nothing_new(owner):
    game = services.new_game(owner, code=CODE)
    play_tokens(game, WORKED_EXAMPLE)
    services.resign(game, owner)
    run_worker()
    first = kept(game)

    tasks.keep_records.enqueue(game.pk)
    run_worker()

    again = enqueued(game)[-1]
    assert (again.status, again.return_value) == (TaskResultStatus.SUCCESSFUL, 0)
    assert kept(game) == first


@pytest.mark.django_db(transaction=True)
def test_a_daily_attempt_that_ends_enqueues_nothing_while_its_day_runs(owner, daily_game):
    play_tokens(daily_game, ["D"])
    services.resign(daily_game, owner)

    assert enqueued(daily_game) == []
    assert tasks.keep_records.call(daily_game.pk) == 0  # run anyway, it builds nothing
    assert not StoredRecord.objects.filter(game=daily_game).exists()
    assert records.keep(daily_game.pk, today=utc_today() + dt.timedelta(days=1)) == 2  # then


def test_it_builds_nothing_for_a_game_in_progress(game):
    play_tokens(game, WORKED_EXAMPLE)

    assert tasks.keep_records.call(game.pk) == 0
    assert not StoredRecord.objects.filter(game=game).exists()


def test_it_replaces_a_kept_record_of_another_version_and_keeps_the_current_one(game):
    services.resign(game, game.owner)
    version = pool_jobs.RECORD_VERSION
    StoredRecord.objects.create(
        game=game, states=False, body=b"", etag="old", size=0, version=version - 1
    )
    built = records.keep(game.pk)  # (the other version's replaced, the one with states added)
    rows = kept(game)

    assert built == 2
    assert [(states, v) for _, states, _, v in rows] == [(False, version), (True, version)]
    assert rows[0][2] != "old"
    assert tasks.keep_records.call(game.pk) == 0
