"""The device cookie: a random id the site gives a browser on its first page, so that the
fair-play review can see two accounts played from one browser (``leaderboard.review``).

The cookie (:data:`COOKIE`) holds nothing but the id: 16 random bytes, URL-safe base64. It is
first-party, ``HttpOnly`` (no script reads it), ``SameSite=Lax``, ``Secure`` when the site is
served over HTTPS, and lasts :data:`MAX_AGE` (a year) from the first page; it is never renewed.
The server keeps it only as a salted hash (HMAC with ``SECRET_KEY``) on the review of a daily
attempt started with it, kept 30 days like the rest of the review (docs/privacy.md).

It is set on HTML pages only, to a request that has no valid one and carries no
``Authorization`` header — not on the API's answers. A browser's first visit is a page, and the
browser then sends the cookie with every API request it makes, its ranked attempt's start
included. A token client (an app, a script) keeps no cookies: it would get a new id on every
answer, a ``Set-Cookie`` header for nothing. And the API's public answers (boards, records,
pictures) stay free of a header that would keep a cache from sharing them, or make one share a
single id with everybody. Static files are answered before this middleware (WhiteNoise), and
the response is otherwise left as it is: its Content-Security-Policy, ETag, Cache-Control and
Vary headers untouched.

**A client with no cookie** — an app or a script that authenticates with an API token — has a
*device mark* instead (:func:`origin_mark`): a salted hash of the network (its /24 or /64) and
the user agent of the log-in or sign-up that issued its token, kept with the token
(``core.accounts.models.TokenOrigin``, deleted with it). Two accounts whose tokens one script
issued from one network carry one mark. ``core.accounts.auth.device_mark`` gives a request's
device either way, the cookie first.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Mapping
from typing import Final

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

from core.networks import network

COOKIE: Final = "device"
MAX_AGE: Final = dt.timedelta(days=365)
#: The random bytes of an id, and what a valid id looks like (``secrets.token_urlsafe``).
ID_BYTES: Final = 16
_ID: Final = re.compile(r"[A-Za-z0-9_-]{22}")


def device_id(cookies: Mapping[str, str]) -> str:
    """The device id among a request's ``cookies``, or "" when it has none (or a malformed
    one, which is ignored)."""
    value = cookies.get(COOKIE, "")
    return value if _ID.fullmatch(value) else ""


def new_id() -> str:
    return secrets.token_urlsafe(ID_BYTES)


#: The most characters of a user agent that go into a device mark.
USER_AGENT_CHARS: Final = 512


def origin_mark(address: str, user_agent: str) -> str:
    """The device mark of a token issued to ``address`` with ``user_agent``: HMAC-SHA256, keyed by
    ``SECRET_KEY``, of the address's network (never the address) and the user agent, cut to 128
    bits, as hexadecimal."""
    net = network(address)
    text = f"token-origin:{'' if net is None else net}|{user_agent[:USER_AGENT_CHARS]}"
    key = str(settings.SECRET_KEY).encode()
    return hmac.new(key, text.encode("utf-8", "replace"), hashlib.sha256).hexdigest()[:32]


class DeviceCookieMiddleware:
    """Give a browser its device id on the first HTML page it gets (see the module)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if (
            device_id(request.COOKIES)
            or "HTTP_AUTHORIZATION" in request.META
            or not response.get("Content-Type", "").startswith("text/html")
            or COOKIE in response.cookies
        ):
            return response
        response.set_cookie(
            COOKIE,
            new_id(),
            max_age=int(MAX_AGE.total_seconds()),
            httponly=True,
            samesite="Lax",
            secure=request.is_secure() or settings.SESSION_COOKIE_SECURE,
        )
        return response
