"""Password hashing that cannot starve the rest of the site: it never holds a database connection,
and runs in a bounded number of slots per process.

A password hash costs about half a second of CPU by design (PBKDF2, Django's default). While it
ran, a log-in used to hold its database connection: a flood of log-ins from rotating addresses
took every connection of the pool, and other players' requests waited for one, then got 503.
Now a log-in, a sign-up and the admin's log-in each

1. read what they need (the user's row), then give their connection back
   (:func:`give_back_connection`: on PostgreSQL it returns to the pool);
2. hash in one of ``LOGIN_HASH_SLOTS`` slots of the process (:func:`slot`, a semaphore; by
   default as many as the CPUs, at least 2) — waiting ``LOGIN_HASH_WAIT`` seconds at most for
   one, else refused at once with :class:`Busy` (the API answers 503 ``busy`` with
   ``Retry-After``): never a queue of threads that grows with the flood. The hash runs at
   scheduling priority ``LOGIN_HASH_NICE`` (the thread's own nice value), so that while slots
   hash, the CPU still goes to other requests first;
3. take a connection again for what they write (the session, the token).

Log-ins go through Django's ``authenticate()`` and ``login()`` (their signals included) with
:class:`SlotBackend`, the site's authentication backend. Django's ``ModelBackend`` stays listed
after it, for the sessions it logged in (guests are logged in with it: they have no password);
:class:`SlotBackend` ends ``authenticate()`` with ``PermissionDenied`` on a failure — Django's
documented way for a backend to stop the chain —, so that a wrong password is hashed once, not a
second time by ``ModelBackend``.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.hashers import check_password, make_password
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import connection, transaction
from django.http import HttpRequest
from django.utils.translation import gettext as _

#: The backend's dotted path, as AUTHENTICATION_BACKENDS names it.
BACKEND = "core.accounts.hashing.SlotBackend"


class Busy(Exception):
    """No slot for a hash within ``LOGIN_HASH_WAIT``: ask again after ``retry_after`` seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("no password hashing slot free")
        self.retry_after = retry_after

    @property
    def message(self) -> str:
        return _("Too many people are logging in right now. Please try again in a moment.")


_lock = threading.Lock()
_slots: tuple[int, threading.BoundedSemaphore] | None = None


def _semaphore() -> threading.BoundedSemaphore:
    """This process's slots, made anew when ``LOGIN_HASH_SLOTS`` changes (a test changes it;
    a slot held meanwhile is given back to the semaphore it came from)."""
    global _slots
    count = int(settings.LOGIN_HASH_SLOTS)
    with _lock:
        if _slots is None or _slots[0] != count:
            _slots = (count, threading.BoundedSemaphore(count))
        return _slots[1]


@contextmanager
def slot() -> Iterator[None]:
    """Hold one of the process's hashing slots for the block: waits ``LOGIN_HASH_WAIT`` seconds
    at most for one, else raises :class:`Busy` (nothing was hashed)."""
    semaphore = _semaphore()
    if not semaphore.acquire(timeout=float(settings.LOGIN_HASH_WAIT)):
        raise Busy(max(1, math.ceil(float(settings.LOGIN_HASH_WAIT))))
    try:
        with _yielding():
            yield
    finally:
        semaphore.release()


@contextmanager
def _yielding() -> Iterator[None]:
    """This thread at scheduling priority ``LOGIN_HASH_NICE`` for the block (Linux: a thread's
    nice value is its own), so that the CPU goes to other requests first while a hash runs; back
    to its priority after, where the process may raise it again (else the thread stays at the
    lower priority, which only makes the rest of its log-in wait for others)."""
    nice = int(settings.LOGIN_HASH_NICE)
    if not nice or not hasattr(os, "setpriority"):
        yield
        return
    thread = threading.get_native_id()
    before = os.getpriority(os.PRIO_PROCESS, thread)
    if before < nice:
        os.setpriority(os.PRIO_PROCESS, thread, nice)
    try:
        yield
    finally:
        if before < nice:
            with suppress(PermissionError):
                os.setpriority(os.PRIO_PROCESS, thread, before)


def give_back_connection() -> None:
    """Close this thread's database connection, unless a transaction is open on it (then it is
    still needed: a test's transaction, a caller's atomic block). On PostgreSQL the connection
    returns to the process's pool; the next query takes one again."""
    if transaction.get_autocommit():
        connection.close()


def hash_password(password: str) -> str:
    """``password`` hashed for storage (``make_password``), in a slot, with no database
    connection held meanwhile: for a sign-up. Raises :class:`Busy`."""
    give_back_connection()
    with slot():
        return make_password(password)


class SlotBackend(ModelBackend):
    """Django's ``ModelBackend``, hashing as this module says: the username is matched ignoring
    case (usernames are unique ignoring case), the connection is given back before the hash, the
    hash runs in a slot (:class:`Busy` when none is free), and an unknown username, or an account
    with no usable password, still costs one hash (no timing oracle). A failure raises
    ``PermissionDenied``: ``authenticate()`` returns ``None`` and sends ``user_login_failed``."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> User | None:
        if username is None:
            username = kwargs.get(User.USERNAME_FIELD)
        if username is None or password is None:
            return None
        user = User._default_manager.filter(username__iexact=username).first()
        give_back_connection()
        upgraded = False

        def upgrade(raw: str) -> None:  # a hash of an older hasher or fewer iterations
            nonlocal upgraded
            assert user is not None
            user.set_password(raw)
            upgraded = True

        with slot():
            if user is None or not user.has_usable_password():
                make_password(password)  # the cost of a check, for nothing
                raise PermissionDenied
            right = check_password(password, user.password, upgrade)
        if upgraded:
            user.save(update_fields=["password"])
        if not (right and self.user_can_authenticate(user)):
            raise PermissionDenied
        return user
