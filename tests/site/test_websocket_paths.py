"""A websocket on a path with no route is accepted, told not_found and closed with 4404 — never a
crash of the router (which Daphne answered with 1011)."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from canfield_site.asgi import application
from tests.leaderboard.live import HEADERS, run


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
@run
async def test_it_closes_a_socket_on_a_path_without_a_route(path):
    client = WebsocketCommunicator(application, path, headers=HEADERS)
    connected, _ = await client.connect(timeout=5)
    assert connected

    frame = await client.receive_json_from(timeout=5)
    closed = await client.receive_output(timeout=5)

    assert frame == {"type": "error", "code": "not_found", "message": "No websocket at this path."}
    assert closed == {"type": "websocket.close", "code": 4404}
