"""Request bodies have a size limit, enforced before they are read: 413 ``too_large``.

The limit is ``settings.MAX_BODY_API`` for paths under ``/api/`` (64 KB by default: the largest
body the API takes is a few hundred bytes) and ``settings.MAX_BODY`` elsewhere (1 MB: the admin's
forms). :class:`BodyLimitMiddleware`, around the ASGI application, applies it: a
``Content-Length`` over the limit is refused at once, without reading the body; a body streamed
without one is counted as it arrives and refused as soon as the count passes the limit. Whatever
serves the application, no view ever sees such a request.

Where the body waits before the application is the server's affair. Daphne reads a whole request
(into a temporary file past 100 KB) before it calls the application at all, then queues all of it
for the application at once: served alone (``make run``, one machine's zero-setup shape), it has
read a large body, and holds it in memory until the request ends, by the time this middleware
refuses it. In the deployed shape nginx stands in front (``deploy/nginx.conf``): its
``client_max_body_size`` answers 413 to a larger body before any of it reaches Daphne.
"""

from __future__ import annotations

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
