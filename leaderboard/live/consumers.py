"""``/ws/daily/<date>/``: the live board of a UTC day. Anyone may watch, logged in or not.

Server to client, JSON text frames, each with the day's sequence number ``seq``:
- on connect, and in answer to ``{"type": "resync"}``: a snapshot,
  ``{"type": "snapshot", "date", "seq", "at", "now", "count", "results": [the top 100 rows]}``;
- whenever standings changed: an update, ``{"type": "update", "date", "seq", "at", "count",
  "size", "rows", "left", "full"}``: the changes since ``seq - 1`` by player — each row that
  changed or entered at its rank, each player who left the top; the rows between shift (the whole
  top when ``full``; at most one update per broadcast window, see ``leaderboard.live.broadcast``).
  Both frames are built by ``leaderboard.live.frames``, their rows as the REST board's
  (``payloads.BoardRow``);
- ``{"type": "pong"}`` in answer to ``{"type": "ping"}``;
- ``{"type": "error", "code", "message"}`` for a message it does not understand; nothing changes.

``seq`` grows by one with every update of the day, across all server processes. A watcher never
receives a frame with a lower ``seq`` than one it already has; a client that sees ``seq`` jump by
more than one has missed an update and may send ``{"type": "resync"}`` (at most one a second).

Broadcasts reach a process once, not once per socket: each process's hub (``live.fanout``)
listens for all its sockets and hands them each update; and one snapshot per ``seq`` serves every
socket that connects — the hub keeps the latest snapshot of each day it has watchers of, loaded
once from the shared cache and moved on by each update — so that a crowd connecting costs no
query per socket. A snapshot's open attempts' times are as of ``at``; ``now`` says when it was
sent.

A refused date is answered with an error frame and the socket is closed with the code that
:data:`CLOSE_CODES` gives the error: 4400 for a malformed date (``invalid_date``), 4404 for a day
that has not begun yet (``not_found``).

When the channel layer (Redis) cannot be reached — to join the day's group, or while waiting
for its messages — the socket gets an error frame ``unavailable`` and is closed with
:data:`CLOSE_UNAVAILABLE` (4503, reason ``unavailable``): the page then polls the REST board and
reconnects later. A command of the layer that fails while Redis answers (a read made late by a
busy process) is tried again, not taken for Redis away (``leaderboard.live.fanout``).

Like every websocket of the site, the board's sockets are served within the site's limits
(``core.socket_limits``, around every websocket route): a message over the size limit
closes the socket with 4009, more messages than its rate allows with 4008, a client that leaves
its output unread (it does not answer the layer's ping) with 4008 too, a network's sockets past
its cap are refused with 4429 — the
consumer never sees those messages or sockets. The same layer chooses the socket's language
(the language cookie, else Accept-Language), in which its error frames speak.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import time
from collections.abc import Mapping
from typing import Any

from asgiref.typing import ASGIReceiveCallable, ASGISendCallable
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils.translation import gettext as _
from redis.exceptions import RedisError

from games.clock import utc_today
from games.errors import GameError
from leaderboard import services
from leaderboard.live.fanout import Hub

log = logging.getLogger(__name__)

#: The websocket close code for each ``GameError`` code a connection may be refused with.
CLOSE_CODES = {"invalid_date": 4400, "not_found": 4404}
#: The close code of a socket whose live updates cannot go on (the channel layer is away).
CLOSE_UNAVAILABLE = 4503
#: What a channel layer that cannot be reached raises (redis-py's errors; socket errors).
LAYER_ERRORS = (RedisError, OSError)
#: Longest client frame read; anything longer is refused unread.
MAX_FRAME = 1024
#: Shortest time between two resyncs of one socket, in seconds.
RESYNC_INTERVAL = 1.0


#: The consumers use no channel-layer channel of their own: their process's hub
#: (``leaderboard.live.fanout``) receives the broadcasts for all of them.
NO_LAYER = "none: the process's hub receives for its sockets"


async def board_day(text: str) -> dt.date:
    """``services.board_day`` from the event loop: today's (every watcher's) needs no query; a
    past day's reads its row, on the database thread."""
    if services.parse_day(text) < utc_today():
        return await database_sync_to_async(services.board_day)(text)
    return services.board_day(text)


class DailyBoardConsumer(AsyncWebsocketConsumer):
    channel_layer_alias = NO_LAYER
    day: dt.date | None = None
    seq = -1
    last_resync = float("-inf")
    #: Updates that arrived before this socket's snapshot was sent, to send after it.
    pending: list[tuple[int, str]] | None = None

    accepted = False
    paused = False

    async def __call__(
        self, scope: Any, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> None:
        try:
            await super().__call__(scope, receive, send)
        except LAYER_ERRORS as exc:
            log.warning("live board: a socket closed, the channel layer is away (%s)", exc)
            await self.pause()
        finally:
            # Whatever ended it — its client gone, the layer away, or Daphne cancelling an
            # application that outlived its client — the hub keeps nothing of this socket.
            await self.disconnect(1006)

    async def pause(self) -> None:
        """Tell the client that live updates stopped, and close with CLOSE_UNAVAILABLE (once:
        its hub and the consumer itself may both find the layer away)."""
        if self.paused:
            return
        self.paused = True
        try:
            if not self.accepted:
                await self.accept()
            await self.error("unavailable", _("Live updates are paused; poll the board for now."))
            await self.close(code=CLOSE_UNAVAILABLE, reason="unavailable")
        except Exception:  # the client is gone already
            log.debug("live board: the paused socket was already closed", exc_info=True)

    async def accept(
        self, subprotocol: str | None = None, headers: list[tuple[str, str]] | None = None
    ) -> None:
        await super().accept(subprotocol, headers)
        self.accepted = True

    async def connect(self) -> None:
        await self.accept()
        try:
            day = await board_day(self.scope["url_route"]["kwargs"]["date"])
        except GameError as exc:
            await self.send_json({"type": "error", **exc.to_dict()})
            await self.close(code=CLOSE_CODES[exc.code])
            return
        self.day = day
        self.pending = []
        hub = Hub.current()
        await hub.join(self)
        await self.send_snapshot()
        pending, self.pending = self.pending, None
        for seq, text in pending:
            await self.deliver(seq, text)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels's dispatch without its ``close_old_connections`` before every message (a hop
        to the database thread, for each socket's connect, frame and close): this consumer
        touches the database only through ``database_sync_to_async``, which does it."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def disconnect(self, code: int) -> None:
        if self.day is not None:
            day, self.day = self.day, None
            with contextlib.suppress(*LAYER_ERRORS):  # Redis away: the membership lapses
                await Hub.current().leave(self, day)

    async def send_json(self, content: Mapping[str, object]) -> None:
        await self.send(text_data=json.dumps(content, separators=(",", ":")))

    async def send_snapshot(self) -> None:
        assert self.day is not None
        seq, text = await Hub.current().snapshot(self.day)
        self.seq = max(self.seq, seq)
        await self.send(text_data=text)

    async def error(self, code: str, message: str, **extra: Any) -> None:
        await self.send_json({"type": "error", "code": code, "message": message, **extra})

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.day is None:
            return
        if text_data is None:
            await self.error("bad_message", _("Send JSON text frames, not binary ones."))
            return
        if len(text_data) > MAX_FRAME:
            await self.error(
                "bad_message",
                _("A message is at most %(count)d characters.") % {"count": MAX_FRAME},
            )
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            await self.error("malformed", _("A message is a JSON object."))
            return
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            await self.error("bad_message", _('A message is a JSON object with a "type".'))
            return
        if message["type"] == "resync":
            now = time.monotonic()
            wait = self.last_resync + RESYNC_INTERVAL - now
            if wait > 0:
                await self.error(
                    "throttled", _("One resync a second at most."), retry_after=round(wait, 3)
                )
                return
            self.last_resync = now
            await self.send_snapshot()
        elif message["type"] == "ping":
            await self.send_json({"type": "pong"})
        else:
            await self.error(
                "unknown_type",
                _("Unknown message type %(type)s: use resync or ping.")
                % {"type": repr(message["type"][:40])},
            )

    async def deliver(self, seq: int, text: str) -> None:
        """An update of ``leaderboard.live.broadcast``, from the hub: pass it on unless this
        socket is ahead (or keep it until the snapshot has gone)."""
        if self.pending is not None:
            self.pending.append((seq, text))
            return
        if seq <= self.seq or self.day is None:
            return
        self.seq = seq
        await self.send(text_data=text)
