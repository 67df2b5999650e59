"""The solver pool (``games.pool``): a task starts on a free worker, or waits at most
``SOLVER_WAIT`` for one due to be free by then, or is refused ``busy`` at once; once started, a
task past its deadline (its budget plus ``SOLVER_WAIT``) has its worker killed and replaced; a
worker that dies is replaced; a stopped pool answers every caller still waiting ``busy``. Real
worker processes throughout."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.test import override_settings

from games import pool
from games.errors import GameError
from tests.support import hold_until


@pytest.fixture(autouse=True)
def fresh_pool():
    pool.shutdown()
    yield
    pool.shutdown()


def until(condition: Callable[[], bool], within: float = 10) -> bool:
    """Whether ``condition()`` holds within ``within`` seconds (polled)."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended and not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in {"Z", "X"}


@contextmanager
def held(tmp_path: Path, budget: float | None) -> Iterator[Future[None]]:
    """The pool's one worker held by a task of ``budget`` until the block ends."""
    flag = tmp_path / "release"
    holder = pool.admit(budget).start(hold_until, str(flag), 60)
    try:
        yield holder
    finally:
        flag.touch()


def outcome(fn: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    """``fn()`` started on a thread: the thread, and a list that gets its result or error."""
    got: list[object] = []

    def call() -> None:
        try:
            got.append(fn())
        except GameError as error:
            got.append(error)

    thread = threading.Thread(target=call)
    thread.start()
    return thread, got


def test_a_task_past_its_deadline_frees_its_worker_and_the_next_task_runs(tmp_path, settings):
    settings.SOLVER_WAIT = 0.3
    first = pool.run(5.0, os.getpid)  # the worker, started
    # Says 0.2 s, would hold for a minute; nobody waits for it: the pool ends it by itself.
    overrun = pool.admit(0.2).start(hold_until, str(tmp_path / "never"), 60)

    assert until(overrun.done)
    assert isinstance(overrun.exception(), TimeoutError)  # (pebble's: "Task timeout")
    assert not alive(first)  # its worker killed
    second = pool.run(5.0, os.getpid)  # and another one runs the next task
    assert second != first
    assert pool.stats()["running"] == 0


def test_a_caller_of_a_task_past_its_deadline_gets_busy(tmp_path, settings):
    settings.SOLVER_WAIT = 0.3
    first = pool.run(5.0, os.getpid)

    with pytest.raises(GameError) as refused:
        pool.run(0.2, hold_until, str(tmp_path / "never"), 60)

    assert refused.value.code == "busy"
    assert refused.value.extra["retry_after"] == 1  # (its budget, in whole seconds)
    assert pool.run(5.0, os.getpid) not in (first, None)  # the worker replaced


def test_a_worker_killed_during_a_task_answers_busy_and_is_replaced(tmp_path):
    worker = pool.run(5.0, os.getpid)
    with held(tmp_path, budget=30.0) as holder:
        assert until(holder.running)
        os.kill(worker, signal.SIGKILL)
        with pytest.raises(GameError) as refused:
            pool.wait(holder, 30.0)

    assert refused.value.code == "busy"
    assert pool.run(5.0, os.getpid) not in (worker, None)


def test_a_worker_that_died_idle_is_replaced_with_a_new_pool():
    worker = pool.run(5.0, os.getpid)
    os.kill(worker, signal.SIGKILL)
    assert until(lambda: not alive(worker))

    # Pebble finds the pool broken within a moment; a task handed to it just before is refused.
    answers: list[object] = []
    for _ in range(3):
        try:
            answers.append(pool.run(5.0, os.getpid))
            break
        except GameError as refused:
            answers.append(refused.code)
    assert answers[-1] not in ("busy", worker)
    assert answers[:-1] in ([], ["busy"])


def test_a_task_waits_only_while_fewer_than_solver_queue_wait(tmp_path, settings):
    settings.SOLVER_WAIT = 10
    with override_settings(SOLVER_WORKERS=1, SOLVER_QUEUE=1), held(tmp_path, budget=1.0):
        waiter, got = outcome(lambda: pool.run(1.0, os.getpid))  # due in a second: it waits
        assert until(lambda: pool.stats()["waiting"] == 1)

        with pytest.raises(GameError) as refused:
            pool.admit(1.0)  # the queue is full: refused at once
        assert pool.stats()["waiting"] == 1  # (refused while the other still waited)

    waiter.join(timeout=30)
    assert refused.value.code == "busy"
    # A worker is due for it after the holder's second and the waiting task's.
    assert refused.value.extra["retry_after"] in (1, 2)
    assert not waiter.is_alive()
    assert isinstance(got[0], int)  # the one that waited ran once the worker was free


def test_a_task_of_no_declared_budget_is_waited_for_at_most_solver_wait(tmp_path, settings):
    settings.SOLVER_WAIT = 2
    with override_settings(SOLVER_WORKERS=1, SOLVER_QUEUE=4), held(tmp_path, budget=None):
        # Short, the holder says: due any moment, so a task waits for it, then gives up.
        waiter, got = outcome(lambda: pool.admit(0.2))
        assert until(lambda: pool.stats()["waiting"] == 1)
        waiter.join(timeout=10)

        assert not waiter.is_alive()
        assert pool.stats()["waiting"] == 0
    assert isinstance(got[0], GameError)
    assert (got[0].code, got[0].extra["retry_after"]) == ("busy", 1)


def test_a_worker_given_back_unused_takes_the_next_task():
    with override_settings(SOLVER_WORKERS=1, SOLVER_QUEUE=0):
        first = pool.admit(1.0)
        with pytest.raises(GameError):
            pool.admit(1.0)  # the one worker is reserved
        first.release()  # (a search the rate limit refused)

        assert pool.run(5.0, hold_until, "/nonexistent", 0) is None
        assert pool.stats()["running"] == 0


def test_a_stopped_pool_answers_a_caller_waiting_busy_and_ends_its_worker(tmp_path):
    worker = pool.run(5.0, os.getpid)
    with held(tmp_path, budget=30.0) as holder:
        assert until(holder.running)
        caller, got = outcome(lambda: pool.wait(holder, 30.0))

        asyncio.run(pool.stopped(timeout=10))
        caller.join(timeout=10)

        assert not caller.is_alive()
        assert isinstance(got[0], GameError) and got[0].code == "busy"
        assert not alive(worker)
        with pytest.raises(GameError) as refused:
            pool.admit(1.0)  # and it takes no more tasks (until the fixture's shutdown)
        assert refused.value.code == "busy"
