"""A web process stops fast and leaves nothing behind: real Daphne processes, each with its solver
pool started (a hint), on one migrated SQLite file.

- SIGTERM (``docker stop``, whose grace is 10 s): it exits within that grace, with a live-board
  socket open and a search in flight — whose request answers 503 ``busy`` — and its pool's
  workers end with it. (Before: a Daphne stopped during a hint never exited: the request's thread
  waited for an event loop that was gone.)
- ``kill -9``: its pool's workers, which it could not stop, end by themselves within seconds
  (``games.pool_jobs.start_worker``). (Before: they ran on for good, adopted by init.)
"""

from __future__ import annotations

import datetime as dt
import os
import secrets
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support import Daphne, django_env, get_json, migrate, post_json

PASSWORD = "felt-green-canfield-42"
#: A deal the solver proves lost at once: a hint that starts the pool and ends in a moment.
LOST = "CF1-D3-QJQSXIA"
#: Another, for a test on the same database as the one that proved LOST.
ANOTHER_LOST = "CF1-D3-ANOKQUA"
#: A deal the solver cannot tell in seconds: a hint that searches for its whole budget.
HARD = "CF1-D3-OMQHOSD"
#: Seconds ``docker stop`` waits after SIGTERM before it kills the process.
STOP_GRACE = 10


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    work = tmp_path_factory.mktemp("server-stop")
    env = django_env(f"sqlite:///{work / 'db.sqlite3'}", THROTTLE_HINTS="off", HINT_SECONDS="5")
    migrate(env)
    return env


def children(pid: int) -> set[int]:
    """The processes ``pid`` started that still run, from every thread of it."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(child) for child in (task / "children").read_text().split()}
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended and not yet reaped by its new parent, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in {"Z", "X"}


def cpu_ticks(pid: int) -> int:
    """The CPU time ``pid`` has used so far, in clock ticks (0 once it ended)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0
    return int(fields[11]) + int(fields[12])  # (utime and stime)


def at_work(pids: set[int], within: float) -> bool:
    """Whether one of ``pids`` uses a tenth of a second of CPU within ``within`` seconds: a
    pool's worker searching (an idle one waits for its next task and uses none)."""
    tenth = os.sysconf("SC_CLK_TCK") // 10
    before = {pid: cpu_ticks(pid) for pid in pids}
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if any(cpu_ticks(pid) - before[pid] >= tenth for pid in pids):
            return True
        time.sleep(0.05)
    return False


def still_alive(pids: set[int], within: float) -> set[int]:
    deadline = time.monotonic() + within
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return {pid for pid in pids if alive(pid)}


def player(url: str) -> str:
    name = f"p{secrets.token_hex(5)}"
    post_json(f"{url}/api/auth/signup/", {"username": name, "password": PASSWORD})
    status, body = post_json(f"{url}/api/auth/login/", {"username": name, "password": PASSWORD})
    assert status == 200, body
    return str(body["token"])


def hint_on(url: str, token: str, code: str) -> tuple[int, Any]:
    status, game = post_json(f"{url}/api/games/", {"code": code}, token)
    assert status == 201, game
    return get_json(f"{url}/api/games/{game['id']}/hint/", token)


def pool_started(daphne: Daphne, token: str, code: str = LOST) -> set[int]:
    """Start the process's solver pool with a hint on the deal ``code``, lost from its start (a
    deal no search has proved yet: a position any game's search proved is a lookup, which starts
    no pool): its children (the pool's worker, and multiprocessing's resource tracker)."""
    lost = {"outcome": "no_win", "action": None, "remaining": None, "proved": True, "undo": None}
    assert hint_on(daphne.url, token, code) == (200, lost)
    assert daphne.process is not None
    started = children(daphne.process.pid)
    commands = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in started]
    assert any(b"spawn_main" in command for command in commands), commands  # a pool's worker
    return started


def test_a_daphne_stops_within_docker_stops_grace_with_a_socket_open_and_a_search_in_flight(
    env, tmp_path
):
    from websockets.sync.client import connect
    from websockets.typing import Origin

    log = tmp_path / "daphne.log"
    with Daphne(env, log) as daphne:
        assert daphne.process is not None
        token = player(daphne.url)
        workers = pool_started(daphne, token)
        today = dt.datetime.now(dt.UTC).date()
        url = f"ws://127.0.0.1:{daphne.port}/ws/daily/{today}/"
        with connect(url, origin=Origin(daphne.url), open_timeout=10) as socket:
            assert '"type":"snapshot"' in str(socket.recv(timeout=10))
            answers: list[tuple[int, Any]] = []
            searching = threading.Thread(
                target=lambda: answers.append(hint_on(daphne.url, token, HARD))
            )
            searching.start()
            assert at_work(workers, within=10)  # its search of 5 s is under way

            daphne.process.send_signal(signal.SIGTERM)
            try:
                daphne.process.wait(timeout=STOP_GRACE)
            except subprocess.TimeoutExpired:
                pytest.fail(f"still running {STOP_GRACE} s after SIGTERM")
            searching.join(timeout=10)

    assert daphne.process.returncode == 0
    assert len(answers) == 1 and answers[0][0] == 503, answers  # answered, not cut off
    assert answers[0][1]["code"] == "busy"
    assert still_alive(workers, within=5) == set()
    assert failures(log.read_text()) == []


#: Django's own race as a server stops (django.core.handlers.asgi, ``handle``): the request's
#: disconnect and its response can finish together, and then the disconnect listener's
#: ``RequestAborted`` is never retrieved; asyncio logs it as the task is collected. Nothing of the
#: site's: the request was answered (503 ``busy``, asserted above).
DJANGO_ABORT = (
    "in listen_for_disconnect\n    raise RequestAborted()\ndjango.core.exceptions.RequestAborted"
)


def failures(log: str) -> list[str]:
    """The tracebacks of a server's log, but Django's race at a stop (:data:`DJANGO_ABORT`)."""
    blocks = log.split("Traceback (most recent call last):")[1:]
    return [block for block in blocks if DJANGO_ABORT not in block]


def test_a_daphne_killed_with_kill_9_leaves_no_solver_worker_behind(env, tmp_path):
    with Daphne(env, tmp_path / "daphne.log") as daphne:
        assert daphne.process is not None
        workers = pool_started(daphne, player(daphne.url), ANOTHER_LOST)

        daphne.process.kill()
        daphne.process.wait(timeout=10)

        assert still_alive(workers, within=5) == set()
