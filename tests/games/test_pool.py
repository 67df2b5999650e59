"""The solver pool's admission rule (``games.pool``): a task starts on a free worker, or waits at
most ``SOLVER_WAIT`` for one due to be free by then, or is refused ``busy`` at once; once started,
its caller waits at most its budget plus ``SOLVER_WAIT``. Real worker processes throughout."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from django.test import override_settings

from games import pool
from games.errors import GameError
from tests.games.helpers import solver_pool
from tests.support import hold_until


@pytest.fixture(autouse=True)
def fresh_pool():
    pool.shutdown()
    yield
    pool.shutdown()


def test_a_task_that_overruns_its_budget_answers_busy_at_its_deadline(tmp_path, settings):
    settings.SOLVER_WAIT = 0.3
    flag = str(tmp_path / "release")
    started = time.monotonic()

    with pytest.raises(GameError) as refused:
        pool.run(0.2, hold_until, flag, 30)  # says 0.2 s, holds until told
    took = time.monotonic() - started

    assert refused.value.code == "busy"
    assert 0.5 <= took < 2  # its budget and SOLVER_WAIT, not the task's end
    assert pool.stats()["running"] == 1  # (the worker is still held)
    Path(flag).touch()


def test_a_task_waits_only_while_fewer_than_solver_queue_wait(settings):
    settings.SOLVER_WAIT = 10
    with solver_pool(workers=1, queue=1, budget=1.0, hold=1.0):  # free in a second or so
        waiter = threading.Thread(target=pool.run, args=(1.0, hold_until, "/nonexistent", 0))
        waiter.start()
        deadline = time.monotonic() + 10
        while pool.stats()["waiting"] < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert pool.stats()["waiting"] == 1

        started = time.monotonic()
        with pytest.raises(GameError) as refused:
            pool.admit(1.0)  # the queue is full: refused at once
        took = time.monotonic() - started
        waiter.join(timeout=15)

    assert took < 0.5
    assert refused.value.code == "busy"
    # A worker is due for it after the holder's second and the waiting task's.
    assert refused.value.extra["retry_after"] in (1, 2)
    assert not waiter.is_alive()


def test_a_task_of_no_declared_budget_is_waited_for_at_most_solver_wait(settings):
    settings.SOLVER_WAIT = 0.5
    with solver_pool(workers=1, queue=4, budget=None):  # short, it says: due any moment
        started = time.monotonic()
        with pytest.raises(GameError) as refused:
            pool.admit(0.2)
        took = time.monotonic() - started

    assert 0.5 <= took < 1.5  # it waited SOLVER_WAIT, then gave up
    assert refused.value.extra["retry_after"] == 1


def test_a_worker_given_back_unused_takes_the_next_task(settings):
    with override_settings(SOLVER_WORKERS=1, SOLVER_QUEUE=0):
        first = pool.admit(1.0)
        with pytest.raises(GameError):
            pool.admit(1.0)  # the one worker is reserved
        first.release()  # (a search the rate limit refused)

        assert pool.run(5.0, hold_until, "/nonexistent", 0) is None
        assert pool.stats()["running"] == 0
