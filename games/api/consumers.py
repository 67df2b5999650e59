"""``/ws/games/<id>/``: a game's socket, on which its owner plays it — the same moves as the REST
API's, answered alike (docs/api.md, "The game socket").

A thin adapter, like the REST views: every move is read, played and answered by
``games.api.moves`` (the API's serializers, then ``games.services``), so every rule of the REST
path holds here with nothing repeated — idempotency by ply, one ranked attempt, the day's end,
fair-play records, the leaderboard's updates, and the actions limit (``THROTTLE_ACTIONS``), which
the socket's actions and Finish count against under the REST throttle's own key.

**Who.** The socket's user is the session's (the route is wrapped in Channels'
``AuthMiddlewareStack``; the Origin is checked for every socket, ``AllowedHostsOriginValidator``)
or, without one, the user of an API token sent as the first message, ``{"type": "auth", "token":
"<key>"}`` (``core.accounts.auth.TokenAuthentication``: the REST API's rule, a malformed key
refused before any query), within :data:`AUTH_SECONDS`. Then the game must be theirs. A socket
that cannot be authenticated is told ``not_authenticated`` and closed with 4401; a game that does
not exist or is someone else's, ``not_found`` and 4404 — one answer for both, as REST's 404
(:data:`CLOSE_CODES`). Once admitted it is told ``{"type": "ready", "ref", "game": <the game's
payload>}`` (``ref``: the auth message's).

**Until the credential ends.** The socket lives as long as what admitted it
(``core.accounts.sockets``): a log-out of its token or of its session, in any process, closes it
at once (``not_authenticated``, 4401, in the words REST then answers), and so does its token's
expiry (a timer on the socket's loop). Its process's :class:`~core.accounts.sockets.Watch` joins
the credential's group before the ready frame's hop checks the credential, so that no end falls
between the two; an end waits for the answer of the message in hand (:attr:`GameConsumer.turn`).
Should an end be lost (the channel layer failing), the credential is checked again, in a
message's own hop, before any message while the watch is not steady and before the first message
:data:`~core.accounts.sockets.RECHECK_SECONDS` after the last check.

**Messages** (client to server, JSON text frames): ``{"type": "action", "ply", "action"}`` or
``{"type": "action", "ply", "tap", "index", "double_click"}``, ``{"type": "finish", "ply"}``,
``{"type": "resign"}``, each with an optional ``"ref"`` (a string of at most 64 characters, or an
integer) that its answer echoes (not ``id``: an answer's body is the game's, whose ``id`` is the
game's). Answers: ``{"type": "played", "ref", …the REST answer's body…}`` or ``{"type":
"refused", "ref", "code", "message", …the REST error's extra fields…}``. A message that is not
JSON is refused ``malformed``; one that is not an object, of no known type, or with a bad
``ref``, ``invalid``: nothing changes, and the socket stays open.

**Order and threads.** A socket's messages are answered one at a time, in the order they came
(Channels' consumer awaits each); each one's database work, limit count and JSON run in one hop
to a thread, none on the event loop: a thread of the process's pool for game sockets
(``GAME_SOCKET_THREADS``, :func:`in_thread`), not the one thread Channels gives every consumer's
database work in a process (``database_sync_to_async``'s default), so that one player's wait on
the database overlaps another's, as Django's HTTP requests, each in a thread of its own, do.
Each of those few threads keeps its database connection between messages
(:func:`on_kept_connection`): a message borrows none from the PostgreSQL pool, so it costs no
lending and no check of a connection; one that saw an error or lay unused is given back.
Before each message Channels' own ``dispatch`` also hops to its one database thread and back,
to close that thread's old connections, which this consumer does not use: Channels has no public
way to leave it out, and it costs a message about a tenth of a millisecond.

Like every websocket, it is within ``core.socket_limits`` (message size, rate, unread
output, sockets per network), around every route in ``canfield_site/asgi.py``.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth.models import User
from django.db import close_old_connections, connections
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from rest_framework.exceptions import APIException, AuthenticationFailed

from core.accounts import sockets
from core.accounts.auth import user_of_key
from core.accounts.sockets import Credential, Refusal, Watch
from core.api_errors import UNAVAILABLE, UNAVAILABLE_RETRY
from core.parsers import MAX_DEPTH, depth
from games import payloads, services
from games.api import moves
from games.clock import utc_today
from games.errors import GameError

log = logging.getLogger(__name__)

#: The close code of each refusal that ends the socket.
CLOSE_CODES = {"not_authenticated": 4401, "not_found": 4404}
#: Seconds a socket without a session has to send its ``auth`` message.
AUTH_SECONDS = 10.0
#: The longest ``ref`` a client may give a message (a string), echoed in its answer.
MAX_REF = 64
#: The largest integer ``ref`` (JavaScript's safe integers).
MAX_INT_REF = 2**53 - 1
#: The socket uses no channel-layer channel: nothing is sent to it but its own answers.
NO_LAYER = "none: a game's socket answers its own messages"

Ref = str | int | None

_threads: ThreadPoolExecutor | None = None
_threads_lock = threading.Lock()


def in_thread(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` made awaitable in the process's pool of game-socket threads (made at the first
    message: importing the application starts no thread), on the thread's kept database
    connection (:func:`on_kept_connection`)."""
    global _threads
    with _threads_lock:
        if _threads is None:
            _threads = ThreadPoolExecutor(
                max_workers=settings.GAME_SOCKET_THREADS, thread_name_prefix="game-socket"
            )
    return sync_to_async(on_kept_connection(func), thread_sensitive=False, executor=_threads)


def stop_threads(timeout: float = 10.0) -> None:
    """End the process's pool of game-socket threads, each giving back its kept connection (a
    process that stops serving, or a test run before its database is dropped); the next
    message makes a new pool."""
    global _threads
    with _threads_lock:
        threads, _threads = _threads, None
    if threads is None:
        return
    count = settings.GAME_SOCKET_THREADS
    barrier = threading.Barrier(count, timeout=timeout)  # (one task for each thread)

    def give_back() -> None:
        barrier.wait()
        connections.close_all()

    for done in [threads.submit(give_back) for _thread in range(count)]:
        done.result(timeout=timeout)
    threads.shutdown()


#: Seconds a game-socket thread's connection may stay unused before it is given back to the
#: process's pool (which checks a connection as it lends it again).
KEEP_IDLE_SECONDS = 20.0
_kept = threading.local()


def on_kept_connection(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` run on the calling thread's database connection, kept between calls: each of the
    few game-socket threads keeps the connection it was lent (PostgreSQL's pool: at most
    ``GAME_SOCKET_THREADS`` of its ``DB_POOL_MAX``), so that a message costs no lending and no
    check of a connection (a round trip to the database each), where an HTTP request, in a
    thread of its own, borrows one and gives it back. A connection that saw an error, or that
    stayed unused ``KEEP_IDLE_SECONDS``, is given back before it is used again (the next one
    lent is checked); none is kept inside a transaction."""

    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> Any:
        now = time.monotonic()
        if now - getattr(_kept, "used", now) > KEEP_IDLE_SECONDS:
            close_old_connections()
        try:
            return func(*args, **kwargs)
        finally:
            _kept.used = time.monotonic()
            for connection in connections.all(initialized_only=True):
                if connection.errors_occurred or connection.in_atomic_block:
                    connection.close()

    return call


def _dumps(frame: Mapping[str, Any]) -> str:
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=False, default=str)


def _frame(kind: str, ref: Ref, body: Mapping[str, Any]) -> str:
    return _dumps({"type": kind, "ref": ref, **body})


def _refusal(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {**extra, "code": code, "message": message}


def _token_user(key: str) -> tuple[User, Credential]:
    """The user of API token ``key`` (the REST API's rule), and the token as the socket's
    credential; or ``AuthenticationFailed``."""
    user, token = user_of_key(key)
    return user, Credential.of_token(token)


class CredentialEnded(Exception):
    """The socket's credential no longer admits its user: refused with ``refusal``."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal["message"])
        self.refusal = refusal


def _ready(
    game_id: int, user: User, ref: Ref, known: services.Known, credential: Credential
) -> str:
    """The ``ready`` frame of ``user``'s game, whose row ``known`` then holds; ``CredentialEnded``
    if ``credential`` no longer admits ``user``, ``GameError`` ``not_found`` if the game is none
    of theirs."""
    refusal = credential.refusal(user)
    if refusal is not None:
        raise CredentialEnded(refusal)
    game = services.get_game(game_id, user)
    known.game = game
    return _frame("ready", ref, {"game": payloads.game_dict(game, utc_today())})


def _answer(kind: str, ref: Ref, play: Callable[[], Mapping[str, Any]]) -> str:
    """The frame answering one move: ``played`` with what ``play`` returned, or ``refused`` with
    the REST API's error body."""
    try:
        return _frame("played", ref, play())
    except (GameError, APIException) as exc:
        return _frame("refused", ref, moves.refusal(exc))
    except UNAVAILABLE:
        log.warning("game socket: the database is unavailable (%s)", kind, exc_info=True)
        return _frame(
            "refused",
            ref,
            _refusal(
                "unavailable",
                _("The service is briefly unavailable. Please try again in a few seconds."),
                retry_after=UNAVAILABLE_RETRY,
            ),
        )


def _play(
    game_id: int, user: User, kind: str, ref: Ref, body: dict[str, Any], known: services.Known
) -> str:
    """One move of ``user`` on ``game_id``, answered: what the REST view of ``kind`` does.
    ``known``: the socket's copy of the game's row, which an action in its position is played
    on without reading the row again (``services.play``); resigning and Finish read it."""

    def move() -> Mapping[str, Any]:
        if kind == "resign":  # (its body is read by nothing, as REST's)
            known.forget()
            return moves.resign_game(game_id, user)
        moves.count_action(user)  # (before the body is read, as the REST throttle counts)
        if kind == "action":
            return moves.play_action(game_id, user, body, known)
        known.forget()
        return moves.finish_game(game_id, user, body)

    return _answer(kind, ref, move)


def _play_checked(
    credential: Credential | None,
    game_id: int,
    user: User,
    kind: str,
    ref: Ref,
    body: dict[str, Any],
    known: services.Known,
) -> str | Refusal:
    """:func:`_play`, after ``credential`` (when given: a check is due) is found to still admit
    ``user``; else its refusal, and nothing is played."""
    if credential is not None:
        refusal = credential.refusal(user)
        if refusal is not None:
            return refusal
    return _play(game_id, user, kind, ref, body, known)


class GameConsumer(AsyncWebsocketConsumer):
    channel_layer_alias = NO_LAYER
    game_id = 0
    #: The socket's player, once admitted.
    user: User | None = None
    #: What the socket was admitted with (``core.accounts.sockets``), once it is being admitted.
    credential: Credential | None = None
    #: When the credential was last found to admit the user (the monotonic clock).
    checked = 0.0
    #: The game's row as the socket's last move left it (``services.Known``).
    known: services.Known
    #: Held while the socket admits its user or answers a message, and by the end of its
    #: credential, which so comes after the answer in hand.
    turn: asyncio.Lock
    #: Whether the server has closed the socket (what the client still sends is not answered).
    closing = False
    #: The language of the socket's frames (``core.socket_limits``), for those the socket sends
    #: from outside its own context: the end of its credential.
    language = "en"
    _deadline: asyncio.TimerHandle | None = None
    _timeout: asyncio.Task[None] | None = None
    _expiry: asyncio.TimerHandle | None = None
    _expired: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.known = services.Known()
        self.turn = asyncio.Lock()
        self.language = translation.get_language()
        await self.accept()
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            session_key = self.scope["session"].session_key
            assert isinstance(session_key, str)  # (the session that authenticated the user)
            async with self.turn:
                await self.admit(user, Credential.of_session(session_key))
            return
        self._deadline = asyncio.get_running_loop().call_later(AUTH_SECONDS, self._time_out)

    def _time_out(self) -> None:
        self._timeout = asyncio.ensure_future(
            self.refuse_and_close(
                _refusal("not_authenticated", _("Authentication credentials were not provided."))
            )
        )

    async def disconnect(self, code: int) -> None:
        self.closing = True
        self.disconnect_deadline()
        self.stop_expiry()
        if self.credential is not None:
            await Watch.current().leave(self, self.credential.group)

    async def admit(self, user: object, credential: Credential, ref: Ref = None) -> None:
        """Serve ``user`` if ``credential`` still admits them and the game is theirs, else
        refuse (``not_authenticated``, ``not_found``) and close. The socket watches the
        credential from before its check on (``core.accounts.sockets``)."""
        assert isinstance(user, User)
        self.credential = credential
        await Watch.current().join(self, credential.group)
        try:
            ready = await in_thread(_ready)(self.game_id, user, ref, self.known, credential)
        except CredentialEnded as exc:
            await self.refuse_and_close(exc.refusal, ref)
            return
        except GameError as exc:
            await self.refuse_and_close(exc.to_dict(), ref)
            return
        self.checked = time.monotonic()
        self.user = user
        await self.send(text_data=ready)
        if credential.expiry is not None:
            left = (credential.expiry - timezone.now()).total_seconds()
            self._expiry = asyncio.get_running_loop().call_later(max(left, 0.0), self._expire)

    def _expire(self) -> None:
        self._expired = asyncio.ensure_future(self.end(expired=True))

    async def credential_ended(self) -> None:
        """The socket's credential was logged out (``core.accounts.sockets.Watch``)."""
        await self.end(expired=False)

    async def end(self, expired: bool) -> None:
        """Refuse (the credential expired, or was logged out) and close, once the message in
        hand is answered."""
        assert self.credential is not None
        with translation.override(self.language):
            refusal = self.credential.expired() if expired else self.credential.ended()
        async with self.turn:
            if not self.closing:
                await self.refuse_and_close(refusal)

    def check_due(self) -> bool:
        """Whether the credential is to be checked before the next message: while the watch is
        not steady, or once the last check is ``RECHECK_SECONDS`` old."""
        return (
            not Watch.current().steady or time.monotonic() - self.checked >= sockets.RECHECK_SECONDS
        )

    async def refuse_and_close(self, refusal: Mapping[str, Any], ref: Ref = None) -> None:
        """Refuse with ``refusal`` (``not_authenticated``, ``not_found``) and close the socket
        with its code."""
        self.disconnect_deadline()
        self.stop_expiry()
        self.closing = True
        await self.send(text_data=_frame("refused", ref, refusal))
        await self.close(code=CLOSE_CODES[refusal["code"]])

    def disconnect_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def stop_expiry(self) -> None:
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None

    async def refuse(self, ref: Ref, code: str, message: str, **extra: Any) -> None:
        await self.send(text_data=_frame("refused", ref, _refusal(code, message, **extra)))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        async with self.turn:
            if not self.closing:
                await self.answer(text_data)

    async def answer(self, text_data: str | None) -> None:
        """Answer one message of the client's (a binary frame: ``text_data`` is ``None``)."""
        if text_data is None:
            await self.refuse(None, "malformed", _("Send JSON text frames, not binary ones."))
            return
        try:
            message = json.loads(text_data)
        except (ValueError, RecursionError):
            await self.refuse(None, "malformed", _("A message is a JSON object."))
            return
        if depth(message) > MAX_DEPTH:
            await self.refuse(None, "malformed", _("A message is a JSON object."))
            return
        if not isinstance(message, dict):
            await self.refuse(None, "invalid", _('A message is a JSON object with a "type".'))
            return
        ref = message.pop("ref", None)
        if not (
            ref is None
            or (isinstance(ref, str) and len(ref) <= MAX_REF)
            or (type(ref) is int and abs(ref) <= MAX_INT_REF)
        ):
            text = _("A ref is a string of at most %(count)d characters, or an integer.") % {
                "count": MAX_REF
            }
            await self.refuse(None, "invalid", text, fields={"ref": [text]})
            return
        kind = message.pop("type", None)
        if self.user is None:
            await self.authenticate(kind, ref, message)
            return
        if kind not in {"action", "finish", "resign"}:
            text = _("Unknown message type: use action, finish or resign.")
            await self.refuse(ref, "invalid", text, fields={"type": [text]})
            return
        check = self.credential if self.check_due() else None
        answer = await in_thread(_play_checked)(
            check, self.game_id, self.user, kind, ref, message, self.known
        )
        if isinstance(answer, dict):
            await self.refuse_and_close(answer, ref)
            return
        if check is not None:
            self.checked = time.monotonic()
        await self.send(text_data=answer)

    async def authenticate(self, kind: Any, ref: Ref, message: dict[str, Any]) -> None:
        """The first message of a socket without a session: ``{"type": "auth", "token"}``, which
        decides (the deadline for it is over once it has come)."""
        self.disconnect_deadline()
        token = message.get("token")
        if kind != "auth" or set(message) != {"token"} or not isinstance(token, str):
            await self.refuse_and_close(
                _refusal(
                    "not_authenticated",
                    _('Authenticate first: send {"type": "auth", "token": "<your API token>"}.'),
                ),
                ref,
            )
            return
        try:
            user, credential = await in_thread(_token_user)(token)
        except AuthenticationFailed as exc:
            await self.refuse_and_close(moves.refusal(exc), ref)
            return
        await self.admit(user, credential, ref)
