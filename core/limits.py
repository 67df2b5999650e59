"""Request bodies have a size limit, enforced before they are read: 413 ``too_large``.

The limit is ``settings.MAX_BODY_API`` for paths under ``/api/`` (64 KB by default: the largest
body the API takes is a few hundred bytes) and ``settings.MAX_BODY`` elsewhere (1 MB: the admin's
forms). Two guards apply it:

- :class:`BodyLimitMiddleware`, around the ASGI application: a ``Content-Length`` over the limit
  is refused at once, without reading the body; a body streamed without one is counted as it
  arrives and refused as soon as the count passes the limit. Whatever serves the application,
  it never sees such a request.
- :func:`limit_daphne_bodies`: Daphne (Twisted) reads a whole request before it calls the
  application at all, and then queues every chunk of it at once, in memory — a 256 MB body cost
  the process 260 MB. So Daphne's request class is replaced by one that applies the same limits
  while the request arrives: a ``Content-Length`` over the limit is answered 413 as soon as the
  headers are in, a body that grows past it as soon as it does, and the connection is closed;
  nothing of the body is kept.
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings

log = logging.getLogger(__name__)

Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[..., Awaitable[None]]

API_PREFIX = "/api/"


def body_limit(path: str) -> int:
    """The largest request body accepted on ``path``, in bytes."""
    return int(settings.MAX_BODY_API if path.startswith(API_PREFIX) else settings.MAX_BODY)


def too_large(path: str, limit: int) -> tuple[bytes, bytes]:
    """The content type and body of the 413 answer on ``path``."""
    message = f"The request body is larger than {limit} bytes."  # (before any middleware)
    if path.startswith(API_PREFIX):
        body = json.dumps({"code": "too_large", "message": message}).encode()
        return b"application/json", body
    return b"text/plain; charset=utf-8", message.encode()


def content_length(headers: list[tuple[bytes, bytes]]) -> int | None:
    for name, value in headers:
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class BodyLimitMiddleware:
    """ASGI middleware: 413 for a body over the path's limit, before it is read past it."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = body_limit(scope["path"])
        length = content_length(scope["headers"])
        if length is not None and length > limit:
            await self.refuse(scope, send, limit)
            return
        body = bytearray()  # at most `limit` bytes, which the application would read anyway
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > limit:
                await self.refuse(scope, send, limit)
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send)

    @staticmethod
    async def refuse(scope: Message, send: Send, limit: int) -> None:
        log.warning("413: a body over %d bytes refused on %s", limit, scope["path"])
        content_type, body = too_large(scope["path"], limit)
        headers = [
            (b"content-type", content_type),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def limit_daphne_bodies() -> None:
    """Make Daphne refuse a body over its path's limit while it arrives (see the module's
    docstring). Idempotent."""
    http_protocol: Any = importlib.import_module("daphne.http_protocol")  # (untyped)
    base: Any = http_protocol.WebRequest
    if getattr(base, "limits_bodies", False):
        return

    class LimitedWebRequest(base):  # type: ignore[misc]
        """Daphne's request, refusing a body over its path's limit before storing it."""

        limits_bodies = True
        refused = False
        received = 0
        limit = 0

        def gotLength(self, length: int | None) -> None:
            # The request line is parsed (the channel keeps its path) and the headers are in.
            raw = getattr(self.channel, "_path", b"") or b""
            self.path_text = raw.split(b"?", 1)[0].decode("ascii", "replace")
            self.limit = body_limit(self.path_text)
            if length is not None and length > self.limit:
                super().gotLength(0)
                self.refuse()
            else:
                super().gotLength(length)

        def handleContentChunk(self, data: bytes) -> None:
            if self.refused:
                return
            self.received += len(data)
            if self.received > self.limit:
                self.refuse()
                return
            super().handleContentChunk(data)

        def process(self) -> Any:
            if self.refused:
                return None
            return super().process()

        def refuse(self) -> None:
            """Answer 413 straight on the connection, and close it."""
            self.refused = True
            self.requestHeaders.removeHeader(b"Expect")  # no "100 Continue" after this
            log.warning("413: a body over %d bytes refused on %s", self.limit, self.path_text)
            content_type, body = too_large(self.path_text, self.limit)
            head = (
                b"HTTP/1.1 413 Payload Too Large\r\n"
                b"Content-Type: " + content_type + b"\r\n"
                b"Content-Length: " + str(len(body)).encode() + b"\r\n"
                b"Connection: close\r\n\r\n"
            )
            transport = self.channel.transport
            transport.write(head + body)
            transport.loseConnection()

    http_protocol.WebRequest = LimitedWebRequest
