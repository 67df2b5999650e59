"""The solver pool: a player's own searches (hints), and every other piece of CPU-heavy work a
request needs (a record built), run in worker processes, never on a thread of a web process.

A Daphne process serves every request and websocket of its own on one event loop, with Django's
views in threads around it; all of them share one interpreter lock. A search of two seconds on
one of those threads took the lock from everything else: four players asking for hints made
everyone's moves 28 times slower. So each web process owns a :class:`pebble.ProcessPool` of
``SOLVER_WORKERS`` processes (1 by default), made on first use, whose tasks are the pure
functions of ``games.pool_jobs``. A thread of the web process only waits for a result, which
costs no CPU. Background duties (dealing a day, keeping records) are not the pool's: the worker
tier runs them (``manage.py worker``).

**A task starts at once, or soon, or not at all.** A task is *admitted* (:func:`admit`) when a
worker is free, and only then handed over. Every task declares its *budget*, the most it may
hold a worker (a hint's ``HINT_SECONDS``: its search ends by then); so the pool knows when each
worker is due to be free. When none is free, a task

- waits for one, at most ``SOLVER_WAIT`` seconds (2 by default), if one is due to be free by
  then for it — counting the budgets of the tasks already waiting before it — and if fewer than
  ``SOLVER_QUEUE`` tasks wait already;
- else is refused at once: ``GameError("busy")`` (HTTP 503) with ``Retry-After``, the seconds
  until a worker is due to be free for it (its own budget if none can be told).

A task of no declared budget (a record's build, well under a second) is taken to end any moment:
a task behind it waits, within ``SOLVER_WAIT``. Measured before this rule: a hint queued behind a
day's certification (half a minute) waited its budget plus five seconds, then got 503; every
player asking meanwhile did the same, so hints were refused for over half a minute, each refusal
seven seconds late. Now a hint that cannot start answers 503 in milliseconds.

Admission comes before anything the task's start depends on: a hint counts against its player's
limit (``THROTTLE_HINTS``) only once admitted (``games.services.hint``), so a search refused
``busy`` costs its player nothing, and a search refused by the limit gives its worker back
unused (:meth:`Admission.release`).

**Every task has a deadline.** A task of a budget may run ``SOLVER_WAIT`` seconds beyond it on
its worker (the result's way back); past that, pebble kills the worker and starts another, and
the task's caller gets ``busy``. Its caller waits at most that deadline plus ``SOLVER_WAIT`` more
(a worker's start: a fresh interpreter importing the engine), and a caller that gives up cancels
the task, which ends its worker too: a task of no declared budget ends with its caller's wait.

**What pebble does, and what is this module's own.** Pebble runs the workers: it starts them
(``games.pool_jobs.start_worker`` is their initializer), kills the worker of a task past its
deadline or cancelled while it runs, and starts a new worker for each one killed or dead (a
task whose worker died answers ``busy``). Its ``max_tasks`` (a worker restarted after so many
tasks) is not used: the engine keeps nothing between tasks, and a new worker costs the next
search a second. Three things pebble has not are kept here:

- *admission* (above): pebble queues every task it is given, without limit, behind whatever
  runs; this pool hands it a task only once a worker is free for it, so nothing ever queues
  inside it behind long work;
- *a broken pool replaced*: a worker that dies while no task runs makes pebble declare the whole
  pool broken and take no more tasks; the next task to come starts a new pool (a task handed
  over in the moment before pebble found it broken answers ``busy``);
- *the stop*: pebble's ``stop`` ends the workers but leaves the futures of their tasks pending;
  :func:`stop` cancels them, so that every caller still waiting answers ``busy`` at once.

Why a pool per process rather than the worker tier: a hint is short (seconds), needs nothing but
its arguments, and its player waits for it; it grows with the web tier (each Daphne brings its
workers), and answers without a round trip through the database. ``docs/performance.md`` has the
figures.

Workers are started with ``spawn``: a web process has threads (Twisted's, the database's), and
forking a process with threads can copy a lock held by one of them. They run at a lower
scheduling priority (``SOLVER_NICE``, 10 by default): on a machine with few cores, the CPU goes
to the processes that answer moves first. Each ends with its web process, even one killed with
``kill -9`` (``games.pool_jobs.start_worker``). A web process that stops (SIGTERM) ends its pool
first, searches in flight included, and lets their requests answer ``busy`` (:func:`stopped`).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import math
import multiprocessing
import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from concurrent.futures.process import BrokenProcessPool
from types import TracebackType
from typing import Any, ParamSpec, TypeVar

from django.conf import settings
from django.utils.translation import gettext as _
from pebble import ProcessExpired, ProcessPool

from core.loops import within
from games import pool_jobs
from games.errors import GameError

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

#: Seconds a stopping server gives the callers of a stopped pool to answer (:func:`stopped`).
STOP_SECONDS = 2.0
#: And then seconds for the last of them to finish their answers (the view's way out).
STOP_SETTLE = 0.1


class _Pool:
    """One pebble pool, the tasks it runs (by the time each is due to end), the tasks waiting
    for a worker (by their budgets) in the order they came, and the futures handed to it."""

    def __init__(self, workers: int, queue: int) -> None:
        self.workers = workers
        self.queue = queue
        self.executor = ProcessPool(
            max_workers=workers,
            initializer=pool_jobs.start_worker,
            initargs=(settings.SOLVER_NICE,),
            context=multiprocessing.get_context("spawn"),
        )
        self.changed = threading.Condition()
        #: Admitted tasks: when each is due to end (monotonic seconds).
        self.running: dict[int, float] = {}
        #: Tasks waiting for a worker: their budgets, first come first.
        self.waiting: dict[int, float] = {}
        #: The futures of the tasks handed to the executor and not done.
        self.futures: set[Future[Any]] = set()
        #: Tasks handed over, for the health of the pool (and the tests).
        self.submitted = 0

    def start_at(self, now: float) -> float:
        """When a task coming now would find a worker, by the budgets of the tasks running and
        waiting before it (``now`` if a worker is free). Call with ``changed`` held."""
        due = [*self.running.values(), *[now] * (self.workers - len(self.running))]
        heapq.heapify(due)
        for ahead in self.waiting.values():
            heapq.heappush(due, max(now, heapq.heappop(due)) + ahead)
        return max(now, due[0])

    def admit(self, budget: float | None) -> int:
        """Reserve a worker for a task of ``budget`` (``None``: short, undeclared): its ticket,
        or ``busy`` (see the module's rule)."""
        cost = 0.0 if budget is None else budget
        with self.changed:
            now = time.monotonic()
            limit = now + settings.SOLVER_WAIT
            if self.waiting or len(self.running) >= self.workers:
                start = self.start_at(now)
                if start > limit or len(self.waiting) >= self.queue:
                    # (a worker due now, held by a task of no declared budget: its own budget)
                    raise busy(start - now if start > now else budget)
            ticket = next(_tickets)
            self.waiting[ticket] = cost
            try:
                # A worker for each of the first tasks waiting, in the order they came.
                while list(self.waiting).index(ticket) >= self.workers - len(self.running):
                    left = limit - time.monotonic()
                    if left <= 0:
                        raise busy(budget)
                    self.changed.wait(left)
            finally:
                del self.waiting[ticket]
                self.changed.notify_all()  # (the next one waiting may be first now)
            self.running[ticket] = time.monotonic() + cost
            return ticket

    def start(
        self, ticket: int, budget: float | None, fn: Callable[..., T], *args: Any, **kwargs: Any
    ) -> Future[T]:
        """Hand ``fn`` to the executor on the worker reserved by ``ticket``, with its deadline;
        the ticket is given back when the task ends, however it ends. ``RuntimeError`` if the
        executor is broken or stopped."""
        deadline = None if budget is None else budget + settings.SOLVER_WAIT
        future = self.executor.schedule(fn, args, kwargs, timeout=deadline)
        with self.changed:
            self.submitted += 1
            self.futures.add(future)

        def done(_: Future[T]) -> None:
            with self.changed:
                self.futures.discard(future)
            self.release(ticket)

        future.add_done_callback(done)
        return future

    def release(self, ticket: int) -> None:
        with self.changed:
            self.running.pop(ticket, None)
            self.changed.notify_all()

    def end(self) -> None:
        """End the executor now: its workers killed, and its tasks cancelled, so that every
        caller still waiting gets ``busy`` at once (pebble's ``stop`` leaves them pending)."""
        self.executor.stop()  # type: ignore[no-untyped-call]  # (pebble's, not annotated)
        with self.changed:
            futures = list(self.futures)
        for future in futures:
            future.cancel()
        self.executor.join()


_tickets = itertools.count()
_lock = threading.Lock()
_pool: _Pool | None = None
#: Set by :func:`stop`: the process is stopping, and the pool takes no more tasks.
_stopping = False
#: Callers waiting for a result now (:func:`wait`).
_callers = 0


def _current() -> _Pool:
    """The pool, made if there is none or if pebble found it broken (a worker died while none
    worked); ``busy`` once the process is stopping."""
    global _pool
    with _lock:
        if _stopping:
            raise busy()
        broken = _pool if _pool is not None and not _pool.executor.active else None
        if _pool is None or broken is not None:
            _pool = _Pool(settings.SOLVER_WORKERS, settings.SOLVER_QUEUE)
        pool = _pool
    if broken is not None:
        log.warning("solver pool: the pool broke (a worker died); starting a new one")
        broken.end()
    return pool


def busy(retry_after: float | None = None) -> GameError:
    """The refusal of a task the pool cannot take now: HTTP 503 with ``Retry-After`` (whole
    seconds, at least 1; ``HINT_SECONDS`` if not given)."""
    wait = retry_after if retry_after is not None else settings.HINT_SECONDS
    return GameError(
        "busy",
        _("The server is busy with other searches. Please try again in a moment."),
        retry_after=max(1, math.ceil(wait)),
    )


class Admission:
    """A worker reserved for one task of a budget (:func:`admit`): :meth:`start` the task on it,
    or :meth:`release` it unused. As a context manager, a worker not used by the end of the block
    is released."""

    def __init__(self, budget: float | None) -> None:
        self.budget = budget
        self._pool: _Pool | None = _current()
        self._ticket = self._pool.admit(budget)

    def start(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Hand ``fn(*args, **kwargs)`` (a function of ``games.pool_jobs``) to the reserved worker:
        its future; ``busy`` if the pool broke or stopped since the worker was reserved."""
        pool, self._pool = self._pool, None
        if pool is None:
            raise RuntimeError("this admission was used or released already")
        try:
            return pool.start(self._ticket, self.budget, fn, *args, **kwargs)
        except RuntimeError:  # (pebble's pool is "not active": the next task starts a new one)
            pool.release(self._ticket)
            raise busy(self.budget) from None

    def release(self) -> None:
        """Give the worker back unused (nothing if the task was started)."""
        if self._pool is not None:
            self._pool.release(self._ticket)
            self._pool = None

    def __enter__(self) -> Admission:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def admit(budget: float | None) -> Admission:
    """A worker reserved for a task of ``budget`` seconds (``None``: a short task of no declared
    budget) — now, or within ``SOLVER_WAIT`` if one is due to be free by then — or ``busy`` at
    once. Admit first, then do what the task's start depends on (count it against a limit), then
    :meth:`Admission.start` it."""
    return Admission(budget)


_prestarted = False


def prestart() -> None:
    """Start the pool's workers now, once per process (its first request: ``SOLVER_PRESTART``),
    so that the first search does not wait for a fresh interpreter to start and import the
    engine (about a second). Never waits and never fails: a pool that cannot take the start is
    started by the first search."""
    global _prestarted
    with _lock:
        if _prestarted:
            return
        _prestarted = True
    try:
        submit(pool_jobs.nothing)
    except GameError:
        log.debug("solver pool: not started ahead (busy)")


def submit(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
    """Admit and start ``fn(*args, **kwargs)``, a short task of no declared budget: its future,
    or ``busy``. Its deadline is its caller's :func:`wait`."""
    with admit(None) as admission:
        return admission.start(fn, *args, **kwargs)


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
    """``fn(*args, **kwargs)``, a task of ``budget`` seconds, run in the pool and its result
    waited for (:func:`admit`, :func:`wait`). An exception of the task is raised here."""
    with admit(budget) as admission:
        future = admission.start(fn, *args, **kwargs)
    return wait(future, budget)


def wait(future: Future[T], budget: float) -> T:
    """The result of a task of the pool, or ``busy``: when the task ran past its deadline (its
    ``budget`` plus ``SOLVER_WAIT``), its worker died, the pool broke or stopped, or its result is
    not in within its deadline plus ``SOLVER_WAIT`` (then the task is cancelled: its worker, if it
    had one, is killed and replaced)."""
    global _callers
    with _lock:
        _callers += 1
    try:
        return future.result(timeout=budget + 2 * settings.SOLVER_WAIT)
    except (TimeoutError, CancelledError):  # (past a deadline; or stopped, or given up)
        future.cancel()
        raise busy(budget) from None
    except (ProcessExpired, BrokenProcessPool) as exc:
        log.warning("solver pool: a worker died during a task (%s)", exc)
        raise busy(budget) from None
    finally:
        with _lock:
            _callers -= 1


def _end(stopping: bool) -> None:
    """End the current pool now: the next task starts a new one — or, ``stopping``, none."""
    global _pool, _stopping
    with _lock:
        old, _pool, _stopping = _pool, None, stopping
    if old is not None:
        old.end()


def shutdown() -> None:
    """End the pool now, tasks in flight included (their callers get ``busy``); the next task
    starts a new one, even after :func:`stop` (tests)."""
    _end(stopping=False)


def stop() -> None:
    """End the pool now, for good (a process that stops): it takes no more tasks, and its
    workers are killed — a search in flight included — so that every caller still waiting gets
    ``busy`` at once, and the process's exit waits for no task."""
    _end(stopping=True)


async def stopped(timeout: float = STOP_SECONDS) -> None:
    """:func:`stop` the pool (on a thread: its workers' end is waited for), then wait, without
    holding the event loop, until none of its callers waits any more, at most ``timeout`` seconds
    in all: for a server that stops, so that its event loop still runs while the requests of the
    searches it ended answer ``busy`` (a request's thread that finds the loop gone never ends,
    and holds the process's exit)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    with contextlib.suppress(TimeoutError):
        await within(asyncio.to_thread(stop), timeout)
    while _callers and loop.time() < deadline:
        await asyncio.sleep(0.02)
    await asyncio.sleep(STOP_SETTLE)


def stats() -> dict[str, int]:
    """The pool's workers, capacity and counts of tasks (zeros before its first task):
    ``running`` admitted and not finished, ``waiting`` for a worker."""
    with _lock:
        pool = _pool
    if pool is None:
        return dict.fromkeys(
            ("workers", "capacity", "submitted", "completed", "in_flight", "running", "waiting"), 0
        )
    with pool.changed:
        return {
            "workers": pool.workers,
            "capacity": pool.workers + pool.queue,
            "submitted": pool.submitted,
            "completed": pool.submitted - len(pool.futures),
            "in_flight": len(pool.futures),
            "running": len(pool.running),
            "waiting": len(pool.waiting),
        }
