"""``/ws/daily/<date>/``: the live board of a UTC day. Anyone may watch, logged in or not.

Server to client, JSON text frames, each with the day's sequence number ``seq``:
- on connect, and in answer to ``{"type": "resync"}``: a snapshot,
  ``{"type": "snapshot", "date", "seq", "at", "now", "count", "results": [the top 100 rows]}``;
- whenever standings changed: an update, ``{"type": "update", "date", "seq", "at", "count",
  "size", "rows", "full"}``: the rows that changed since ``seq - 1`` at their ranks, the top cut to
  ``size`` rows (all of them when ``full``; at most one update per broadcast window, see
  ``leaderboard.broadcast``). Both frames are built by ``leaderboard.services``
  (``snapshot_frame``, ``update_frame``), their rows as the REST board's (``payloads.BoardRow``);
- ``{"type": "pong"}`` in answer to ``{"type": "ping"}``;
- ``{"type": "error", "code", "message"}`` for a message it does not understand; nothing changes.

``seq`` grows by one with every update of the day, across all server processes. A watcher never
receives a frame with a lower ``seq`` than one it already has; a client that sees ``seq`` jump by
more than one has missed an update and may send ``{"type": "resync"}`` (at most one a second).

One snapshot per ``seq`` serves every socket: each process keeps the latest snapshot of each day it
has watchers of (:class:`LatestFrames`), loaded once from the shared cache and moved on by each
update it passes on, so that a crowd connecting costs no query per socket. A snapshot's open
attempts' times are as of ``at``; ``now`` says when it was sent.

A refused date is answered with an error frame and the socket is closed with the code that
:data:`CLOSE_CODES` gives the error: 4400 for a malformed date (``invalid_date``), 4404 for a day
that has not begun yet (``not_found``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import time
from collections.abc import Mapping
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils import timezone

from games.errors import GameError
from games.payloads import iso
from leaderboard import broadcast, services
from leaderboard.payloads import SnapshotFrame

#: The websocket close code for each ``GameError`` code a connection may be refused with.
CLOSE_CODES = {"invalid_date": 4400, "not_found": 4404}
#: Longest client frame read; anything longer is refused unread.
MAX_FRAME = 1024
#: Shortest time between two resyncs of one socket, in seconds.
RESYNC_INTERVAL = 1.0


class LatestFrames:
    """This process's latest snapshot frame of each day that has watchers here, shared by all of
    them, with its JSON text. Loaded from the shared cache (``services.latest_snapshot``) by the
    first watcher that needs it — one load at a time per day — then moved on by every update
    that reaches this process's watchers, which it follows while it has one (and forgets when
    the last one leaves, or an update does not follow it). Used on the event loop only."""

    def __init__(self) -> None:
        self.frames: dict[dt.date, tuple[SnapshotFrame, str]] = {}
        self.watchers: dict[dt.date, int] = {}
        self.locks: dict[dt.date, asyncio.Lock] = {}

    def join(self, day: dt.date) -> None:
        self.watchers[day] = self.watchers.get(day, 0) + 1

    def leave(self, day: dt.date) -> None:
        self.watchers[day] -= 1
        if self.watchers[day] <= 0:
            del self.watchers[day]
            self.frames.pop(day, None)
            self.locks.pop(day, None)

    async def snapshot(self, day: dt.date) -> tuple[int, str]:
        """The day's latest snapshot: its ``seq`` and its text, ``now`` added."""
        held = self.frames.get(day)
        if held is None:
            async with self.locks.setdefault(day, asyncio.Lock()):
                held = self.frames.get(day)
                if held is None:
                    frame = await database_sync_to_async(services.latest_snapshot)(day)
                    held = (frame, _text(frame))
                    if day in self.watchers:
                        self.frames[day] = held
        frame, text = held
        return frame["seq"], f'{text[:-1]},"now":"{iso(timezone.now())}"}}'

    def follow(self, day: dt.date, seq: int, text: str) -> None:
        """An update of ``day`` reached this process: move the day's snapshot on."""
        held = self.frames.get(day)
        if held is None or seq <= held[0]["seq"]:
            return
        try:
            frame = services.apply_update(held[0], json.loads(text))
        except (ValueError, KeyError, TypeError):
            del self.frames[day]  # it missed one: the next watcher loads the stored one
            return
        self.frames[day] = (frame, _text(frame))


def _text(frame: Mapping[str, object]) -> str:
    return json.dumps(frame, separators=(",", ":"))


#: This process's latest frames.
LATEST = LatestFrames()


class DailyBoardConsumer(AsyncWebsocketConsumer):
    day: dt.date | None = None
    group: str | None = None
    seq = -1
    last_resync = float("-inf")

    async def connect(self) -> None:
        await self.accept()
        try:
            day = services.board_day(self.scope["url_route"]["kwargs"]["date"])
        except GameError as exc:
            await self.send_json({"type": "error", "code": exc.code, "message": exc.message})
            await self.close(code=CLOSE_CODES[exc.code])
            return
        self.day = day
        self.group = broadcast.group_name(day)
        broadcast.register_consumer_loop(asyncio.get_running_loop())
        LATEST.join(day)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send_snapshot()

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.day is not None:
            LATEST.leave(self.day)
            self.day = None

    async def send_json(self, content: Mapping[str, object]) -> None:
        await self.send(text_data=json.dumps(content, separators=(",", ":")))

    async def send_snapshot(self) -> None:
        assert self.day is not None
        seq, text = await LATEST.snapshot(self.day)
        self.seq = max(self.seq, seq)
        await self.send(text_data=text)

    async def error(self, code: str, message: str, **extra: Any) -> None:
        await self.send_json({"type": "error", "code": code, "message": message, **extra})

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.day is None:
            return
        if text_data is None:
            await self.error("bad_message", "Send JSON text frames, not binary ones.")
            return
        if len(text_data) > MAX_FRAME:
            await self.error("bad_message", f"A message is at most {MAX_FRAME} characters.")
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            await self.error("malformed", "A message is a JSON object.")
            return
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            await self.error("bad_message", 'A message is a JSON object with a "type".')
            return
        if message["type"] == "resync":
            now = time.monotonic()
            wait = self.last_resync + RESYNC_INTERVAL - now
            if wait > 0:
                await self.error(
                    "throttled", "One resync a second at most.", retry_after=round(wait, 3)
                )
                return
            self.last_resync = now
            await self.send_snapshot()
        elif message["type"] == "ping":
            await self.send_json({"type": "pong"})
        else:
            await self.error(
                "unknown_type",
                f"Unknown message type {message['type'][:40]!r}: use resync or ping.",
            )

    async def board_update(self, event: dict[str, Any]) -> None:
        """A broadcast of ``leaderboard.broadcast``: pass it on unless this socket is ahead."""
        if self.day is not None:
            LATEST.follow(self.day, event["seq"], event["text"])
        if event["seq"] <= self.seq:
            return
        self.seq = event["seq"]
        await self.send(text_data=event["text"])
