"""Sockets that end with their credentials: a socket admitted with an API token or a session is
closed when that token or session ends — at once when it is logged out, whichever process served
the log-out, and when the token expires.

**One group per credential.** A credential (:class:`Credential`: a token's digest, or a session's
key) has a channel-layer group named by a digest of it (:meth:`Credential.group`: no key or
session id is ever written to the layer). Two ends are sent to it (:func:`end`, one
``group_send``, bounded by :data:`END_WITHIN` and never failing its caller: a failure is logged):

- a token deleted — by a log-out with it, by the log-out of the session it was given to, by staff
  in the admin, with its user — once the deletion is committed (Django's ``post_delete`` signal
  of knox's token model); an expired token's sockets have ended already (below);
- a session logged out (Django's ``user_logged_out`` signal, which ``logout()`` sends before it
  flushes the session: the page's log-out, the API's, the admin's).

**One listener per process.** Each event loop that serves sockets has one :class:`Watch`: one
channel of the layer for all its sockets (not one per socket: a socket's own channel would fail
with Redis and take its socket with it), joined to the group of every credential its sockets were
admitted with, while one of them is open. An end that reaches the watch is handed to each socket
of that credential (:meth:`Member.credential_ended`), which refuses ``not_authenticated`` and
closes with 4401. A token's expiry is a timer on the socket's own loop, set by the socket.

**When an end may be lost.** An end sent while the channel layer fails (Redis away, a busy loop
that reads late) reaches nobody. So a socket checks its credential again (one query, in the hop
its message makes to a thread anyway: :meth:`Credential.refusal`) before a message whenever its
last check is :data:`RECHECK_SECONDS` old, and before every message while its watch is not
*steady* — from a failed command of the layer until the watch has joined all its groups anew
(Redis may come back empty). A socket that sends nothing is not checked; it can play nothing
either.
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime as dt
import hashlib
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from importlib import import_module
from typing import Any, Literal, Protocol

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import SESSION_KEY, user_logged_out
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models.signals import post_delete
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _

from core.accounts import auth

log = logging.getLogger(__name__)

#: The type of the message an end sends to a credential's group.
ENDED = "credential.ended"
#: Seconds an end's ``group_send`` may take (a log-out waits for it).
END_WITHIN = 2.0
#: Seconds a watch's ``group_add`` or ``group_discard`` may take.
LAYER_WAIT = 2.0
#: Seconds between two renewals of a group's membership (channels_redis forgets a member after a
#: day, its ``group_expiry``).
RENEW = 3600.0
#: The first wait before a failed command of the layer is tried again, and the longest.
RETRY_FIRST, RETRY_MOST = 0.1, 5.0
#: A socket checks its credential again before a message once its last check is this old.
RECHECK_SECONDS = 60.0

Refusal = dict[str, str]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Credential:
    """What a socket was admitted with: an API token (``key``: its digest, as knox stores it;
    ``expiry``: when it stops working) or a session (``key``: its session key)."""

    kind: Literal["token", "session"]
    key: str
    expiry: dt.datetime | None = None

    @classmethod
    def of_token(cls, token: Any) -> Credential:
        return cls("token", str(token.digest), token.expiry)

    @classmethod
    def of_session(cls, session_key: str) -> Credential:
        return cls("session", session_key)

    @property
    def group(self) -> str:
        """The credential's channel-layer group."""
        return f"credential.{self.kind}.{_digest(self.key)}"

    def ended(self) -> Refusal:
        """The refusal of a socket whose credential was logged out: what REST now answers it."""
        if self.kind == "token":
            return _refusal(auth.invalid_message())
        return _refusal(_("Authentication credentials were not provided."))

    def expired(self) -> Refusal:
        return _refusal(auth.expired_message())

    def refusal(self, user: User) -> Refusal | None:
        """Why the credential no longer admits ``user``, or ``None`` while it does: one query (the
        token's row, or the session's)."""
        if self.kind == "token":
            row = auth.token_model().objects.filter(pk=self.key, user_id=user.pk)
            found = row.values("expiry").first()
            if found is None:
                return self.ended()
            if found["expiry"] is not None and found["expiry"] <= timezone.now():
                return self.expired()
            return None
        store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=self.key)
        if store.get(SESSION_KEY) != str(user.pk):
            return self.ended()
        return None


def _refusal(message: str) -> Refusal:
    return {"code": "not_authenticated", "message": message}


# --- ending a credential's sockets ---------------------------------------------------------------


async def end_group(group: str) -> None:
    """Send the end of the credential of ``group`` to its sockets, in every process."""
    layer = get_channel_layer()
    if layer is None:
        return
    async with asyncio.timeout(END_WITHIN):
        await layer.group_send(group, {"type": ENDED, "group": group})


def end(group: str) -> None:
    """:func:`end_group` from a thread (a request's, a task's). Never raises: what ended it is
    done; a failure is logged (the sockets then find out at their next check)."""
    try:
        async_to_sync(end_group)(group)
    except Exception as exc:
        log.warning("accounts: the end of a credential reached no socket (%r)", exc)


def _token_deleted(sender: object, instance: Any, using: str = "default", **kwargs: Any) -> None:
    expiry = instance.expiry
    if expiry is not None and expiry <= timezone.now():
        return  # its sockets ended when it expired
    group = Credential.of_token(instance).group
    transaction.on_commit(lambda: end(group), using=using)


def _logged_out(sender: object, request: HttpRequest | None = None, **kwargs: Any) -> None:
    session = getattr(request, "session", None)
    key = getattr(session, "session_key", None)
    if isinstance(key, str) and key:
        end(Credential.of_session(key).group)


def connect_signals() -> None:
    """Send the ends (``AccountsConfig.ready``)."""
    post_delete.connect(
        _token_deleted, sender=auth.token_model(), dispatch_uid="accounts.token_deleted"
    )
    user_logged_out.connect(_logged_out, dispatch_uid="accounts.logged_out")


# --- the listener of a process -------------------------------------------------------------------


class Member(Protocol):
    """A socket watched for the end of its credential."""

    async def credential_ended(self) -> None: ...


class Watch:
    """This event loop's listener for the ends of its sockets' credentials (see the module's
    docstring): one channel, the groups of the credentials of the sockets open."""

    _watches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Watch] = (
        weakref.WeakKeyDictionary()
    )

    @classmethod
    def current(cls) -> Watch:
        loop = asyncio.get_running_loop()
        watch = cls._watches.get(loop)
        if watch is None:
            watch = cls._watches[loop] = cls()
        return watch

    def __init__(self) -> None:
        self.layer = get_channel_layer()
        self.channel: str | None = None
        self.listener: asyncio.Task[None] | None = None
        self.members: dict[str, set[Member]] = {}
        #: When each group was joined (or its membership renewed), by the monotonic clock.
        self.joined: dict[str, float] = {}
        #: Whether every group of ``members`` is joined and the layer has not failed since: only
        #: then can no end have been missed.
        self.steady = self.layer is not None
        #: Counts the layer's failures: a recovery that saw one more started over.
        self.failures = 0
        self.recovery: asyncio.Task[None] | None = None
        #: Taken to join or leave a group: a group left by its last socket while the next one
        #: joins it could otherwise end up left.
        self.membership = asyncio.Lock()
        self.ending: set[asyncio.Task[None]] = set()

    async def join(self, member: Member, group: str) -> None:
        """Hand ``group``'s ends to ``member`` from now on. Once this returns the watch is a
        member of the group, or it is not steady (a failed command: it joins again as it
        recovers)."""
        self.members.setdefault(group, set()).add(member)
        if self.layer is None:
            return
        if self.channel is None:
            self.channel = await self.layer.new_channel()
            self.listener = self.start(self.listen())
        if not self.steady:
            return  # (the recovery joins it)
        async with self.membership:
            if group in self.members and group not in self.joined:
                try:
                    await self.add(group)
                except Exception as exc:
                    self.failed(exc)

    async def leave(self, member: Member, group: str) -> None:
        members = self.members.get(group)
        if members is None:
            return
        members.discard(member)
        if members:
            return
        del self.members[group]
        if self.layer is None or self.channel is None or group not in self.joined:
            return
        async with self.membership:
            if group in self.members or self.joined.pop(group, None) is None:
                return
            try:
                async with asyncio.timeout(LAYER_WAIT):
                    await self.layer.group_discard(group, self.channel)
            except Exception:  # the membership lapses by itself; an end sent to it finds no one
                log.debug("accounts: a credential's group was not left", exc_info=True)

    @staticmethod
    def start(work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """``work`` in a task of the loop, in a context of its own (it serves every socket, and
        needs nothing of the one that started it)."""
        loop = asyncio.get_running_loop()
        return loop.create_task(work, context=contextvars.Context())

    async def add(self, group: str) -> None:
        assert self.layer is not None and self.channel is not None
        async with asyncio.timeout(LAYER_WAIT):
            await self.layer.group_add(group, self.channel)
        self.joined[group] = time.monotonic()

    def failed(self, exc: BaseException) -> None:
        """A command of the layer failed: an end may have been missed, and any membership may be
        gone (a Redis that comes back empty). Not steady until :meth:`recover` has joined every
        group anew."""
        if self.steady:
            log.warning(
                "accounts: the sockets' credentials are checked at every message until "
                "the channel layer answers again (%r)",
                exc,
            )
        self.steady = False
        self.failures += 1
        self.joined.clear()
        if self.recovery is None or self.recovery.done():
            self.recovery = self.start(self.recover())

    async def recover(self) -> None:
        """Join every group of the sockets open again, trying after a wait that doubles from
        :data:`RETRY_FIRST` to :data:`RETRY_MOST` seconds, until one pass succeeds with no
        failure meanwhile; then steady."""
        wait = RETRY_FIRST
        while True:
            await asyncio.sleep(wait)
            wait = min(2 * wait, RETRY_MOST)
            failures = self.failures
            try:
                async with self.membership:
                    for group in list(self.members):
                        if group in self.members and group not in self.joined:
                            await self.add(group)
            except Exception as exc:
                self.failed(exc)
                continue
            if failures == self.failures and all(group in self.joined for group in self.members):
                self.steady = True
                log.info("accounts: the channel layer answers again: ends reach the sockets")
                return

    async def renew(self) -> None:
        """Join again the groups joined :data:`RENEW` seconds ago or more."""
        due = [group for group, at in self.joined.items() if time.monotonic() - at >= RENEW]
        if not due:
            return
        async with self.membership:
            for group in due:
                if group in self.members and group in self.joined:
                    await self.add(group)

    async def listen(self) -> None:
        """Receive the ends sent to the watch's channel and hand them out, for as long as the
        loop runs; a failed receive is tried again after a growing wait."""
        assert self.layer is not None and self.channel is not None
        wait = RETRY_FIRST
        while True:
            quiet = asyncio.timeout(RENEW)
            try:
                async with quiet:
                    message = await self.layer.receive(self.channel)
            except Exception as exc:
                if isinstance(exc, TimeoutError) and quiet.expired():  # a quiet hour
                    await self.guarded(self.renew)
                    continue
                self.failed(exc)
                await asyncio.sleep(wait)
                wait = min(2 * wait, RETRY_MOST)
                continue
            wait = RETRY_FIRST
            if message.get("type") == ENDED:
                self.hand_out(str(message.get("group")))
            await self.guarded(self.renew)  # (a busy hour has no quiet one)

    async def guarded(self, command: Callable[[], Awaitable[None]]) -> None:
        """``command()``, a command of the layer; its failure is :meth:`failed`."""
        try:
            await command()
        except Exception as exc:
            self.failed(exc)

    def hand_out(self, group: str) -> None:
        """Tell each socket of ``group`` in this process that its credential ended (each in a
        task of its own: a socket finishes the message it is answering first)."""
        loop = asyncio.get_running_loop()
        for member in list(self.members.get(group, ())):
            task = loop.create_task(member.credential_ended())
            self.ending.add(task)
            task.add_done_callback(self.ending.discard)
