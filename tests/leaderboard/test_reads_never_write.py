"""Reads never write, nor rebuild: a day's Redis sets are built by the worker tier's
``rebuild_board`` task, which the live board's broadcaster enqueues when it finds them missing, or
by ``manage.py rebuild_board`` (SQL answers meanwhile); a change that Redis refused is recorded
again by the worker tier's ``record_again`` task, without throwing the day's sets away; a day's
live snapshot is stored only by a broadcast, compare-and-set on ``seq``, and never goes
backwards."""

from __future__ import annotations

import datetime as dt
import io
import os
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django_tasks_db.models import DBTaskResult

from core import redis_bounds
from games import services as games
from leaderboard import redis_client, standings, tasks
from leaderboard.live import broadcast, frames, snapshots
from leaderboard.standings import sets
from tests.leaderboard.helpers import OPENING, attempt, play, player, utc_today
from tests.support import free_port

REDIS = bool(os.environ.get("REDIS_URL"))
needs_redis = pytest.mark.skipif(not REDIS, reason="needs REDIS_URL")
pytestmark = pytest.mark.redis_sets  # the tests look at the days' sets themselves


def rebuild_board(*args: str) -> str:
    out = io.StringIO()
    call_command("rebuild_board", *args, stdout=out)
    return out.getvalue()


@needs_redis
def test_a_read_of_a_day_without_its_sets_is_answered_from_sql_and_builds_nothing(api, clock):
    attempt(player("ann"), OPENING, clock)
    sets.forget(utc_today())

    body = api.get(f"/api/daily/{utc_today()}/board/").json()

    assert [(r["player"], r["rank"]) for r in body["results"]] == [("ann", 1)]
    assert isinstance(standings.board(utc_today(), clock.now), standings.SqlBoard)
    assert not sets.ready(utc_today())
    keys = sets.Keys(utc_today())
    assert not redis_client.client().exists(
        keys.finished, keys.open, keys.hash, keys.rows, keys.ready
    )


def enqueued(task: Any) -> list[tuple[list[Any], dict[str, Any]]]:
    """The arguments of the runs of ``task`` that wait for a worker."""
    rows = DBTaskResult.objects.filter(task_path=task.module_path, status="READY")
    return [(row.args_kwargs["args"], row.args_kwargs["kwargs"]) for row in rows]


@needs_redis
@pytest.mark.django_db(transaction=True)
def test_a_flush_that_finds_a_days_sets_missing_has_the_worker_tier_build_them(
    clock, only_our_days
):
    today = utc_today()
    sets.forget(today)  # (as a flushed or restarted Redis leaves them)

    ann = attempt(player("ann"), ["R-T2"], clock)  # five changes, five flushes...
    bob = attempt(player("bob"), ["D"], clock)
    play(ann, ["R-F1"], clock)

    assert enqueued(tasks.rebuild_board) == [([today.isoformat()], {})]  # ... one rebuild
    assert isinstance(standings.board(today, clock.now), standings.SqlBoard)  # meanwhile
    assert snapshots.latest(today)["results"][0]["player"] == "ann"
    assert tasks.rebuild_board.call(today.isoformat())  # as a worker runs it
    board = standings.board(today, clock.now)
    assert isinstance(board, sets.RedisBoard)
    assert [(g.pk, g.ply) for g in board.rows(0, 10)] == [(ann.pk, 2), (bob.pk, 1)]


@needs_redis
@pytest.mark.django_db(transaction=True)
def test_a_change_redis_refused_is_recorded_again_and_the_day_stays_ready(clock, only_our_days):
    today = utc_today()
    ann = attempt(player("ann"), ["R-T2"], clock)
    assert sets.rebuild(today)

    with override_settings(REDIS_URL=f"redis://127.0.0.1:{free_port()}/0"):  # nothing there
        play(ann, ["R-F1"], clock)  # its record is refused, after the commit

    assert enqueued(tasks.record_again) == [([today.isoformat(), [ann.pk]], {})]
    redis_bounds.breaker.reset()  # (a worker is a process of its own: it saw no Redis down)
    assert tasks.record_again.call(today.isoformat(), [ann.pk]) == []  # as a worker runs it
    assert sets.ready(today)
    board = sets.board(today, clock.now)
    assert board is not None
    assert [(g.pk, g.ply, g.score) for g in board.rows(0, 10)] == [(ann.pk, 2, 5)]
    assert snapshots.latest(today)["results"][0]["score"] == 5  # broadcast once recorded


@needs_redis
def test_rebuild_board_builds_todays_missing_sets_and_leaves_ready_ones(db, clock):
    game = attempt(player("ann"), OPENING, clock)
    sets.forget(utc_today())

    assert rebuild_board().startswith("2030-06-15: built, 1 ranked attempt(s) in ")
    assert rebuild_board() == "2030-06-15: ready\n"
    assert sets.ready(utc_today())
    games.resign(game, game.owner)  # (no after-commit path here: the sets miss it...)
    assert rebuild_board("--day", "2030-06-15", "--force").startswith("2030-06-15: built")
    board = sets.board(utc_today(), clock.now)  # (... until they are built afresh)
    assert board is not None and [g.status for g in board.rows(0, 1)] == ["resigned"]
    with pytest.raises(CommandError, match="is over"):
        rebuild_board("--day", "2030-06-14")


@pytest.mark.skipif(REDIS, reason="without Redis")
def test_rebuild_board_without_redis_says_so(db):
    assert rebuild_board() == "Redis is not configured: boards are read from SQL.\n"


def test_a_snapshot_is_stored_compare_and_set_on_seq_and_never_goes_backwards(db, clock):
    today = utc_today()
    attempt(player("ann"), OPENING, clock)
    older, newer, newest = (frames.snapshot_frame(today, seq, clock.now) for seq in (4, 5, 6))

    assert snapshots.swap(newer) == (True, None)
    assert snapshots.swap(older) == (False, None)  # a slower flush of an older seq
    assert snapshots.swap(newer) == (False, None)
    assert snapshots.stored(today) == newer
    assert snapshots.swap(newest) == (True, newer)
    assert snapshots.stored(today) == newest


def test_a_watchers_snapshot_read_stores_nothing(db, clock):
    today = utc_today()
    attempt(player("ann"), OPENING, clock)

    snapshot = snapshots.latest(today)

    assert (snapshot["seq"], [r["player"] for r in snapshot["results"]]) == (0, ["ann"])
    assert snapshots.stored(today) is None


def test_a_stored_snapshot_beyond_the_databases_seq_is_not_this_databases(db, clock):
    """A cache that outlived its database (restored from a backup, say) holds a higher seq: the
    next broadcast replaces it, and a watcher is never served it meanwhile."""
    today = utc_today()
    attempt(player("ann"), OPENING, clock)
    foreign: Any = {**frames.snapshot_frame(today, 90, clock.now), "results": []}
    assert snapshots.swap(foreign)[0]

    assert snapshots.latest(today)["results"] != []
    message = broadcast.update_message(today, clock.now + dt.timedelta(seconds=1))

    assert message is not None and message["seq"] == snapshots.current_seq(today) == 1
    assert snapshots.stored(today) is not None
    assert snapshots.stored(today)["seq"] == 1  # type: ignore[index]
