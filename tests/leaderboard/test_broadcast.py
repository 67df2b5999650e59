"""Who publishes the live board: the web process that made the change, on the loop that serves its
connections — or, where no loop serves (a command, a worker's task, the tests' sync client), the
thread that made it, at once. Either way the process starts no thread, loop or pool of its own."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import sysconfig
import threading
import traceback
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from channels.testing import WebsocketCommunicator
from django.core.cache import cache

from canfield_site.asgi import application
from leaderboard.live import broadcast, snapshots
from tests.conftest import token_of
from tests.leaderboard.helpers import attempt, play, player, utc_today
from tests.leaderboard.live import HEADERS
from tests.support import ROOT

# the games signals go out on commit; and on both backends (each_backend)
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.each_backend]

#: Where the standard library lives: its threading, executors and event loops are machinery.
STDLIB = Path(sysconfig.get_paths()["stdlib"])
#: Names of the threads this service's web processes once started of their own.
OWN_THREADS = ("leaderboard-", "daily-deal-keeper", "certify-")


async def group_messages(day: Any, channel: str, until_seq: int) -> list[dict[str, Any]]:
    """The messages of ``day``'s group that ``channel`` received, up to the one of ``until_seq``."""
    layer = get_channel_layer()
    assert layer is not None
    received: list[dict[str, Any]] = []
    while not received or received[-1]["seq"] < until_seq:
        received.append(await asyncio.wait_for(layer.receive(channel), 5))
    return received


def test_a_change_where_no_loop_serves_is_published_before_its_request_returns(owner, owner_api):
    """The sync test client serves no event loop (as a command or a worker's task): the change's
    update is stored and sent before the action's answer, with no window and nothing left
    scheduled."""
    today = utc_today()
    layer = get_channel_layer()
    channel = None
    if not isinstance(layer, InMemoryChannelLayer):  # (it reaches this process's sockets only)
        assert layer is not None
        channel = async_to_sync(layer.new_channel)()
        async_to_sync(layer.group_add)(broadcast.group_name(today), channel)
    game = owner_api.post("/api/daily/").json()
    before = snapshots.current_seq(today)

    answer = owner_api.post(
        f"/api/games/{game['id']}/actions/", {"ply": game["ply"], "action": "R-T2"}, format="json"
    )

    assert answer.status_code == 200
    stored = snapshots.stored(today)
    assert stored is not None and stored["seq"] == snapshots.current_seq(today) == before + 1
    assert [(r["player"], r["actions"]) for r in stored["results"]] == [("owner", 1)]
    assert cache.get(broadcast.dirty_key(today)) is None  # no flush waits for a window
    if channel is not None:
        assert layer is not None
        sent = async_to_sync(group_messages)(today, channel, stored["seq"])
        assert sent[-1]["seq"] == stored["seq"]
        assert json.loads(sent[-1]["snapshot"]) == stored
        async_to_sync(layer.group_discard)(broadcast.group_name(today), channel)


def test_importing_the_asgi_application_starts_no_thread():
    """What Daphne imports: the application, Django set up, every app ready."""
    code = "import threading, canfield_site.asgi; print([t.name for t in threading.enumerate()])"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "canfield_site.settings"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout

    assert out.strip() == "['MainThread']"


async def http(method: str, path: str, token: str = "", body: Any = None) -> int:
    """One HTTP request through the ASGI application, on the running loop: its status."""
    payload = json.dumps(body).encode() if body is not None else b""
    headers = [
        (b"host", b"localhost"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]
    if token:
        headers.append((b"authorization", f"Token {token}".encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8000),
    }
    sent: list[dict[str, Any]] = []
    asked = False

    async def receive() -> dict[str, Any]:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": payload, "more_body": False}
        await asyncio.Event().wait()  # (the client stays connected)
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await application(scope, receive, send)
    return int(sent[0]["status"])


def starter(stack: list[traceback.FrameSummary]) -> str:
    """Who started a thread: the innermost frame of its starting stack outside the standard
    library's threading, executors and event loops."""
    for frame in reversed(stack):
        if not Path(frame.filename).is_relative_to(STDLIB):
            return frame.filename
    return "the standard library"


def test_a_web_process_starts_no_thread_loop_or_pool_of_its_own():
    """A request, a daily action and a watcher's socket, through the ASGI application on one
    event loop, as Daphne serves them: the update reaches the socket, and every thread started
    meanwhile was started by asgiref — the executors behind Django's ``sync_to_async`` (a sync
    view, the broadcaster's database work) and Channels's ``database_sync_to_async``, Django's
    own way of running sync code — none by the site's code."""
    today = utc_today()
    game = attempt(player("ann"), ["R-T2"])
    token = token_of(game.owner)
    started: list[tuple[str, list[traceback.FrameSummary]]] = []
    start = threading.Thread.start

    def recording(thread: threading.Thread) -> None:
        started.append((thread.name, traceback.extract_stack()[:-1]))
        start(thread)

    async def serve() -> dict[str, Any]:
        watcher = WebsocketCommunicator(application, f"/ws/daily/{today}/", headers=HEADERS)
        assert (await watcher.connect(timeout=5))[0]
        snapshot = await watcher.receive_json_from(timeout=5)
        assert await http("GET", "/api/health/") == 200
        action = {"ply": 1, "action": "R-F1"}
        assert await http("POST", f"/api/games/{game.pk}/actions/", token, action) == 200
        update: dict[str, Any] = await watcher.receive_json_from(timeout=5)
        await watcher.disconnect()
        assert update["seq"] == snapshot["seq"] + 1
        return update

    with asyncio.Runner() as runner, mock.patch.object(threading.Thread, "start", recording):
        update = runner.run(serve())

    assert [(r["player"], r["score"]) for r in update["rows"]] == [("ann", 5)]
    assert started  # (the sync view ran in a thread of asgiref's)
    starters = {name: starter(stack) for name, stack in started}
    assert {
        name: who for name, who in starters.items() if not who.endswith("asgiref/sync.py")
    } == {}
    assert not [t.name for t in threading.enumerate() if t.name.startswith(OWN_THREADS)]


def test_a_change_is_flushed_on_the_loop_that_serves_it():
    """With a watcher connected, the test's loop serves: a change made in a thread of it (as a
    sync view's) is flushed there, not published from that thread."""
    today = utc_today()
    game = attempt(player("ann"), ["R-T2"])

    async def serve() -> dict[str, Any]:
        watcher = WebsocketCommunicator(application, f"/ws/daily/{today}/", headers=HEADERS)
        assert (await watcher.connect(timeout=5))[0]
        await watcher.receive_json_from(timeout=5)
        assert broadcast.serving_loop() is asyncio.get_running_loop()
        await database_sync_to_async(play)(game, ["R-F1"])
        update: dict[str, Any] = await watcher.receive_json_from(timeout=5)
        await watcher.disconnect()
        return update

    with mock.patch.object(broadcast, "publish", wraps=broadcast.publish) as publish:
        update = async_to_sync(serve)()

    assert publish.call_count == 0
    assert [(r["player"], r["score"]) for r in update["rows"]] == [("ann", 5)]
    assert broadcast.serving_loop() is None  # (the loop is gone with the test)
