"""The solver pool: every search, and every other piece of CPU-heavy work, runs in worker
processes, never on a thread of a web process.

A Daphne process serves every request and websocket of its own on one event loop, with Django's
views in threads around it; all of them share one interpreter lock. A search of two seconds on
one of those threads took the lock from everything else: four players asking for hints made
everyone's moves 28 times slower. So each web process owns a
:class:`concurrent.futures.ProcessPoolExecutor` of ``SOLVER_WORKERS`` processes (1 by default),
made on first use (the server's start warms it up), whose tasks are the pure functions of
``games.worker``. A thread of the web process only waits for a result, which costs no CPU.

The queue is bounded: at most ``SOLVER_WORKERS + SOLVER_QUEUE`` tasks are in the pool at once, and
one more is refused at once with ``GameError("busy")`` (HTTP 503, with ``Retry-After``) rather than
waiting behind the others. Every task has a deadline: the caller waits at most that long (the task's
own budget plus ``SOLVER_WAIT`` seconds in the queue), then gets ``busy``; a task not yet handed
to a worker then is cancelled, and one already handed over ends by its own budget (every task of
``games.worker`` has one), so a worker is never held for longer.

Why a pool per process rather than a separate tier of workers: it needs nothing more to run (``make
run`` stays one command), it grows with the web tier (each Daphne brings its workers), and a search
is short (seconds) and needs no state but its arguments. A deployment that wants searches on other
machines, or a queue that survives a restart, would put them on a task queue with workers of their
own (Celery or RQ over Redis, or Dramatiq): the same pure functions, submitted by name, with the
same bound and deadline kept by the queue. ``docs/performance.md`` has the figures.

Workers are started with ``spawn``: a web process has threads (Twisted's, the broadcaster's, the
database's), and forking a process with threads can copy a lock held by one of them. They run at a
lower scheduling priority (``SOLVER_NICE``, 10 by default): on a machine with few cores, the CPU
goes to the processes that answer moves first, and searches take what is left.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any, ParamSpec, TypeVar

from django.conf import settings
from django.utils.translation import gettext as _

from games import worker
from games.errors import GameError

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")


class _Pool:
    """One executor and the slots that bound what may be in it."""

    def __init__(self, workers: int, queue: int) -> None:
        self.workers = workers
        self.capacity = workers + queue
        self.slots = threading.BoundedSemaphore(self.capacity)
        self.executor = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=os.nice,
            initargs=(settings.SOLVER_NICE,),
        )
        #: Tasks submitted and finished, for the health of the pool (and the tests).
        self.submitted = 0
        self.completed = 0

    def in_flight(self) -> int:
        return self.submitted - self.completed


_lock = threading.Lock()
_pool: _Pool | None = None


def _current() -> _Pool:
    global _pool
    with _lock:
        if _pool is None:
            _pool = _Pool(settings.SOLVER_WORKERS, settings.SOLVER_QUEUE)
        return _pool


def busy(retry_after: float | None = None) -> GameError:
    """The refusal of a task the pool cannot take now: HTTP 503 with ``Retry-After``."""
    wait = retry_after if retry_after is not None else settings.HINT_SECONDS
    return GameError(
        "busy",
        _("The server is busy with other searches. Please try again in a moment."),
        retry_after=max(1, math.ceil(wait)),
    )


def submit(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
    """Hand ``fn(*args, **kwargs)`` (a function of ``games.worker``) to the pool: its future, or
    ``busy`` when the pool holds as many tasks as it may."""
    for attempt in (1, 2):
        pool = _current()
        if not pool.slots.acquire(blocking=False):
            raise busy()
        try:
            future = pool.executor.submit(fn, *args, **kwargs)
        except (BrokenProcessPool, RuntimeError) as exc:  # a worker died, or shut down
            pool.slots.release()
            log.warning("solver pool: starting a new pool (%s)", exc)
            _replace(pool)
            if attempt == 2:
                raise busy() from None
            continue
        with _lock:
            pool.submitted += 1

        def release(_: Future[T], pool: _Pool = pool) -> None:
            with _lock:
                pool.completed += 1
            pool.slots.release()

        future.add_done_callback(release)
        return future
    raise AssertionError("unreachable")


_shared: dict[object, Future[Any]] = {}
_shared_lock = threading.Lock()


def shared(key: object, start: Callable[[], Future[T]]) -> tuple[Future[T], bool]:
    """The task of ``key`` in the pool: the one already there, or the one ``start()`` submits
    (called only then, under a lock: read what the task needs inside it). Callers that ask for the
    same work while it runs share one task — thirty readers of one record start one build. Returns
    the future, and whether this caller started it: the starter keeps the result where later
    callers find it, then calls :func:`forget` (until then, a caller gets the same future, done or
    not)."""
    with _shared_lock:
        pending = _shared.get(key)
        if pending is not None:
            return pending, False
        future = start()
        _shared[key] = future
        return future, True


def forget(key: object) -> None:
    """Drop the shared task of ``key`` (see :func:`shared`)."""
    with _shared_lock:
        _shared.pop(key, None)


def run(budget: float, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` run in the pool, its result waited for: ``busy`` if the pool is
    full, or if the result is not in within ``budget`` (the task's own time) plus ``SOLVER_WAIT``
    seconds. An exception of the task is raised here."""
    future = submit(fn, *args, **kwargs)
    return wait(future, budget)


def wait(future: Future[T], budget: float) -> T:
    """The result of a task of the pool, waited for as :func:`run` does."""
    try:
        return future.result(timeout=budget + settings.SOLVER_WAIT)
    except FutureTimeout:
        future.cancel()  # (a task already running ends by its own budget)
        raise busy(budget) from None
    except BrokenProcessPool:
        log.warning("solver pool: a worker died during a task")
        _replace(None)
        raise busy(budget) from None


def _replace(broken: _Pool | None) -> None:
    """Drop the current pool (if it is ``broken``, or whatever it is for ``None``): the next task
    starts a new one."""
    global _pool
    with _lock:
        old = _pool
        if old is None or (broken is not None and old is not broken):
            return
        _pool = None
    old.executor.shutdown(wait=False, cancel_futures=True)


def warm_up() -> None:
    """Start the workers now (a server's start), so that the first search does not wait for them."""
    try:
        run(30, worker.nothing)
    except GameError:
        log.warning("solver pool: could not warm up")


def shutdown(wait: bool = True) -> None:
    """Stop the pool's workers (tests, and a process that exits); the next task starts anew."""
    global _pool
    with _lock:
        old, _pool = _pool, None
    if old is not None:
        old.executor.shutdown(wait=wait, cancel_futures=True)


def stats() -> dict[str, int]:
    """The pool's workers, capacity and counts of tasks (zeros before its first task)."""
    with _lock:
        pool = _pool
        if pool is None:
            return {"workers": 0, "capacity": 0, "submitted": 0, "completed": 0, "in_flight": 0}
        return {
            "workers": pool.workers,
            "capacity": pool.capacity,
            "submitted": pool.submitted,
            "completed": pool.completed,
            "in_flight": pool.in_flight(),
        }
