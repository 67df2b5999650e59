"""Sockets that cannot be flooded (``core.socket_limits``, and Daphne's options from
``canfield_site.serve``), against a real Daphne started as every web process is.

The audit's attack — 20 anonymous sockets on today's board sending 1 KB of ``{"type":
"zzz…"}`` in a loop and reading nothing — grew a Daphne by 536 MB in 20 s. Here each such
socket is closed with 4008 after its burst, and the process's memory stays where it was; a frame
over the size limit is dropped as it begins, a message over it in smaller frames closed with
4009; a client that keeps sending within the rate but reads nothing is closed ``not_reading``
once what was sent to it passes ``SOCKET_MAX_PENDING`` (64 KB here) with the site's ping
unanswered, while a watcher of the same day, which answers, keeps getting the day's updates; a
client that sends nothing and reads nothing is dropped by Daphne's ping time-out; a network
holds five sockets here (``SOCKET_MAX_PER_NETWORK``), the sixth is refused with 4429 while
another network is served.

One Daphne serves the module, on a SQLite file whose today has a deal (the rules' worked
example) and a board of 100 players (a snapshot of ~33 KB: past half of 64 KB, so the site pings
right after it); the test of the ping time-out starts another on the same file, pinging after
1 s. The clients come from loopback addresses of their own (``127.x.y.z``: Linux routes the whole
127/8 to the loopback), one network per /24, through ``tests/site/sockets.py``'s client, which
reads only when told to. How fast each limit acts is measured by ``benchmarks/flood.py``; the
bounds here are generous.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator

from core.socket_limits import Credit
from tests.site.sockets import PING, TEXT, RawWebsocket, frame, rss_kib, seed_board
from tests.support import Daphne, django_env, get_json, migrate, post_json, start_daily

#: Players on today's board, with the longest names there are: a snapshot of ~33 KB.
BOARD = 100
PASSWORD = "felt-green-canfield-42"
#: The unread output a socket may leave here (``SOCKET_MAX_PENDING``, its least).
PENDING = 64 * 1024


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The module's folder and environment, on a migrated SQLite file with today's board."""
    work = tmp_path_factory.mktemp("socket-limits")
    env = django_env(
        f"sqlite:///{work / 'db.sqlite3'}",
        SOCKET_MAX_PER_NETWORK="5",
        SOCKET_MAX_PENDING=str(PENDING),
    )
    migrate(env)
    seed_board(env, BOARD)
    return work, env


@pytest.fixture(scope="module")
def daphne(site: tuple[Path, dict[str, str]]) -> Iterator[Daphne]:
    work, env = site
    with Daphne(env, work / "daphne.log") as server:
        yield server


def board_path() -> str:
    return f"/ws/daily/{dt.datetime.now(dt.UTC).date().isoformat()}/"


def snapshot_of(client: RawWebsocket) -> dict[str, Any]:
    frame: dict[str, Any] = json.loads(client.next_text())
    assert frame["type"] == "snapshot", frame
    return frame


def eventually_closed(client: RawWebsocket, within: float, what: str) -> None:
    """Until the server has ended ``client``'s connection (read nothing meanwhile); fails after
    ``within`` seconds."""
    deadline = time.monotonic() + within
    while not client.closed():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_a_flood_of_unknown_messages_is_closed_with_4008_and_leaves_memory_alone(daphne):
    """The audit's attack, 20 sockets at once (one network each), each sending 1 KB unknown
    messages without reading: each is closed with 4008 after its burst, told why."""
    junk = json.dumps({"type": "z" * 1000})
    before = rss_kib(daphne.pid)
    results: list[tuple[list[str], int | None, str]] = []

    def flood(n: int) -> None:
        with RawWebsocket(daphne.port, board_path(), source=f"127.1.{n}.1") as client:
            client.flood(frame(TEXT, junk.encode()), 2000, 10)  # 2 MB, unless stopped first
            results.append(client.read_to_close())

    threads = [threading.Thread(target=flood, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    after = rss_kib(daphne.pid)

    assert len(results) == 20
    for texts, code, _ in results:
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
        assert code == 4008
    # the audit's Daphne grew by 536 MB (20 s of it: benchmarks/flood.py measures that)
    assert after - before < 50 * 1024, f"RSS {before} -> {after} KiB"
    status, _ = get_json(f"{daphne.url}/api/health/")
    assert status == 200


def test_a_flood_of_protocol_pings_is_closed_with_4008_and_leaves_memory_alone(daphne):
    """20 sockets sending protocol pings as fast as they can and reading nothing: Autobahn
    answers each with a pong, which waited in the process (+525 MB until the ping time-out).
    The server counts them as messages (canfield_site.serve): each socket is closed with 4008
    after its burst, and the process keeps its memory."""
    before = rss_kib(daphne.pid)
    results: list[tuple[list[str], int | None, str]] = []

    def flood(n: int) -> None:
        with RawWebsocket(daphne.port, board_path(), source=f"127.2.{n}.1") as client:
            client.flood(frame(PING, b"p" * 100), 20_000, 100)
            results.append(client.read_to_close())

    threads = [threading.Thread(target=flood, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    after = rss_kib(daphne.pid)

    assert len(results) == 20
    assert [(code, reason) for _, code, reason in results] == [(4008, "too_many_messages")] * 20
    assert after - before < 50 * 1024, f"RSS {before} -> {after} KiB"
    assert get_json(f"{daphne.url}/api/health/")[0] == 200


def test_a_frame_over_the_size_limit_is_dropped_as_it_begins(daphne):
    """Daphne's largest frame is SOCKET_MAX_MESSAGE (4096), not its own 1 MB: the connection
    ends with nothing more sent — where a frame the server took whole would be answered with an
    error frame and a close."""
    with RawWebsocket(daphne.port, board_path(), source="127.3.1.1") as client:
        snapshot_of(client)
        client.send_text(json.dumps({"type": "resync", "pad": "x" * 5000}))
        texts, code, _ = client.read_to_close()

    assert (texts, code) == ([], None)
    assert get_json(f"{daphne.url}/api/health/")[0] == 200


def test_a_message_over_the_size_limit_in_smaller_frames_is_closed_with_4009(daphne):
    """Two frames, each within the limit: the message reaches the ASGI layer whole, which
    counts it and closes the socket, told why."""
    with RawWebsocket(daphne.port, board_path(), source="127.3.2.1") as client:
        snapshot_of(client)
        message = json.dumps({"type": "resync", "pad": "x" * 5000}).encode()
        client.send_text(message[:2600], fin=False)
        client.send_text(message[2600:], first=False)
        texts, code, _ = client.read_to_close()

    assert [json.loads(text) for text in texts] == [
        {"type": "error", "code": "too_large", "message": "A message is at most 4096 bytes."}
    ]
    assert code == 4009


@pytest.mark.parametrize("answer", ["right", "wrong"])
def test_a_socket_that_answers_its_ping_is_served_and_one_that_does_not_is_closed(daphne, answer):
    """A snapshot takes the socket past half of its 64 KB: it is pinged. Answered with the ping's
    number, the next snapshot comes (and its own ping); answered with another number, the next
    snapshot would pass 64 KB unanswered: the socket is closed ``not_reading``, told why."""
    source = f"127.7.{1 if answer == 'right' else 2}.1"
    with RawWebsocket(daphne.port, board_path(), source=source) as client:
        snapshot_of(client)
        frames = client.frames()
        opcode, payload = next(frames)
        ping = json.loads(payload)
        assert set(ping) == {"type", "n"} and ping["type"] == "ping"
        number = ping["n"] if answer == "right" else ping["n"] + 1
        client.send_text(json.dumps({"type": "pong", "n": number}))
        client.send_text('{"type": "resync"}')
        if answer == "right":
            assert json.loads(client.next_text(timeout=30))["type"] == "snapshot"
            client.send_text('{"type": "resync"}')  # (too soon: answered, and still open)
            assert json.loads(client.next_text())["code"] == "throttled"
            assert client.pongs == 1  # the second snapshot's ping, answered on the way
            return
        # (a bound generous for a machine busy with other servers and browsers)
        texts, code, _ = client.read_to_close(timeout=30)

    assert [json.loads(text) for text in texts] == [
        {
            "type": "error",
            "code": "not_reading",
            "message": "What was sent to this connection went unread: it is closed.",
        }
    ]
    assert code == 4008


def test_a_client_that_sends_but_never_reads_is_closed_while_a_watcher_keeps_getting_updates(
    daphne,
):
    with RawWebsocket(daphne.port, board_path(), source="127.4.0.1") as watcher:
        assert len(snapshot_of(watcher)["results"]) == BOARD
        # small TCP buffers, as a far client's: the kernels hold little of what it leaves unread
        slow = RawWebsocket(
            daphne.port, board_path(), source="127.4.1.1", receive_buffer=2048, segment=536
        )
        with slow:
            asked = 0
            while not slow.closed():
                assert asked < 40, "a client that reads nothing was never closed"
                slow.send_text('{"type": "resync"}')  # ~33 KB of snapshot each, never read
                asked += 1
                watcher.read_for(1.05)  # (one resync a second: within the rate)
        # closed for what it left unread, and the process says so
        assert "websocket: ['127.4.1.1'," in daphne.output()
        assert f"left over {PENDING} bytes unread; closed (not_reading)" in daphne.output()

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
        assert watcher.pongs >= 1  # (its snapshot's ping, answered as it read on)


def test_a_quiet_client_that_reads_nothing_is_dropped_by_the_ping_timeout(site):
    """Daphne pings a socket quiet for SOCKET_PING_INTERVAL (1 s here) and drops it when no
    answer came within SOCKET_PING_TIMEOUT (1 s): a client that reads nothing never answers;
    one that reads, quiet as well, is pinged and stays."""
    work, env = site
    quick = {**env, "SOCKET_PING_INTERVAL": "1", "SOCKET_PING_TIMEOUT": "1"}
    with Daphne(quick, work / "quick-pings.log") as server:
        silent = RawWebsocket(server.port, board_path(), source="127.8.1.1")
        reading = RawWebsocket(server.port, board_path(), source="127.8.2.1")
        with silent, reading:
            pings = 0
            deadline = time.monotonic() + 30
            while not silent.closed() or pings < 2:
                assert time.monotonic() < deadline, ("pinged", pings, "dropped", silent.closed())
                try:
                    for opcode, _ in reading.frames(timeout=0.5):
                        pings += opcode == PING  # (each answered as it is read)
                except TimeoutError:
                    pass
            assert not reading.closed()


def test_a_network_holds_five_sockets_and_another_network_is_served(daphne):
    opened = [RawWebsocket(daphne.port, board_path(), source=f"127.5.0.{n}") for n in range(1, 6)]
    try:
        for client in opened:
            snapshot_of(client)
        with RawWebsocket(daphne.port, board_path(), source="127.5.0.6") as sixth:
            texts, code, _ = sixth.read_to_close()
        assert [json.loads(text) for text in texts] == [
            {
                "type": "error",
                "code": "too_many_sockets",
                "message": "Too many live connections from your network: try again later.",
            }
        ]
        assert code == 4429
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


# --- The count of unread output --------------------------------------------------------------


def test_the_credit_pings_past_half_and_refuses_past_the_whole_until_answered():
    credit = Credit(1000)

    assert credit.count(500) is None  # half: no ping yet
    first = credit.count(1)
    assert isinstance(first, int)
    assert credit.count(400) is None  # (one ping awaited at a time)
    assert credit.allows(99) and not credit.allows(100)  # 901 sent: up to 1000 with it unanswered
    assert not credit.answered(first + 1) and not credit.answered(str(first))
    assert not credit.allows(100)

    assert credit.answered(first)
    assert credit.sent == 400  # what was sent after the ping
    assert credit.allows(10_000)  # nothing awaited: no bound until the next ping
    second = credit.count(101)
    assert isinstance(second, int) and second != first
    assert not credit.answered(first)  # an old number answers nothing


# --- In the process: a pong, and nothing of a socket once it is gone -------------------------


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


def test_a_pong_never_reaches_the_consumer(transactional_db):
    """The board's consumer answers a message it does not know with ``unknown_type``; a pong,
    whatever its number, is taken by the limits' layer: the next frame is the answer to the
    client's own ping."""

    async def exchange() -> list[Any]:
        client = await connected("192.0.2.7")
        for text in ('{"type": "pong", "n": 12}', '{"type":"pong"}', '{"type": "ping"}'):
            await client.send_input({"type": "websocket.receive", "text": text})
        answer = json.loads((await client.receive_output(5))["text"])
        await client.send_input({"type": "websocket.disconnect", "code": 1000})
        await client.wait(5)
        return [answer]

    assert async_to_sync(exchange)() == [{"type": "pong"}]


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
        await flooding.send_input({"type": "websocket.disconnect", "code": 4008})
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
    assert seen["close"] == {"type": "websocket.close", "code": 4008, "reason": "too_many_messages"}
    assert (seen["counted after"], seen["watched after"]) == ({}, {})


@pytest.mark.parametrize("text", ["é" * 3000, "x" * 1_000_000])
def test_any_server_refuses_a_message_over_the_limit_unread(transactional_db, text):
    """Whatever server delivers it (here, the application itself), the limit counts bytes:
    3,000 characters of two bytes each are over 4,096."""

    async def exchange() -> tuple[list[Any], dict[str, Any]]:
        client = await connected("198.51.100.7")
        await client.send_input({"type": "websocket.receive", "text": text})
        return await until_closed(client)

    frames, close = async_to_sync(exchange)()

    assert frames == [
        {"type": "error", "code": "too_large", "message": "A message is at most 4096 bytes."}
    ]
    assert close == {"type": "websocket.close", "code": 4009, "reason": "too_large"}


def test_a_send_on_a_connection_closed_under_it_ends_the_socket_quietly(transactional_db):
    """A server raises on a send to a connection that has closed (ASGI: an ``OSError`` of its
    own; Daphne, while a close it began is under way: Autobahn's ``Disconnected``, a
    ``RuntimeError``) — here, the client gone before its snapshot. The application is told the
    socket is gone and ends, nothing more is sent, and the network's count is given back: where
    the error went up through the application and Daphne logged it, a traceback for each socket
    that flooded pings before its snapshot was sent."""
    from canfield_site.asgi import application, websocket_limits

    scope = in_process("192.0.2.9").scope
    sent: list[str] = []

    async def serve(gone: type[Exception]) -> None:
        incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        await incoming.put({"type": "websocket.connect"})

        async def send(message: dict[str, Any]) -> None:
            sent.append(message["type"])
            if message["type"] == "websocket.send":
                raise gone("the connection has closed")

        await asyncio.wait_for(application(scope, incoming.get, send), 10)

    for gone in (ConnectionResetError, RuntimeError):
        sent.clear()
        async_to_sync(serve)(gone)
        assert sent == ["websocket.accept", "websocket.send"]
        assert websocket_limits.sockets == {}
