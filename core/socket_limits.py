"""What one client may hold of a web process through its websockets: their messages, their
unread output, its network's sockets.

Every websocket route gets these limits by construction: :class:`SocketLimits` wraps the whole
websocket branch of the ASGI application (``canfield_site/asgi.py``), so a consumer added later
(a game's socket) is limited like the live board, with nothing to do. Per socket:

- **Size.** A message over ``settings.SOCKET_MAX_MESSAGE`` bytes closes the socket with 4009
  ``too_large``. Under Daphne a single frame that large never reaches the application: Daphne's
  ``--websocket-max-frame-size`` (set to ``SOCKET_MAX_MESSAGE`` by ``canfield_site.serve``) drops
  the connection as soon as the frame's header announces its length, its payload unread. A
  message sent in several smaller frames reaches this layer whole, and is refused here.
- **Rate.** A token bucket: ``SOCKET_MESSAGE_BURST`` messages at once, refilled at
  ``SOCKET_MESSAGES_PER_SECOND``. The message that finds it empty closes the socket with 4008
  ``too_many_messages``. Messages are counted as they arrive, by a task that reads them off the
  server at once (``_Socket.pump``), whatever the consumer is doing; one that passes waits for the
  consumer in a queue of at most ``SOCKET_MESSAGE_BURST`` messages (more: 4008 too). A refused
  message costs a length and a subtraction: it is never parsed, and no line is logged for it.
- **Unread output.** The server writes what the application sends to the connection, and holds
  in the process whatever the client's end does not take: a client that reads nothing would
  grow it without bound. So each socket's output is counted (:class:`Credit`): once more than
  half of ``SOCKET_MAX_PENDING`` bytes were sent since the client last showed it reads, the
  socket is sent ``{"type": "ping", "n": <a fresh random number>}``, which the client answers
  ``{"type": "pong", "n": <the same number>}`` — only a client that read the ping knows it. A
  right pong leaves counted only what was sent after its ping; a pong never reaches the
  application. Should the count pass ``SOCKET_MAX_PENDING`` with the ping unanswered, the socket
  is closed with 4008 ``not_reading`` (and one warning is logged). A socket that sends nothing and
  reads nothing while little is sent to it is Daphne's to drop: it pings a socket quiet for
  ``SOCKET_PING_INTERVAL`` seconds (a protocol ping, which every browser answers by itself) and
  drops it when no answer came within ``SOCKET_PING_TIMEOUT`` (``canfield_site.serve``).
- **Network.** A process holds at most ``SOCKET_MAX_PER_NETWORK`` sockets per client network
  (``core.networks``: an IPv4 /24, an IPv6 /64, of the address the rate limits count by,
  behind ``NUM_PROXIES`` proxies); the next is accepted, told ``too_many_sockets`` and closed with
  4429. Counted per process, in a dict: every socket of a process is served by its one event loop
  (Daphne's), and the count is read and changed with no ``await`` between, so it is exact without
  a lock. A deployment of N processes behind nginx (``least_conn``) admits up to N times as many.
- **Language.** Every frame the socket's application sends speaks its client's language (the
  language cookie, else Accept-Language: Django's own choice for a request).

A refusal is sent as the board sends its own: an error frame ``{"type": "error", "code",
"message"}``, then the close. The close codes are in 4000-4999 because Daphne closes a socket
with Autobahn's ``sendClose``, which takes only 1000 and 3000-4999, and passes on the code
alone: the ASGI message's ``reason`` (the same ``code``) is given for servers that send it, and
the error frame carries it under Daphne. Once a socket is closed here the application is told
``websocket.disconnect`` at once, what it sends afterwards is dropped, and what the client still
sends is read and dropped unparsed until the server has closed the connection (Daphne drops it
when the client has not answered the close within a second). A send that the server refuses
because the connection has closed under it (:meth:`_Socket.forward`) closes the socket here the
same way, with no error logged. Nothing of a socket is kept after it: its count, queue and task
go with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

from django.conf import settings
from django.http import HttpRequest
from django.http.cookie import parse_cookie
from django.utils import translation
from django.utils.translation import gettext as _
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from core import networks

log = logging.getLogger(__name__)

Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[..., Awaitable[None]]

#: Too many messages, or output left unread (as RFC 6455's 1008, policy violation).
CLOSE_POLICY: Final = 4008
#: A message over the size limit (as RFC 6455's 1009, message too big).
CLOSE_TOO_LARGE: Final = 4009
#: Too many sockets from the client's network (as HTTP's 429; the board's codes are 4xxx).
CLOSE_CROWDED: Final = 4429


@dataclass(frozen=True)
class Limits:
    """One socket's limits (settings, read when the socket opens)."""

    max_message: int
    per_second: float
    burst: int
    per_network: int
    max_pending: int

    @classmethod
    def from_settings(cls) -> Limits:
        return cls(
            max_message=int(settings.SOCKET_MAX_MESSAGE),
            per_second=float(settings.SOCKET_MESSAGES_PER_SECOND),
            burst=int(settings.SOCKET_MESSAGE_BURST),
            per_network=int(settings.SOCKET_MAX_PER_NETWORK),
            max_pending=int(settings.SOCKET_MAX_PENDING),
        )


class Bucket:
    """A token bucket: ``burst`` messages at once, refilled at ``per_second``."""

    def __init__(self, per_second: float, burst: int) -> None:
        self.per_second = per_second
        self.burst = float(burst)
        self.tokens = float(burst)
        self.counted_at = time.monotonic()

    def take(self) -> bool:
        """Whether one more message may pass now (and count it if so)."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.counted_at) * self.per_second)
        self.counted_at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Credit:
    """A socket's output not yet shown read, in bytes: what was sent since the client last
    answered a ping (the module's docstring, "Unread output").

    ``count`` adds what is sent and says when a ping is due (once more than half of
    ``max_pending`` is counted, and none is awaited); ``answered`` takes a pong's number: the
    awaited one leaves counted only what was sent after its ping; ``allows`` says whether ``size``
    more bytes may be sent — always, unless a ping is awaited and they would take the count past
    ``max_pending``."""

    def __init__(self, max_pending: int) -> None:
        self.max_pending = max_pending
        #: Bytes sent since the last answered ping.
        self.sent = 0
        #: The number of the ping awaiting its pong (``None``: none is).
        self.awaited: int | None = None
        #: Of ``sent``, the bytes sent before that ping.
        self.before_ping = 0
        #: The number of the latest ping (each ping's differs from the one before).
        self.latest: int | None = None

    def allows(self, size: int) -> bool:
        return self.awaited is None or self.sent + size <= self.max_pending

    def count(self, size: int) -> int | None:
        """Count ``size`` bytes sent: the number of a ping to send now, if one is due."""
        self.sent += size
        if self.awaited is not None or self.sent * 2 <= self.max_pending:
            return None
        number = secrets.randbits(31)
        while number == self.latest:
            number = secrets.randbits(31)
        self.awaited = self.latest = number
        self.before_ping = self.sent
        return number

    def answered(self, number: object) -> bool:
        """Take a pong's ``n``: whether it answered the awaited ping."""
        if self.awaited is None or type(number) is not int or number != self.awaited:
            return False
        self.awaited = None
        self.sent -= self.before_ping
        self.before_ping = 0
        return True


def ping_frame(number: int) -> Message:
    """The server's ping: ``{"type": "ping", "n": number}``."""
    return {"type": "websocket.send", "text": f'{{"type":"ping","n":{number}}}'}


def read_pong(message: Message) -> dict[str, Any] | None:
    """The client's pong in a ``websocket.receive`` (``{"type": "pong", "n": ...}``), or
    ``None`` for any other message (which is parsed only if it names a pong)."""
    text = message.get("text")
    if not text or '"pong"' not in text:
        return None
    try:
        frame = json.loads(text)
    except ValueError:
        return None
    if isinstance(frame, dict) and frame.get("type") == "pong":
        return frame
    return None


def request_of(scope: Message) -> HttpRequest:
    """The socket's opening request as Django sees one: its client address and headers, for
    the same choices a request makes (the client's address, its language)."""
    request = HttpRequest()
    client = scope.get("client")
    if client:
        request.META["REMOTE_ADDR"] = str(client[0])
    for raw_name, raw_value in scope.get("headers") or ():
        name = "HTTP_" + raw_name.decode("latin-1").upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        request.META[name] = f"{request.META[name]},{value}" if name in request.META else value
    request.COOKIES = parse_cookie(request.META.get("HTTP_COOKIE", ""))
    return request


def network_of(request: HttpRequest) -> str | None:
    """The client's network (``203.0.113.0/24``), from the address the rate limits count by;
    ``None`` when it has no IP address (a socket opened in the process, by a test)."""
    address = BaseThrottle().get_ident(Request(request)) or ""
    network = networks.network(address)
    return None if network is None else str(network)


def payload_size(message: Message) -> int:
    """The bytes of a ``websocket.receive`` or ``websocket.send``'s payload (its text encoded
    only when it is not ASCII)."""
    data = message.get("bytes")
    if data is not None:
        return len(data)
    text = message.get("text") or ""
    return len(text) if text.isascii() else len(text.encode())


def too_large(message: Message, limit: int) -> bool:
    """Whether a ``websocket.receive``'s payload is over ``limit`` bytes (its text encoded only
    when its length in characters leaves the answer open)."""
    text = message.get("text")
    if message.get("bytes") is None and text is not None and len(text) > limit:
        return True
    return payload_size(message) > limit


class SocketLimits:
    """ASGI middleware: the limits of every websocket (the module's docstring). HTTP passes
    through untouched."""

    def __init__(self, app: App) -> None:
        self.app = app
        #: Open sockets by client network, in this process (never a zero: a network whose
        #: last socket closed is removed).
        self.sockets: dict[str, int] = {}

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        limits = Limits.from_settings()
        request = request_of(scope)
        network = network_of(request)
        with translation.override(translation.get_language_from_request(request)):
            if network is not None and self.sockets.get(network, 0) >= limits.per_network:
                await self.refuse(receive, send)
                return
            if network is not None:
                self.sockets[network] = self.sockets.get(network, 0) + 1
            try:
                socket = _Socket(limits, receive, send, scope.get("client"))
                await socket.serve(self.app, scope)
            finally:
                if network is not None:
                    left = self.sockets[network] - 1
                    if left:
                        self.sockets[network] = left
                    else:
                        del self.sockets[network]

    @staticmethod
    async def refuse(receive: Receive, send: Send) -> None:
        """Too many sockets from the client's network: accepted, told why, closed (4429)."""
        if (await receive())["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        await send(
            error_frame(
                "too_many_sockets",
                _("Too many live connections from your network: try again later."),
            )
        )
        await send({"type": "websocket.close", "code": CLOSE_CROWDED, "reason": "too_many_sockets"})


def error_frame(code: str, message: str) -> Message:
    frame = {"type": "error", "code": code, "message": message}
    return {"type": "websocket.send", "text": json.dumps(frame, separators=(",", ":"))}


class _Socket:
    """One websocket between the server and its application, within its limits."""

    def __init__(self, limits: Limits, receive: Receive, send: Send, client: Any) -> None:
        self.limits = limits
        self.server_receive = receive
        self.server_send = send
        #: The client's address, as the server gives it (for the log).
        self.client = client
        #: Messages that passed, for the application (at most ``limits.burst`` wait).
        self.inbox: asyncio.Queue[Message] = asyncio.Queue()
        self.bucket = Bucket(limits.per_second, limits.burst)
        self.credit = Credit(limits.max_pending)
        #: Closed, here or by the application: nothing more is sent, nor passed on to it.
        self.closed = False
        #: The application has been told ``websocket.disconnect``.
        self.told = False

    async def serve(self, app: App, scope: Message) -> None:
        pump = asyncio.get_running_loop().create_task(self.pump())
        try:
            await app(scope, self.inbox.get, self.send)
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pump

    async def pump(self) -> None:
        """Read the server's messages as they come, and pass on those within the limits, until
        the server reports the client gone."""
        try:
            while True:
                message = await self.server_receive()
                kind = message["type"]
                if kind == "websocket.disconnect":
                    self.tell(message)
                    return
                if self.closed:
                    continue  # (read and dropped)
                if kind == "websocket.receive":
                    refusal = self.refusal(message)
                    if refusal is not None:
                        await self.close(*refusal)
                        continue
                    pong = read_pong(message)
                    if pong is not None:  # (the client's answer to a ping of this layer's)
                        self.credit.answered(pong.get("n"))
                        continue
                self.inbox.put_nowait(message)
        finally:
            self.tell({"type": "websocket.disconnect", "code": 1006})  # (if not yet told)

    def tell(self, disconnect: Message) -> None:
        """Pass ``websocket.disconnect`` on to the application, once."""
        if not self.told:
            self.told = True
            self.inbox.put_nowait(disconnect)

    def refusal(self, message: Message) -> tuple[int, str, str] | None:
        """Why this message closes the socket (code, reason, sentence), if it does."""
        if too_large(message, self.limits.max_message):
            return (
                CLOSE_TOO_LARGE,
                "too_large",
                _("A message is at most %(count)d bytes.") % {"count": self.limits.max_message},
            )
        if self.inbox.qsize() >= self.limits.burst or not self.bucket.take():
            return (
                CLOSE_POLICY,
                "too_many_messages",
                _("Too many messages: at most %(count)d at once.") % {"count": self.limits.burst},
            )
        return None

    async def close(self, code: int, reason: str, sentence: str) -> None:
        """Close the socket: the error frame, the close, and the application told at once."""
        self.closed = True
        self.tell({"type": "websocket.disconnect", "code": code})
        with contextlib.suppress(Exception):  # (the client may be gone already)
            await self.server_send(error_frame(reason, sentence))
            await self.server_send({"type": "websocket.close", "code": code, "reason": reason})

    async def send(self, message: Message) -> None:
        """The application's send: passed on until the socket is closed, dropped afterwards;
        its frames counted against the socket's unread output, with a ping when one is due."""
        if self.closed:
            return
        if message["type"] == "websocket.send":
            size = payload_size(message)
            if not self.credit.allows(size):
                log.warning(
                    "websocket: %s left over %d bytes unread; closed (not_reading)",
                    self.client,
                    self.limits.max_pending,
                )
                await self.close(
                    CLOSE_POLICY,
                    "not_reading",
                    _("What was sent to this connection went unread: it is closed."),
                )
                return
            if not await self.forward(message):
                return
            number = self.credit.count(size)
            if number is not None:
                await self.forward(ping_frame(number))
            return
        if message["type"] == "websocket.close":
            self.closed = True
        await self.forward(message)

    async def forward(self, message: Message) -> bool:
        """Pass ``message`` on to the server; ``False`` when the connection closed under it.

        A server raises on a send to a connection that has closed: an ``OSError`` of its own
        (the ASGI specification), or under Daphne, while the close handshake that the server
        began itself is under way (a client past its ping limit, ``canfield_site.serve``),
        Autobahn's ``Disconnected``, a ``RuntimeError``. That is a client gone, not an error
        of the application's: the socket is closed here, the application told
        ``websocket.disconnect`` at once, and what it sends afterwards dropped, as after a
        close of this layer's."""
        try:
            await self.server_send(message)
        except (OSError, RuntimeError):
            self.closed = True
            self.tell({"type": "websocket.disconnect", "code": 1006})
            return False
        return True
