"""``/ws/games/<id>/watch/``: a game's spectators' socket, live (docs/api.md, "Watching a game").

**Who.** A spectator is whoever the socket's session says (the route is wrapped in Channels'
``AuthMiddlewareStack``, as the game's socket is), or the user of an API token sent in a message
``{"type": "auth", "token"}``, or nobody: a visitor may watch where ``games.services.can_watch``
lets anyone (a practice game whose player keeps practice public; a daily attempt once its day is
over). Admission is that rule's, always (``games.watch.admit``): a socket it refuses is told why
— ``{"type": "refused", "code", "message"}`` — and closed (:data:`CLOSE_CODES`: 4404 for a game
that does not exist or is private, 4403 for a daily attempt of a day not over, 4401 for a token
that admits nobody, 4429 past ``WATCHERS_PER_GAME`` spectators of the game). A socket without a
session that the rule refuses as a visitor has :data:`AUTH_SECONDS` to send its ``auth``
message before it is refused; one it admits as a visitor is served at once, and may still send
``auth`` (once) to watch as that player: it is admitted again and sent a new snapshot.

**Frames** (server to client): ``{"type": "snapshot", "ply", "watching", "game"}`` once admitted
and in answer to ``{"type": "resync"}`` (one a second at most); ``{"type": "update", "ply",
"game"}`` after each change of the game (an action, an undo, Finish, a resignation, the day's
end); ``{"type": "watching", "watching"}`` when the number of spectators changes. ``game`` is the
game's payload as its owner's ``GET /api/games/<id>/`` answers it — the player's view, never a
hidden card —, ``ply`` its position. An ``update`` always follows what the socket was sent last
(the next ply, or the game's end at the same ply); a change that skips plies for it — Finish's
whole line, or frames that went by while its process was busy — comes as a ``snapshot``. A
client that still sees a ``ply`` beyond the one after its own resyncs. A game that ends sends its
last frame, and the socket stays open until the spectator leaves.

**Messages** (client to server): ``resync``, ``auth``, and the pongs the site's liveness check
asks for (``core.socket_limits`` takes them). Anything else — an action above all — is answered
``{"type": "error", "code", "message"}`` and changes nothing: a spectator never plays.

Frames reach the socket through its process's hub (``games.watch_hub``), which counts it among
the game's spectators; every limit of the site's sockets applies (``core.socket_limits``, around
every websocket route).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.contrib.auth.models import AnonymousUser, User
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from rest_framework.exceptions import AuthenticationFailed

from core.accounts.auth import user_of_key
from games import watch
from games.api import moves
from games.errors import GameError
from games.services import Viewer
from games.watch_hub import Hub, Version, frame_text

log = logging.getLogger(__name__)

#: The close code of each refusal that ends a spectator's socket.
CLOSE_CODES = {
    "not_authenticated": 4401,
    "own_attempt_not_over": 4403,
    "not_found": 4404,
    "too_many_watchers": 4429,
}
#: The close code of a socket whose frames cannot go on (the channel layer is away).
CLOSE_UNAVAILABLE = 4503
#: Seconds a socket without a session, refused as a visitor, has to send its ``auth`` message.
AUTH_SECONDS = 10.0
#: Shortest time between two resyncs of one socket, in seconds.
RESYNC_INTERVAL = 1.0
#: The spectators' sockets use no channel-layer channel of their own: their process's hub
#: receives for all of them.
NO_LAYER = "none: the process's hub receives for its spectators"


class WatchConsumer(AsyncWebsocketConsumer):
    channel_layer_alias = NO_LAYER
    game_id = 0
    #: Who watches: the session's or the token's user, or a visitor (once admitted).
    viewer: Viewer | None = None
    #: Whether a user was authenticated (by the session or a token): no second ``auth``.
    authenticated = False
    #: Whether the hub counts this socket among the game's spectators.
    counted = False
    #: The version of the latest frame sent (``watch_hub.Version``).
    version: Version = (-1, 0)
    #: Frames that arrived before the socket's snapshot went, to send after it.
    pending: list[tuple[Version, str, str]] | None = None
    last_resync = float("-inf")
    closing = False
    language = "en"
    _deadline: asyncio.TimerHandle | None = None
    _timeout: asyncio.Task[None] | None = None
    #: Held while the socket is admitted or answers a message.
    turn: asyncio.Lock

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.turn = asyncio.Lock()
        self.language = translation.get_language()
        await self.accept()
        user = self.scope.get("user")
        async with self.turn:
            if user is not None and user.is_authenticated:
                assert isinstance(user, User)  # (the session's user, loaded lazily)
                self.authenticated = True
                await self.admit(user)
                return
            refused = await self.admit(AnonymousUser(), final=False)
            if refused is not None:  # (a token may still let them in)
                self._deadline = asyncio.get_running_loop().call_later(
                    AUTH_SECONDS, self._time_out, refused
                )

    def _time_out(self, refused: GameError) -> None:
        self._timeout = asyncio.ensure_future(self.refused_in_time(refused))

    async def refused_in_time(self, refused: GameError) -> None:
        async with self.turn:
            if not self.closing and self.viewer is None:
                with translation.override(self.language):
                    await self.refuse_and_close(refused.code, refused.message)

    async def disconnect(self, code: int) -> None:
        self.closing = True
        self.stop_deadline()
        if self.counted:
            self.counted = False
            try:
                await Hub.current().leave(self)
            except Exception:  # Redis away: the count lapses by itself
                log.debug("watch: a spectator left without being counted out", exc_info=True)

    def stop_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    async def admit(self, viewer: Viewer, final: bool = True) -> GameError | None:
        """Admit ``viewer`` if ``games.services.can_watch`` lets them watch the game, and send
        the snapshot; else refuse and close — or, when not ``final`` (a visitor who may still
        authenticate), answer the refusal and keep the socket open."""
        try:
            await database_sync_to_async(watch.admit)(self.game_id, viewer)
        except GameError as exc:
            if final:
                await self.refuse_and_close(exc.code, exc.message)
            return exc
        self.stop_deadline()
        self.viewer = viewer
        if not self.counted:
            self.pending = []
            try:
                count = await Hub.current().join(self)
            except Exception as exc:
                log.warning("watch: a spectator of game %s was not served (%s)", self.game_id, exc)
                await self.pause()
                return None
            if not count.admitted:
                self.pending = None
                await self.refuse_and_close(
                    "too_many_watchers",
                    ngettext(
                        "This game has %(count)d spectator, the most a game may have: try "
                        "again later.",
                        "This game has %(count)d spectators, the most a game may have: try "
                        "again later.",
                        count.total,
                    )
                    % {"count": count.total},
                )
                return None
            self.counted = True
        await self.send_snapshot()
        return None

    async def send_snapshot(self) -> None:
        """The game as it stands, and the number of its spectators; then any frame that came
        meanwhile and is newer."""
        hub = Hub.current()
        held = hub.latest.get(self.game_id)
        if held is None or self.pending is None:  # (a resync reads the row)
            held = await database_sync_to_async(watch.snapshot)(self.game_id)
            hub.keep(self.game_id, *held)
        version, game = held
        self.version = max(self.version, version)
        said = hub.watching(self.game_id)
        await self.send(text_data=frame_text("snapshot", version, game, watching=said))
        pending, self.pending = self.pending or [], None
        for later, update, payload in pending:
            await self.deliver(later, update, payload)
        # (a number that came while the snapshot went was not sent on its own)
        if (now := hub.watching(self.game_id)) != said:
            await self.send(text_data=json.dumps({"type": "watching", "watching": now}))

    async def deliver(self, version: Version, update: str, payload: str) -> None:
        """A frame of the game from the hub: its ``update`` when it follows what the socket was
        sent last (the next ply, or the game's end), else — a ply skipped: frames went by while
        the hub was busy, or Finish played several — the game as a ``snapshot``; nothing when
        the socket has it (or a later one) already. Held until the socket's first snapshot has
        gone."""
        if self.pending is not None:
            self.pending.append((version, update, payload))
            return
        if self.closing or version <= self.version:
            return
        follows = version[0] == self.version[0] + 1 or version[0] == self.version[0]
        self.version = version
        if follows:
            await self.send(text_data=update)
            return
        watching = Hub.current().watching(self.game_id)
        await self.send(text_data=frame_text("snapshot", version, payload, watching=watching))

    async def still_admitted(self) -> bool:
        """Whether the rule still lets this socket's spectator watch (asked again when the
        player made their practice games private meanwhile); if not, refused and closed."""
        if self.closing or self.viewer is None:
            return False
        with translation.override(self.language):  # (asked from the hub: the socket's language)
            try:
                await database_sync_to_async(watch.admit)(self.game_id, self.viewer)
            except GameError as exc:
                await self.refuse_and_close(exc.code, exc.message)
                return False
        return True

    async def send_count(self, text: str) -> None:
        if not self.closing and self.pending is None:
            await self.send(text_data=text)

    async def pause(self) -> None:
        """The channel layer is away: say so, and close (the page connects again later)."""
        if self.closing:
            return
        self.closing = True
        self.counted = False
        try:
            with translation.override(self.language):
                await self.error("unavailable", _("Live updates are paused; try again shortly."))
            await self.close(code=CLOSE_UNAVAILABLE)
        except Exception:  # the client is gone already
            log.debug("watch: the paused socket was already closed", exc_info=True)

    async def refuse_and_close(self, code: str, message: str) -> None:
        self.stop_deadline()
        self.closing = True
        frame = {"type": "refused", "code": code, "message": message}
        await self.send(text_data=json.dumps(frame, ensure_ascii=False))
        await self.close(code=CLOSE_CODES[code])

    async def error(self, code: str, message: str, **extra: Any) -> None:
        frame = {"type": "error", "code": code, "message": message, **extra}
        await self.send(text_data=json.dumps(frame, ensure_ascii=False))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        async with self.turn:
            if not self.closing:
                await self.answer(text_data)

    async def answer(self, text_data: str | None) -> None:
        """Answer one message of the spectator's: ``resync`` or ``auth``; anything else is an
        error frame, and nothing changes."""
        if text_data is None:
            await self.error("malformed", _("Send JSON text frames, not binary ones."))
            return
        try:
            message = json.loads(text_data)
        except (ValueError, RecursionError):
            await self.error("malformed", _("A message is a JSON object."))
            return
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "auth" and isinstance(message, dict):
            await self.authenticate(message)
        elif kind == "resync" and self.viewer is not None:
            await self.resync()
        else:
            await self.error(
                "invalid",
                _(
                    "A spectator sends only resync (or auth, to watch as a player): a spectator "
                    "never plays."
                ),
            )

    async def resync(self) -> None:
        now = time.monotonic()
        wait = self.last_resync + RESYNC_INTERVAL - now
        if wait > 0:
            await self.error(
                "throttled", _("One resync a second at most."), retry_after=round(wait, 3)
            )
            return
        self.last_resync = now
        await self.send_snapshot()

    async def authenticate(self, message: dict[str, Any]) -> None:
        """``{"type": "auth", "token"}``: watch as the token's player (once, and not on a socket
        whose session already says who it is)."""
        token = message.get("token")
        if self.authenticated or set(message) != {"type", "token"} or not isinstance(token, str):
            text = (
                _("This socket is authenticated already.")
                if self.authenticated
                else _('Authenticate with {"type": "auth", "token": "<your API token>"}.')
            )
            await self.error("invalid", text)
            return
        self.authenticated = True
        try:
            user, _token = await database_sync_to_async(user_of_key)(token)
        except AuthenticationFailed as exc:
            refusal = moves.refusal(exc)
            await self.refuse_and_close("not_authenticated", str(refusal["message"]))
            return
        assert isinstance(user, User)
        await self.admit(user)
