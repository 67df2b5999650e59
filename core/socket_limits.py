"""What one client may hold of a web process: its websockets' messages, their output, its
network's sockets, and the time a request may take to arrive.

Every websocket route gets the first part by construction: :class:`SocketLimits` wraps the whole
websocket branch of the ASGI application (``canfield_site/asgi.py``), so a consumer added later
(a game's socket) is limited like the live board, with nothing to do. Per socket:

- **Size.** A message over ``settings.SOCKET_MAX_MESSAGE`` bytes is closed with 1009
  ``too_large``. Under Daphne the frame never reaches the application: the socket is failed as
  soon as the frame's header announces its length (:func:`limit_daphne_connections`), before its
  payload is read.
- **Rate.** A token bucket: ``SOCKET_MESSAGE_BURST`` messages at once, refilled at
  ``SOCKET_MESSAGES_PER_SECOND``. The message that finds it empty closes the socket with 1008
  ``too_many_messages``. Messages are counted as they arrive, by a task that reads them off the
  server at once (``_Socket.pump``), whatever the consumer is doing; one that passes waits for the
  consumer in a queue of at most ``SOCKET_MESSAGE_BURST`` messages (more: 1008 too). A refused
  message costs a length and a subtraction: it is never parsed, and no line is logged for it.
  Pings, which the server answers and the application never sees, are counted alike, in a
  bucket of their own (:func:`limit_daphne_connections`).
- **Network.** A process holds at most ``SOCKET_MAX_PER_NETWORK`` sockets per client network
  (``core.networks``: an IPv4 /24, an IPv6 /64, of the address the rate limits count by,
  behind ``NUM_PROXIES`` proxies); the next is accepted, told ``too_many_sockets`` and closed with
  4429. Counted per process, in a dict: every socket of a process is served by its one event loop
  (Daphne's), and the count is read and changed with no ``await`` between, so it is exact without
  a lock. A deployment of N processes behind nginx (``least_conn``) admits up to N times as many.
- **Language.** Every frame the socket's application sends speaks its client's language (the
  language cookie, else Accept-Language: Django's own choice for a request).

A refusal is sent as the board sends its own: an error frame ``{"type": "error", "code",
"message"}``, then the close, whose reason is the same ``code``. Once a socket is closed here the
application is told ``websocket.disconnect`` at once, what it sends afterwards is dropped, and what
the client still sends is dropped unparsed (under Daphne, not even read: the connection stops
reading, and is dropped ``CLOSE_WAIT`` seconds later unless the client closes it first). Nothing
of a socket is kept after it: its count, queue and task go with it.

The rest is Daphne's part, which the ASGI interface cannot express: :func:`limit_daphne_connections`
(see there) bounds a websocket's unread output (``SOCKET_MAX_PENDING``), closes sockets with the
codes and reasons the application gives, and gives each HTTP request a deadline for its headers
(``HTTP_HEADER_TIMEOUT``) and its body (``HTTP_BODY_TIMEOUT``).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
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

#: Close codes: too many messages, or output not read (RFC 6455's policy violation).
CLOSE_POLICY: Final = 1008
#: A message over the size limit (RFC 6455's message too big).
CLOSE_TOO_LARGE: Final = 1009
#: Too many sockets from the client's network (as HTTP's 429; the board's codes are 4xxx).
CLOSE_CROWDED: Final = 4429
#: The close codes of a client that broke the limits: nothing more of it is read.
REFUSALS: Final = frozenset({CLOSE_POLICY, CLOSE_TOO_LARGE})
#: Seconds a socket the server closed waits for its client's close frame before the connection
#: is dropped (Autobahn's close handshake timeout, whose 1 s let a process busy with a flood drop
#: sockets before their own close frame had left it).
CLOSE_WAIT: Final = 5.0


@dataclass(frozen=True)
class Limits:
    """One socket's limits (settings, read when the socket opens)."""

    max_message: int
    per_second: float
    burst: int
    per_network: int

    @classmethod
    def from_settings(cls) -> Limits:
        return cls(
            max_message=int(settings.SOCKET_MAX_MESSAGE),
            per_second=float(settings.SOCKET_MESSAGES_PER_SECOND),
            burst=int(settings.SOCKET_MESSAGE_BURST),
            per_network=int(settings.SOCKET_MAX_PER_NETWORK),
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


def too_large(message: Message, limit: int) -> bool:
    """Whether a ``websocket.receive``'s payload is over ``limit`` bytes (its text encoded only
    when its length in characters leaves the answer open)."""
    data = message.get("bytes")
    if data is not None:
        return len(data) > limit
    text = message.get("text") or ""
    if len(text) > limit or text.isascii():
        return len(text) > limit
    return len(text.encode()) > limit


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
                await _Socket(limits, receive, send).serve(self.app, scope)
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

    def __init__(self, limits: Limits, receive: Receive, send: Send) -> None:
        self.limits = limits
        self.server_receive = receive
        self.server_send = send
        #: Messages that passed, for the application (at most ``limits.burst`` wait).
        self.inbox: asyncio.Queue[Message] = asyncio.Queue()
        self.bucket = Bucket(limits.per_second, limits.burst)
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
        """The application's send: passed on until the socket is closed, dropped afterwards."""
        if self.closed:
            return
        if message["type"] == "websocket.close":
            self.closed = True
        await self.server_send(message)


# --- Daphne ----------------------------------------------------------------------------------


def limit_daphne_connections() -> None:
    """Daphne's part of the limits: what only the server sees. Idempotent.

    Daphne makes its two Twisted factories by name in ``daphne.server`` (``Server.run``:
    ``HTTPFactory(self)``, ``WebSocketFactory(self, ...)``) and offers no setting for any of
    this, so those two names are given subclasses here — the one adapter, like
    ``core.limits.limit_daphne_bodies``; ``tests/site/test_socket_limits.py`` breaks if
    Daphne stops making them so. The subclasses touch no underscored name of Daphne, Twisted or
    Autobahn; of the methods they call or override, three are not documented as API and are
    named here: Autobahn's ``sendCloseFrame`` (its ``sendClose`` refuses 1008), and Twisted's
    ``HTTPChannel.allHeadersReceived`` and ``allContentReceived`` (the channel's own steps).

    - **A websocket's unread output** (``SOCKET_MAX_PENDING``). Daphne writes every frame to the
      connection's Twisted transport, which buffers in the process whatever the kernel will not
      take: a client that reads nothing grew it without bound. Each socket registers as its
      transport's streaming producer (Twisted's flow control: the transport calls
      ``pauseProducing`` when its buffer passes its ``bufferSize``, 64 KB, and
      ``resumeProducing`` once it has drained); while it is paused, what the socket writes is
      counted on top, and past ``SOCKET_MAX_PENDING`` the socket is closed with 1008
      ``not_reading``: nothing more of it is read, its close frame queues behind the unread
      output, and Autobahn drops the connection, the buffer with it, when no answer has come
      within its close handshake timeout (``CLOSE_WAIT``). (Daphne left the HTTP channel that
      upgraded the connection as the producer; it has nothing more to do. The transport's
      ``bufferSize`` stays Twisted's: it is its read size too, and Autobahn's parsing of one read
      grows faster than its size.)
    - **Close codes and reasons.** Daphne closes a socket with Autobahn's ``sendClose``, which
      takes only 1000 and 3000-4999 (a 1008 raised in the application's ``send``), without the
      ASGI message's ``reason``. The subclass sends the close frame with both. Frames the
      application sends once its socket is closing are dropped (Autobahn raises on them), and
      messages that still arrive then are dropped before Daphne queues them.
    - **Size.** Autobahn's largest frame (Daphne's ``--websocket-max-frame-size``) is at most
      ``SOCKET_MAX_MESSAGE``: a larger one fails the socket when its header arrives, with a
      close frame (1009), its payload unread. (Daphne's ``--websocket-max-message-size``, 1 MB,
      stays: Autobahn applies it to what the server sends as well.)
    - **HTTP deadlines.** Twisted's HTTP channel has one timer, an idle timeout (60 s) that
      every byte received starts again: a client sending a header a byte at a time held its
      connection for good. The subclass's channel keeps the timer and its points of change but
      does not restart it on data: a request's line and headers must arrive within
      ``HTTP_HEADER_TIMEOUT`` of the connection opening (or of its previous response ending: an
      idle keep-alive connection is closed then too), its body within ``HTTP_BODY_TIMEOUT`` of its
      headers; past it, 408 and the connection is closed. While the application works on the
      request no timer runs (as before). HTTP/1.1 only, as Daphne serves here (Twisted's
      HTTP/2 needs extras that are not installed).
    """
    server: Any = importlib.import_module("daphne.server")  # (untyped)
    if getattr(server.HTTPFactory, "limits_connections", False):
        return
    server.HTTPFactory = _deadline_http_factory(server.HTTPFactory)
    server.WebSocketFactory = _bounded_websocket_factory(server.WebSocketFactory)


#: The answer to a request that did not arrive in time (before any middleware: English).
_TIMEOUT_BODY = b"The request did not arrive in time."
REQUEST_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n"
    b"Content-Length: " + str(len(_TIMEOUT_BODY)).encode() + b"\r\n"
    b"Connection: close\r\n\r\n" + _TIMEOUT_BODY
)


def _deadline_http_factory(base: Any) -> Any:
    http: Any = importlib.import_module("twisted.web.http")  # (partly typed)

    class DeadlineChannel(http.HTTPChannel):  # type: ignore[misc]
        """Twisted's HTTP/1.1 channel whose timer is a deadline, not an idle timeout."""

        def resetTimeout(self) -> None:
            """Data received does not move the deadline (Twisted's idle timeout restarts here)."""

        def allHeadersReceived(self) -> None:
            super().allHeadersReceived()
            self.setTimeout(float(settings.HTTP_BODY_TIMEOUT))  # from now: the body's deadline

        def allContentReceived(self) -> None:
            # Twisted stops the timer while the application answers, and restores the period it
            # finds here when the response has gone: the next request's headers' deadline.
            self.setTimeout(float(settings.HTTP_HEADER_TIMEOUT))
            super().allContentReceived()

        def timeoutConnection(self) -> None:
            if self.requests:  # a request line came: answer it
                self.transport.write(REQUEST_TIMEOUT)
            super().timeoutConnection()

    class DeadlineHTTPFactory(base):  # type: ignore[misc]
        """Daphne's HTTP factory, its channels with deadlines (see limit_daphne_connections)."""

        limits_connections = True

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.timeOut = float(settings.HTTP_HEADER_TIMEOUT)

        def protocol(self) -> DeadlineChannel:
            return DeadlineChannel()

        def acceptableProtocols(self) -> list[bytes]:
            return [b"http/1.1"]

    return DeadlineHTTPFactory


def _bounded_websocket_factory(base: Any) -> Any:
    from twisted.internet.abstract import FileDescriptor

    protocol_base: Any = base.protocol

    class OutputGuard:
        """The socket's transport's streaming producer (Twisted's flow control): the transport
        calls ``pauseProducing`` when a write takes its buffer past its ``bufferSize`` (64 KB)
        and ``resumeProducing`` once the buffer has drained. While paused, every byte the
        socket writes is counted on top of that buffer (at most ``bufferSize`` and the write that
        passed it): past ``SOCKET_MAX_PENDING``, the socket is closed."""

        def __init__(self, socket: Any) -> None:
            self.socket = socket
            #: The size of the socket's latest write.
            self.last = 0
            #: Bytes the process holds unsent, at most (``None``: the transport keeps up).
            self.unsent: int | None = None
            self.tripped = False

        def pauseProducing(self) -> None:
            self.unsent = int(self.socket.transport.bufferSize) + self.last
            self.check()

        def resumeProducing(self) -> None:
            self.unsent = None

        def stopProducing(self) -> None:
            self.unsent = None

        def wrote(self, size: int) -> None:
            self.last = size
            if self.unsent is not None:
                self.unsent += size
                self.check()

        def check(self) -> None:
            if self.tripped or self.unsent is None or self.unsent <= settings.SOCKET_MAX_PENDING:
                return
            self.tripped = True  # (once: the close frame that follows is not counted)
            self.socket.output_not_read()

    class BoundedWebSocketProtocol(protocol_base):  # type: ignore[misc]
        """Daphne's websocket protocol with its output bounded, its pings counted and its
        closes as asked."""

        pings: Bucket | None = None
        guard: OutputGuard | None = None

        def connectionMade(self) -> None:
            super().connectionMade()
            transport: Any = self.transport
            if isinstance(transport, FileDescriptor):  # (TCP or a UNIX socket; not TLS)
                transport.unregisterProducer()  # the HTTP channel that upgraded it
                self.guard = OutputGuard(self)
                guard: Any = self.guard  # (an IPushProducer)
                transport.registerProducer(guard, True)

        def sendData(self, data: bytes, sync: bool = False, chopsize: int | None = None) -> None:
            if self.guard is not None:
                self.guard.wrote(len(data))
            super().sendData(data, sync, chopsize)

        def output_not_read(self) -> None:
            """Too much output left unread: close the socket (1008 ``not_reading``); its close
            frame queues behind the output, and the close handshake's timeout drops it."""
            if self.state == self.STATE_OPEN:
                log.warning(
                    "websocket: %s left over %d bytes unread; closed",
                    getattr(self, "client_addr", None),
                    settings.SOCKET_MAX_PENDING,
                )
                self.refuse(CLOSE_POLICY, b"not_reading")
            elif self.state != self.STATE_CLOSED:
                self.dropConnection(abort=True)

        def refuse(self, code: int, reason: bytes) -> None:
            """Close the socket for what its client did, and read nothing more of it: its
            close handshake timeout (CLOSE_WAIT) drops it, and it costs nothing meanwhile."""
            self.sendCloseFrame(code=code, reasonUtf8=reason, isReply=False)
            self.transport.pauseProducing()  # (Twisted's transport: stop reading)

        def handle_reply(self, message: Message) -> None:
            if message.get("type") == "websocket.close" and self.state == self.STATE_OPEN:
                code = message.get("code") or 1000
                reason = str(message.get("reason") or "").encode()[:123]
                if code in REFUSALS:
                    self.refuse(code, reason)
                else:
                    self.sendCloseFrame(code=code, reasonUtf8=reason or None, isReply=False)
                return
            super().handle_reply(message)

        def serverSend(self, content: str | bytes, binary: bool = False) -> None:
            if self.state in (self.STATE_CLOSING, self.STATE_CLOSED):
                return  # closing: nothing more is queued behind the close
            super().serverSend(content, binary)

        def onMessage(self, payload: bytes, isBinary: bool) -> None:
            if self.state != self.STATE_OPEN:
                return  # closing: dropped before Daphne queues it
            super().onMessage(payload, isBinary)

        def onPing(self, payload: bytes) -> None:
            # Pings never reach the application: they are counted here, as its messages are.
            if self.pings is None:
                limits = Limits.from_settings()
                self.pings = Bucket(limits.per_second, limits.burst)
            if self.state == self.STATE_OPEN and not self.pings.take():
                self.refuse(CLOSE_POLICY, b"too_many_messages")
                return
            super().onPing(payload)

    class BoundedWebSocketFactory(base):  # type: ignore[misc]
        """Daphne's websocket factory: its protocol above, its largest frame bounded, and a
        failed socket closed with a close frame (its code and reason) rather than dropped."""

        protocol = BoundedWebSocketProtocol

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.setProtocolOptions(failByDrop=False, closeHandshakeTimeout=CLOSE_WAIT)

        def setProtocolOptions(self, **options: Any) -> None:
            frame = options.get("maxFramePayloadSize")
            if frame is not None:
                cap = int(settings.SOCKET_MAX_MESSAGE)
                options["maxFramePayloadSize"] = min(frame, cap) if frame > 0 else cap
            super().setProtocolOptions(**options)

    return BoundedWebSocketFactory
