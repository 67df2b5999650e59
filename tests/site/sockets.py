"""A websocket client over a bare TCP socket, for the tests and benchmark of the sockets' limits
(tests/site/test_socket_limits.py, benchmarks/flood.py): it reads only when told to — so that
a client that reads nothing is exactly that — and may come from any loopback address
(``127.x.y.z``: a network of its own) with small TCP buffers, as a far client's are.

A client that reads answers the server's pings as a browser does. Daphne's protocol pings (sent
to a socket quiet for ``SOCKET_PING_INTERVAL``) are answered by :meth:`RawWebsocket.frames` as
it reads them. The site's own ping, ``{"type": "ping", "n"}``, sent once more than half of
``SOCKET_MAX_PENDING`` bytes went to a socket, must come back as ``{"type": "pong", "n"}`` before
the count passes ``SOCKET_MAX_PENDING``, or the socket is closed 4008 ``not_reading``
(``core.socket_limits``): :meth:`RawWebsocket.next_text` and :meth:`RawWebsocket.read_to_close`
answer it and pass over it, and :func:`pong_for` gives the answer to any client that reads
frames itself (the benchmarks' ``websockets`` clients).

Standard library only. Frames are masked with a zero key (any key is valid; this one leaves the
payload as it is, so a flood costs the client nothing to build).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Opcodes (RFC 6455).
TEXT, BINARY, CLOSE, PING, PONG, CONTINUATION = 1, 2, 8, 9, 10, 0
#: ``TCP_INFO``'s first byte (the connection's state) once the server has ended it: reset
#: (or both sides done), or closed its side (what it sent may still be unread).
TCP_CLOSE, TCP_CLOSE_WAIT = 7, 8


class Refused(Exception):
    """The server answered the upgrade with something other than 101."""

    def __init__(self, status: int, head: bytes) -> None:
        super().__init__(f"upgrade refused: {status} {head[:200]!r}")
        self.status = status


def server_ended(connection: socket.socket) -> bool:
    """Whether the server has reset ``connection`` or closed its side of it (from the kernel's
    state of it: nothing is read)."""
    state = connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0]
    return state in (TCP_CLOSE, TCP_CLOSE_WAIT)


def pong_for(text: str | bytes) -> str | None:
    """The answer to a server's ping (``{"type": "ping", "n": 7}`` → ``{"type": "pong", "n":
    7}``), or ``None`` when ``text`` is another frame."""
    if b'"ping"' not in (text if isinstance(text, bytes) else text.encode()):
        return None
    try:
        message = json.loads(text)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("type") != "ping" or "n" not in message:
        return None
    return json.dumps({"type": "pong", "n": message["n"]})


def frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    """One client frame (masked with a zero key)."""
    first = (0x80 if fin else 0) | opcode
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", first, 0x80 | size)
    elif size < 1 << 16:
        head = struct.pack("!BBH", first, 0x80 | 126, size)
    else:
        head = struct.pack("!BBQ", first, 0x80 | 127, size)
    return head + b"\0\0\0\0" + payload


class RawWebsocket:
    """``RawWebsocket(port, "/ws/daily/2026-01-01/", source="127.0.5.1")``: connected and
    upgraded (raises :class:`Refused` otherwise); then ``send_text``, ``send_ping``,
    ``frames()``, ``closed()``."""

    def __init__(
        self,
        port: int,
        path: str,
        *,
        source: str = "127.0.0.1",
        receive_buffer: int | None = None,
        segment: int | None = None,
        timeout: float = 10,
    ) -> None:
        self.sock = socket.socket()
        if receive_buffer is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        if segment is not None:  # the largest segment it takes: the server's buffers follow
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, segment)
        self.sock.bind((source, 0))
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:{port}\r\n\r\n"
            ).encode()
        )
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        #: The site's pings answered so far.
        self.pongs = 0
        status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
        if status != 101:
            self.sock.close()
            raise Refused(status, head)

    def send_text(self, text: str | bytes, fin: bool = True, first: bool = True) -> None:
        payload = text.encode() if isinstance(text, str) else text
        self.sock.sendall(frame(TEXT if first else CONTINUATION, payload, fin))

    def send_ping(self, payload: bytes = b"") -> None:
        self.sock.sendall(frame(PING, payload))

    def send_pong(self, payload: bytes = b"") -> None:
        self.sock.sendall(frame(PONG, payload))

    def _read(self, count: int, deadline: float) -> bytes | None:
        while len(self.buffer) < count:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no frame in time")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except (ConnectionResetError, BrokenPipeError):
                return None
            if not chunk:
                return None
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def frames(self, timeout: float = 10) -> Iterator[tuple[int, bytes]]:
        """The server's frames, (opcode, payload) each, until the connection ends (a close
        frame is the last one yielded); a protocol ping is answered as it is read."""
        deadline = time.monotonic() + timeout
        while True:
            head = self._read(2, deadline)
            if head is None:
                return
            opcode, size = head[0] & 0x0F, head[1] & 0x7F
            if size >= 126:
                extended = self._read(2 if size == 126 else 8, deadline)
                if extended is None:
                    return
                size = struct.unpack("!H" if size == 126 else "!Q", extended)[0]
            payload = self._read(size, deadline)
            if payload is None:
                return
            if opcode == PING:
                with contextlib.suppress(OSError):
                    self.send_pong(payload)
            yield opcode, payload
            if opcode == CLOSE:
                return

    def close_waiting(self) -> bool:
        """Whether the server has closed: a close frame waits among the bytes received, or the
        connection has ended, found without reading anything (a peek). A flood stops sending
        there: its next frames would reach a server that has closed the connection, whose reset
        would throw the close frame away unread."""
        try:
            data = self.buffer + self.sock.recv(1 << 20, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:
            data = self.buffer
        except OSError:
            return True
        else:
            if len(data) == len(self.buffer):  # (the server's side is shut)
                return True
        at = 0
        while at + 2 <= len(data):
            opcode, size, at = data[at] & 0x0F, data[at + 1] & 0x7F, at + 2
            if opcode == CLOSE:
                return True
            if size >= 126:
                width = 2 if size == 126 else 8
                if at + width > len(data):
                    break
                size = struct.unpack("!H" if size == 126 else "!Q", data[at : at + width])[0]
                at += width
            at += size
        return False

    def flood(self, one: bytes, count: int, batch: int) -> None:
        """Send the frame ``one`` ``count`` times as fast as the server takes it, ``batch`` at a
        time, reading nothing, until the server closes (:meth:`close_waiting`). Never blocked in
        a send: a client stuck there, its buffers full while the server reads no more, would not
        see the close arrive, and the server's drop a second later resets the connection with
        the close frame unread."""
        left, pending = count, b""
        timeout = self.sock.gettimeout()
        self.sock.settimeout(0)
        try:
            while (left or pending) and not self.close_waiting():
                if not pending:
                    size = min(batch, left)
                    pending, left = one * size, left - size
                try:
                    pending = pending[self.sock.send(pending) :]
                except BlockingIOError:
                    select.select([], [self.sock], [], 0.05)  # (room to send, or look again)
        except OSError:  # (reset: the server is done with it)
            pass
        finally:
            self.sock.settimeout(timeout)

    def answered(self, payload: bytes) -> bool:
        """Whether a text frame's ``payload`` was the server's ping, answered now (a pong that
        can no longer be sent, the connection being closed, is left)."""
        answer = pong_for(payload)
        if answer is None:
            return False
        with contextlib.suppress(OSError):
            self.send_text(answer)
            self.pongs += 1
        return True

    def read_to_close(self, timeout: float = 10) -> tuple[list[str], int | None, str]:
        """Every text frame until the connection ends (pings answered, and left out), and the
        close frame's code and reason (``None`` and "" when it ended without one)."""
        texts: list[str] = []
        for opcode, payload in self.frames(timeout):
            if opcode == TEXT and not self.answered(payload):
                texts.append(payload.decode())
            elif opcode == CLOSE:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                return texts, code, payload[2:].decode(errors="replace")
        return texts, None, ""

    def read_for(self, seconds: float) -> list[str]:
        """The text frames that come within ``seconds`` (pings answered, and left out), as a
        page reads while it waits."""
        texts: list[str] = []
        try:
            for opcode, payload in self.frames(seconds):
                if opcode == TEXT and not self.answered(payload):
                    texts.append(payload.decode())
        except TimeoutError:
            pass
        return texts

    def next_text(self, timeout: float = 10) -> str:
        """The next text frame that is not a ping (pings are answered on the way)."""
        for opcode, payload in self.frames(timeout):
            if opcode == TEXT and not self.answered(payload):
                return payload.decode()
        raise ConnectionError("closed before a text frame")

    def closed(self) -> bool:
        """Whether the server has ended the connection (reset it, or closed its side), without
        reading anything."""
        return server_ended(self.sock)

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> RawWebsocket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: Today's and tomorrow's deal is the rules' worked example, and ``players`` players with the
#: longest names there are have played its first action: one through the service, the others
#: copies of its game (a board reads their rows; nothing replays them), and no password hashed.
SEED = """
import datetime as dt
import sys
import django
django.setup()
from django.contrib.auth.models import User
from games.models import Game
from leaderboard import services
from tests.leaderboard.helpers import OPENING, play, store_deal
today = dt.datetime.now(dt.UTC).date()
store_deal(today)
store_deal(today + dt.timedelta(days=1))
users = User.objects.bulk_create(
    [User(username=f"watched-{n:03d}-" + "x" * 138, password="!") for n in range(int(sys.argv[1]))]
)
first = play(services.start_attempt(users[0]), OPENING[:1])
# (Its first action hours ago: every row's time has as many digits, whatever the clock.)
Game.objects.filter(pk=first.pk).update(started_at=first.started_at - dt.timedelta(hours=3))
first.refresh_from_db()
copies = []
for user in users[1:]:
    copy = Game.objects.get(pk=first.pk)
    copy.pk, copy.owner = None, user
    copies.append(copy)
Game.objects.bulk_create(copies)
"""


def seed_board(env: dict[str, str], players: int) -> None:
    """Today's board of ``players`` players (a snapshot of ~370 bytes a row, up to its top 100)
    in the migrated database of ``env``. Their attempts are open, their first action three hours
    ago: a row's time (to now, in seconds, to the millisecond) then keeps five digits before the
    point, and the snapshot's size stays where the tests of the site's ping need it whatever the
    clock (at a few seconds, 100 rows' times two digits shorter took it under half of 64 KB)."""
    subprocess.run(
        [sys.executable, "-c", SEED, str(players)], cwd=ROOT, env=env, check=True,
        capture_output=True, timeout=300,
    )  # fmt: skip


def rss_kib(pid: int) -> int:
    """The resident memory of process ``pid``, in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise LookupError(f"no VmRSS for {pid}")
