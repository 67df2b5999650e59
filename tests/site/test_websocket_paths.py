"""A websocket on a path with no route is accepted, told not_found and closed with 4404 — never a
crash of the router (which Daphne answered with 1011)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from channels.testing import WebsocketCommunicator

from canfield_site.asgi import application
from tests.leaderboard.live import HEADERS
from tests.support import Daphne, django_env


@pytest.mark.parametrize(
    "path",
    [
        "/ws/nope/",
        "/ws/daily/../../",  # what Daphne makes of /ws/daily/..%2F../
        "/ws/daily/" + "9" * 41 + "/",  # a date segment over 40 characters
        "/ws/daily/2026-11-29",  # no trailing slash
        "/ws/",
        "/",
        "/api/health/",
    ],
)
def test_it_closes_a_socket_on_a_path_without_a_route(path):
    async def talk() -> tuple[object, object]:
        client = WebsocketCommunicator(application, path, headers=HEADERS)
        connected, _ = await client.connect(timeout=5)
        assert connected
        return await client.receive_json_from(timeout=5), await client.receive_output(timeout=5)

    # In a thread of its own: the browser tests' Playwright leaves an event loop in this one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        frame, closed = pool.submit(asyncio.run, talk()).result()

    assert frame == {"type": "error", "code": "not_found", "message": "No websocket at this path."}
    assert closed == {"type": "websocket.close", "code": 4404}


@pytest.fixture(scope="module")
def daphne(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daphne]:
    work = tmp_path_factory.mktemp("ws-paths")
    with Daphne(django_env(f"sqlite:///{work / 'db.sqlite3'}"), work / "daphne.log") as server:
        yield server


@pytest.mark.parametrize(
    "path", ["/ws/nope/", "/ws/daily/..%2F../", "/ws/daily/" + "%41" * 41 + "/", "/ws/%ff/"]
)
def test_a_live_server_closes_them_too(daphne, path):
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect
    from websockets.typing import Origin

    with connect(
        f"ws://127.0.0.1:{daphne.port}{path}", origin=Origin(daphne.url), open_timeout=10
    ) as socket:
        frame = json.loads(socket.recv(timeout=10))
        with pytest.raises(ConnectionClosed) as closed:
            socket.recv(timeout=10)

    assert frame["code"] == "not_found"
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404
    assert "Exception inside application" not in daphne.output()
