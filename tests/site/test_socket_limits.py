"""Sockets that cannot be flooded (``core.socket_limits``), against a real Daphne.

The audit's attack — 20 anonymous sockets on today's board sending 1 KB of ``{"type":
"zzz…"}`` in a loop and reading nothing — grew a Daphne by 536 MB in 20 s. Here each such
socket is closed with 1008 after its burst, and the process's memory stays where it was; a
message over the size limit is closed with 1009; a client that reads nothing is dropped once
its unread output passes ``SOCKET_MAX_PENDING``, while a watcher of the same day keeps getting
the day's updates; a network holds five sockets here (``SOCKET_MAX_PER_NETWORK``), the sixth is
refused with 4429 while another network is served; pings count like messages; and a request whose
headers or body never finish is answered 408 and dropped (``HTTP_HEADER_TIMEOUT``,
``HTTP_BODY_TIMEOUT``, 2 s here), whatever bytes keep trickling in.

One Daphne serves the module, on a SQLite file whose today has a deal (the rules' worked
example) and a board of 100 players. The clients come from loopback addresses of their own
(``127.x.y.z``: Linux routes the whole 127/8 to the loopback), one network per /24, through
``tests/site/sockets.py``'s client, which reads only when told to. How fast each limit acts is
measured by ``benchmarks/flood.py``; the bounds here are generous.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator

from tests.site.sockets import RawWebsocket, rss_kib, seed_board
from tests.support import Daphne, django_env, get_json, migrate, post_json, start_daily

#: Players on today's board, with the longest names there are: a snapshot of ~37 KB.
BOARD = 100
PASSWORD = "felt-green-canfield-42"

pytestmark = pytest.mark.backend_free  # its own Daphne and SQLite file


@pytest.fixture(scope="module")
def daphne(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daphne]:
    work = tmp_path_factory.mktemp("socket-limits")
    env = django_env(
        f"sqlite:///{work / 'db.sqlite3'}",
        SOCKET_MAX_PER_NETWORK="5",
        SOCKET_MAX_PENDING=str(64 * 1024),
        HTTP_HEADER_TIMEOUT="2",
        HTTP_BODY_TIMEOUT="2",
    )
    migrate(env)
    seed_board(env, BOARD)
    with Daphne(env, work / "daphne.log") as server:
        yield server


def board_path() -> str:
    return f"/ws/daily/{dt.datetime.now(dt.UTC).date().isoformat()}/"


def snapshot_of(client: RawWebsocket) -> dict[str, Any]:
    frame: dict[str, Any] = json.loads(client.next_text())
    assert frame["type"] == "snapshot", frame
    return frame


def test_a_flood_of_unknown_messages_is_closed_with_1008_and_leaves_memory_alone(daphne):
    """The audit's attack, 20 sockets at once (one network each), each sending 1 KB unknown
    messages without reading: each is closed with 1008 after its burst, told why."""
    junk = json.dumps({"type": "z" * 1000})
    before = rss_kib(daphne.pid)
    results: list[tuple[list[str], int | None, str]] = []

    def flood(n: int) -> None:
        with RawWebsocket(daphne.port, board_path(), source=f"127.1.{n}.1") as client:
            try:
                for _ in range(2000):  # 2 MB, unless the server stops it first
                    client.send_text(junk)
            except OSError:  # (reset: the server is done with it)
                pass
            results.append(client.read_to_close())

    threads = [threading.Thread(target=flood, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    after = rss_kib(daphne.pid)

    assert len(results) == 20
    for texts, code, reason in results:
        frames = [json.loads(text) for text in texts]
        # Before it: at most its burst answered, one by one (or its snapshot, if its
        # connection was made before the burst was spent).
        assert len(frames) <= 1 + 20 + 5
        assert {frame.get("code", frame["type"]) for frame in frames[:-1]} <= {
            "snapshot",
            "unknown_type",
        }
        assert frames[-1] == {
            "type": "error",
            "code": "too_many_messages",
            "message": "Too many messages: at most 20 at once.",
        }
        assert (code, reason) == (1008, "too_many_messages")
    # the audit's Daphne grew by 536 MB (20 s of it: benchmarks/flood.py measures that)
    assert after - before < 40 * 1024, f"RSS {before} -> {after} KiB"
    status, _ = get_json(f"{daphne.url}/api/health/")
    assert status == 200


def test_pings_count_like_messages(daphne):
    with RawWebsocket(daphne.port, board_path(), source="127.2.0.1") as client:
        snapshot_of(client)
        for _ in range(200):
            client.send_ping(b"x" * 125)
        pongs = closes = 0
        for opcode, payload in client.frames():
            pongs += opcode == 10
            if opcode == 8:
                closes += 1
                assert payload == b"\x03\xf0too_many_messages"  # 1008
    assert closes == 1
    assert 20 <= pongs <= 25


@pytest.mark.parametrize("fragments", [1, 2])
def test_a_message_over_the_size_limit_is_closed_with_1009(daphne, fragments):
    """In one frame, Daphne fails the socket as its header arrives; in two (each within the
    limit), the limit counts the whole message."""
    with RawWebsocket(daphne.port, board_path(), source=f"127.3.{fragments}.1") as client:
        snapshot_of(client)
        message = json.dumps({"type": "resync", "pad": "x" * 5000}).encode()
        if fragments == 1:
            client.send_text(message)
        else:
            client.send_text(message[:2600], fin=False)
            client.send_text(message[2600:], first=False)
        texts, code, reason = client.read_to_close()

    assert code == 1009
    if fragments == 2:
        assert [json.loads(text) for text in texts] == [
            {"type": "error", "code": "too_large", "message": "A message is at most 4096 bytes."}
        ]
        assert reason == "too_large"


def test_a_client_that_reads_nothing_is_dropped_while_a_watcher_keeps_getting_updates(daphne):
    with RawWebsocket(daphne.port, board_path(), source="127.4.0.1") as watcher:
        assert len(snapshot_of(watcher)["results"]) == BOARD
        # small TCP buffers, as a far client's: the kernels hold little of what it leaves unread
        slow = RawWebsocket(
            daphne.port, board_path(), source="127.4.1.1", receive_buffer=2048, segment=536
        )
        with slow:
            asked = 0
            while not slow.closed():
                assert asked < 40, "a client that reads nothing was never dropped"
                slow.send_text('{"type": "resync"}')  # ~37 KB of snapshot each, never read
                asked += 1
                time.sleep(1.05)  # (one resync a second)
        # dropped for what it left unread, and the process says so
        assert "websocket: ['127.4.1.1'," in daphne.output()
        assert "bytes unread; closed" in daphne.output()

        name = f"p{secrets.token_hex(5)}"
        status, body = post_json(
            f"{daphne.url}/api/auth/signup/", {"username": name, "password": PASSWORD}
        )
        assert status == 201, body
        status, game = start_daily(daphne.url, body["token"])
        assert status == 201, game
        status, game = post_json(
            f"{daphne.url}/api/games/{game['id']}/actions/",
            {"ply": game["ply"], "action": "R-T2"},
            body["token"],
        )
        assert status == 200, game
        while True:
            frame = json.loads(watcher.next_text())
            if frame["type"] == "update" and name in {row["player"] for row in frame["rows"]}:
                break


def test_a_network_holds_five_sockets_and_another_network_is_served(daphne):
    opened = [RawWebsocket(daphne.port, board_path(), source=f"127.5.0.{n}") for n in range(1, 6)]
    try:
        for client in opened:
            snapshot_of(client)
        with RawWebsocket(daphne.port, board_path(), source="127.5.0.6") as sixth:
            texts, code, reason = sixth.read_to_close()
        assert [json.loads(text) for text in texts] == [
            {
                "type": "error",
                "code": "too_many_sockets",
                "message": "Too many live connections from your network: try again later.",
            }
        ]
        assert (code, reason) == (4429, "too_many_sockets")
        with RawWebsocket(daphne.port, board_path(), source="127.5.1.1") as other:
            snapshot_of(other)

        opened.pop().close()  # one of the five leaves: its place is free again
        deadline = time.monotonic() + 10
        while True:
            with RawWebsocket(daphne.port, board_path(), source="127.5.0.7") as again:
                frame = json.loads(again.next_text())
            if frame["type"] == "snapshot":
                break
            assert frame["code"] == "too_many_sockets" and time.monotonic() < deadline
            time.sleep(0.1)  # (the server has not seen the close yet)
    finally:
        for client in opened:
            client.close()


def raw_request(port: int, source: str) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
    connection.settimeout(30)
    return connection


def answer_while_trickling(connection: socket.socket, trickle: bytes) -> bytes:
    """Send ``trickle`` a byte every 0.2 s until the server ends the connection: what it
    answered (the test fails if the server is still reading when the trickle runs out)."""
    answer = b""
    connection.setblocking(False)
    for byte in trickle:
        try:
            connection.sendall(bytes([byte]))
        except BlockingIOError:
            pass
        except OSError:  # (reset)
            return answer
        time.sleep(0.2)
        try:
            while chunk := connection.recv(4096):
                answer += chunk
            return answer  # the end of the connection
        except BlockingIOError:
            continue
        except OSError:
            return answer
    raise AssertionError(f"still reading after {len(trickle) * 0.2:.0f} s of trickle")


def test_headers_that_trickle_in_are_answered_408_and_dropped(daphne):
    with raw_request(daphne.port, "127.6.0.1") as connection:
        connection.sendall(b"GET /api/health/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        answer = answer_while_trickling(connection, b"a" * 80)
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer


def test_a_body_that_trickles_in_is_answered_408_and_dropped(daphne):
    with raw_request(daphne.port, "127.6.0.2") as connection:
        connection.sendall(
            b"POST /api/auth/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
        )
        answer = answer_while_trickling(connection, b" " * 80)
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer


def test_a_connection_that_sends_nothing_is_closed(daphne):
    with raw_request(daphne.port, "127.6.0.3") as connection:
        assert connection.recv(4096) == b""  # (within HTTP_HEADER_TIMEOUT; 30 s at most here)


def test_a_request_in_time_is_answered_and_the_connection_kept(daphne):
    with raw_request(daphne.port, "127.6.0.4") as connection:
        for _ in range(2):
            connection.sendall(b"GET /api/health/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert connection.recv(4096).startswith(b"HTTP/1.1 200 OK\r\n")


# --- In the process --------------------------------------------------------------------------


def test_daphne_still_makes_what_the_adapter_replaces():
    """core.socket_limits.limit_daphne_connections gives Daphne's factories subclasses
    by their names in daphne.server, and its channel overrides steps of Twisted's: if Daphne or
    Twisted change those, this says so (the live tests above would fail less clearly)."""
    import importlib
    import inspect

    from twisted.web import http

    import canfield_site.asgi  # noqa: F401  (the adapter applied)

    server: Any = importlib.import_module("daphne.server")  # (untyped)
    run = inspect.getsource(server.Server.run)
    assert "self.http_factory = HTTPFactory(self)" in run
    assert "self.ws_factory = WebSocketFactory(self" in run
    assert server.HTTPFactory.limits_connections
    assert server.WebSocketFactory.protocol.__name__ == "BoundedWebSocketProtocol"
    for step in ("resetTimeout", "allHeadersReceived", "allContentReceived", "timeoutConnection"):
        assert callable(getattr(http.HTTPChannel, step)), step
    assert "self.resetTimeout()" in inspect.getsource(http.HTTPChannel.dataReceived)
    assert "self.setTimeout(None)" in inspect.getsource(http.HTTPChannel.allContentReceived)


# --- In the process: nothing is kept of a socket once it is gone ---------------------------


def in_process(address: str) -> ApplicationCommunicator:
    """A socket on today's board through the ASGI application itself, from ``address``."""
    from canfield_site.asgi import application

    scope = {
        "type": "websocket",
        "path": f"/ws/daily/{dt.datetime.now(dt.UTC).date().isoformat()}/",
        "headers": [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")],
        "client": (address, 50000),
        "subprotocols": [],
    }
    return ApplicationCommunicator(application, scope)


async def connected(address: str) -> ApplicationCommunicator:
    client = in_process(address)
    await client.send_input({"type": "websocket.connect"})
    assert (await client.receive_output(5))["type"] == "websocket.accept"
    assert '"type":"snapshot"' in (await client.receive_output(5))["text"]
    return client


async def until_closed(client: ApplicationCommunicator) -> tuple[list[Any], dict[str, Any]]:
    """The frames ``client`` is sent, and its close."""
    frames = []
    while (message := await client.receive_output(5))["type"] != "websocket.close":
        frames.append(json.loads(message["text"]))
    return frames, message


def test_nothing_of_a_socket_is_kept_after_it_closes(transactional_db):
    from canfield_site.asgi import websocket_limits
    from leaderboard.live.fanout import Hub

    async def exchange() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        quiet, flooding = await connected("203.0.113.7"), await connected("203.0.113.8")
        seen["counted"] = dict(websocket_limits.sockets)
        seen["watched"] = {str(day): len(sockets) for day, sockets in Hub.current().sockets.items()}
        zzz = {"type": "websocket.receive", "text": '{"type": "zzz"}'}
        await flooding.send_input(zzz)
        seen["answer"] = json.loads((await flooding.receive_output(5))["text"])["code"]
        for _ in range(30):  # at once: more than its burst waits
            await flooding.send_input(zzz)
        seen["frames"], seen["close"] = await until_closed(flooding)
        await flooding.send_input({"type": "websocket.disconnect", "code": 1008})
        await flooding.wait(5)
        await quiet.send_input({"type": "websocket.disconnect", "code": 1001})
        await quiet.wait(5)
        seen["counted after"] = dict(websocket_limits.sockets)
        seen["watched after"] = dict(Hub.current().sockets)
        return seen

    seen = async_to_sync(exchange)()

    assert seen["counted"] == {"203.0.113.0/24": 2}
    assert seen["watched"] == {dt.datetime.now(dt.UTC).date().isoformat(): 2}
    assert seen["answer"] == "unknown_type"
    assert seen["frames"] == [
        {
            "type": "error",
            "code": "too_many_messages",
            "message": "Too many messages: at most 20 at once.",
        }
    ]
    assert seen["close"] == {"type": "websocket.close", "code": 1008, "reason": "too_many_messages"}
    assert (seen["counted after"], seen["watched after"]) == ({}, {})


@pytest.mark.parametrize("text", ["é" * 3000, "x" * 1_000_000])
def test_any_server_refuses_a_message_over_the_limit_unread(transactional_db, text):
    """Without Daphne's frame limit (here, the application itself), the limit counts bytes:
    3,000 characters of two bytes each are over 4,096."""

    async def exchange() -> tuple[list[Any], dict[str, Any]]:
        client = await connected("198.51.100.7")
        await client.send_input({"type": "websocket.receive", "text": text})
        return await until_closed(client)

    frames, close = async_to_sync(exchange)()

    assert frames == [
        {"type": "error", "code": "too_large", "message": "A message is at most 4096 bytes."}
    ]
    assert close == {"type": "websocket.close", "code": 1009, "reason": "too_large"}
