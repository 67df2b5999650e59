"""Rate limits by scope (signup, login, login_account, actions, states), counted in the cache.

A view opts in with `throttle_scope = "<scope>"`; ScopedThrottle is in DRF's
DEFAULT_THROTTLE_CLASSES, so nothing else is needed. The rates are settings.THROTTLE_RATES
(environment: THROTTLE_SIGNUP, THROTTLE_LOGIN, THROTTLE_LOGIN_ACCOUNT, THROTTLE_ACTIONS,
THROTTLE_STATES). A client is its user when authenticated, else its IP address (behind proxies see
REST_FRAMEWORK["NUM_PROXIES"]). Log-ins count by hand (LoginLimits): per address and per account.

The counters live in the cache (Redis when REDIS_URL is set). When the cache cannot be reached
the limits fail open: the request goes through and a warning is logged, because a refused or
failed request would be worse than an unlimited one for as long as Redis is away.
"""

import hashlib
import logging
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest
from django.utils.translation import gettext as _
from redis.exceptions import RedisError
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle

log = logging.getLogger(__name__)

#: What a cache that cannot be reached raises (redis-py's errors; socket errors below them).
CACHE_ERRORS = (RedisError, OSError)


class ScopedThrottle(ScopedRateThrottle):
    """DRF's ScopedRateThrottle reading the rates when asked, not at import.

    DRF copies DEFAULT_THROTTLE_RATES into a class attribute at import time, so a test's
    override of REST_FRAMEWORK would go unseen; this reads the current api_settings.
    """

    def get_rate(self) -> str | None:
        rates = api_settings.DEFAULT_THROTTLE_RATES
        if self.scope not in rates:
            raise ImproperlyConfigured(f"no throttle rate for the scope {self.scope!r}")
        rate = rates[self.scope]
        return None if rate is None else str(rate)

    def allow_request(self, request: Request, view: Any) -> bool:
        try:
            return super().allow_request(request, view)
        except CACHE_ERRORS as exc:
            log.warning("rate limit %r not applied: the cache is unreachable (%s)", self.scope, exc)
            return True


class KeyedThrottle(ScopedThrottle):
    """A rate limit on one key, for code that counts by hand (what is counted is up to it):
    ``wait()`` says how long the key must wait (``None``: it may go now), ``hit()`` counts one.
    Like every limit here it fails open when the cache is unreachable."""

    def __init__(self, scope: str, ident: str) -> None:
        self.scope = scope
        self.rate = self.get_rate()
        self.key = self.cache_format % {"scope": scope, "ident": ident}
        limit, window = self.parse_rate(self.rate)
        self.limit, self.window = limit or 0, window or 0

    def _history(self) -> list[float]:
        """The times counted within the window, newest first."""
        history: list[float] = self.cache.get(self.key, [])
        now = self.timer()
        return [t for t in history if t > now - self.window]

    def wait(self) -> float | None:
        """Seconds until the key may go again, or None if it may go now."""
        if self.rate is None:
            return None
        try:
            history = self._history()
        except CACHE_ERRORS as exc:
            log.warning("rate limit %r not applied: the cache is unreachable (%s)", self.scope, exc)
            return None
        if len(history) < self.limit:
            return None
        return max(1.0, self.window - (self.timer() - history[self.limit - 1]))

    def hit(self) -> None:
        """Count one now."""
        if self.rate is None:
            return
        try:
            history = self._history()
            history.insert(0, self.timer())
            self.cache.set(self.key, history, self.window)
        except CACHE_ERRORS as exc:
            log.warning("rate limit %r not counted: the cache is unreachable (%s)", self.scope, exc)


class LoginLimits:
    """The limits of a log-in attempt, for the API's log-in and the admin's alike:

    - per client address, every attempt: ``THROTTLE_LOGIN`` (scope ``login``), a flood guard;
    - per account (the username tried, ignoring case, known or not), failed attempts:
      ``THROTTLE_LOGIN_ACCOUNT`` (scope ``login_account``) — what stops guessing one account's
      password from many addresses. While it is full, even the right password is refused.

    ``refusal()`` before anything else, ``attempt()`` once it passed, ``failed()`` after a
    wrong password.
    """

    def __init__(self, request: HttpRequest | Request, username: str) -> None:
        drf_request = request if isinstance(request, Request) else Request(request)
        self.address = KeyedThrottle("login", BaseThrottle().get_ident(drf_request))
        # (hashed: any text may be tried as a username, and the cache keys stay plain)
        account = hashlib.sha256(username.strip().lower().encode()).hexdigest()[:32]
        self.account = KeyedThrottle("login_account", account)

    def refusal(self) -> Throttled | None:
        """The 429 to answer, if a limit is reached."""
        wait = self.address.wait()
        if wait is not None:
            return Throttled(wait, _("Too many log-in attempts from this address."))
        wait = self.account.wait()
        if wait is not None:
            return Throttled(wait, _("Too many failed log-ins to this account."))
        return None

    def attempt(self) -> None:
        self.address.hit()

    def failed(self) -> None:
        self.account.hit()


def limit(scope: str, ident: str, message: str) -> Callable[[], None]:
    """A hook that counts one against ``scope``'s rate for ``ident``, or raises ``Throttled``
    (429 with ``message`` and the wait) when the rate is reached: for a service that counts only
    some of a view's requests (a hint counts its searches, not its lookups)."""

    def count() -> None:
        throttle = KeyedThrottle(scope, ident)
        wait = throttle.wait()
        if wait is not None:
            raise Throttled(wait, message)
        throttle.hit()

    return count
