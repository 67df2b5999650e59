"""API tokens: django-rest-knox's, hashed at rest, each with its own expiry, several per user.

- **Issued** by sign-up and every log-in (:func:`issue`): a new token each time, working for
  ``TOKEN_LIFETIME_DAYS`` days (knox's ``TOKEN_TTL``, set from it in ``REST_KNOX``). Knox keeps
  only a digest of the key, so the key is seen once, in that answer; a user has as many tokens as
  logged-in devices and scripts, each ended on its own. Each keeps its *device mark* (the
  issuing log-in's network and user agent, salted and hashed: ``core.devices.origin_mark``), the
  fair-play review's device for a client that keeps no cookie.
- **Checked** by :class:`TokenAuthentication`, knox's (``Authorization: Token <key>``, the header
  prefix ``AUTH_HEADER_PREFIX``), with two refusals of its own before and after knox's: a key that
  is not of the shape knox issues (its prefix and ``AUTH_TOKEN_CHARACTER_LENGTH`` hexadecimal
  digits) is "Invalid token." before any query — a NUL byte or a non-ASCII byte never reaches the
  database —, and a key whose token has expired is "The token has expired: log in again for a new
  one." (knox deletes an expired token as it refuses it, so a later try is "Invalid token.").
- **Ended** by a log-out: logging out with a token deletes that token; a log-in or sign-up that
  opens a session answers a token too, and the session remembers which (:func:`give`, the
  token's digest, never its key), so that logging that session out deletes that token
  (:func:`end_given`). A token the session was not given — a script's — is left alone. Whatever
  deletes a token, its open sockets end with it (``core.accounts.sockets``).

The knox model is read through :func:`token_model` (knox's ``get_token_model``: the
``TOKEN_MODEL`` setting), and knox's public manager makes the tokens.
"""

from __future__ import annotations

import datetime as dt
import re
from contextvars import ContextVar
from typing import Any, NamedTuple

from django.contrib.auth.models import User
from django.http import HttpRequest
from django.utils.translation import gettext as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from knox.auth import TokenAuthentication as KnoxTokenAuthentication  # type: ignore[import-untyped,unused-ignore]
from knox.models import get_token_model  # type: ignore[import-untyped,unused-ignore]
from knox.settings import knox_settings  # type: ignore[import-untyped,unused-ignore]
from knox.signals import token_expired  # type: ignore[import-untyped,unused-ignore]
from rest_framework.exceptions import AuthenticationFailed

from core import devices
from core.throttling import client_address


def token_model() -> Any:
    """Knox's token model (``REST_KNOX["TOKEN_MODEL"]``, ``knox.AuthToken`` by default)."""
    return get_token_model()


def lifetime() -> dt.timedelta:
    """How long a token issued now works (knox's ``TOKEN_TTL``: ``TOKEN_LIFETIME_DAYS``)."""
    ttl: dt.timedelta = knox_settings.TOKEN_TTL
    return ttl


class Issued(NamedTuple):
    """A token just issued: its row (digest, owner, expiry) and its key, which only this answer
    ever shows."""

    token: Any
    key: str


def issue(user: User, expiry: dt.timedelta | None = None, request: Any = None) -> Issued:
    """A new token for ``user``, working for ``expiry`` (by default :func:`lifetime`). Issued
    in answer to ``request``, the token keeps its device mark (``core.devices.origin_mark``: the
    request's network and user agent, hashed) for the fair-play review."""
    token, key = token_model().objects.create(user=user, expiry=expiry or lifetime())
    if request is not None:
        from core.accounts.models import TokenOrigin

        address = client_address(request)
        agent = request.META.get("HTTP_USER_AGENT", "")
        TokenOrigin.objects.create(token=token, mark=devices.origin_mark(address, agent))
    return Issued(token, key)


def expires_at(token: Any) -> dt.datetime:
    """When ``token`` stops working."""
    expiry: dt.datetime = token.expiry
    return expiry


def is_token(auth: object) -> bool:
    """Whether ``auth`` (a DRF request's ``auth``) is an API token."""
    return isinstance(auth, token_model())


def invalid_message() -> str:
    """Knox's (and DRF's) refusal of an unknown key."""
    return _("Invalid token.")


def expired_message() -> str:
    return _("The token has expired: log in again for a new one.")


def well_formed(key: str) -> bool:
    """Whether ``key`` has the shape of the keys knox issues: ``TOKEN_PREFIX`` and
    ``AUTH_TOKEN_CHARACTER_LENGTH`` hexadecimal digits."""
    prefix, length = knox_settings.TOKEN_PREFIX, knox_settings.AUTH_TOKEN_CHARACTER_LENGTH
    return re.fullmatch(f"{re.escape(prefix)}[0-9a-f]{{{int(length)}}}", key) is not None


#: The users whose presented token knox found expired during the current check (knox's
#: ``token_expired`` signal, ``source="auth_token"``), per context: each check has its own.
_expired: ContextVar[list[str] | None] = ContextVar("canfield_token_expired", default=None)


class TokenAuthentication(KnoxTokenAuthentication):  # type: ignore[misc]
    """Knox's token authentication, through its public check ``authenticate_credentials``, with a
    malformed key refused before knox reads the database and an expired one refused in words that
    say so (see the module's docstring)."""

    def authenticate_credentials(self, token: bytes) -> tuple[User, Any]:
        try:
            key = token.decode("ascii")
        except UnicodeDecodeError:
            raise AuthenticationFailed(invalid_message()) from None
        if not well_formed(key):
            raise AuthenticationFailed(invalid_message())
        expired: list[str] = []
        reset = _expired.set(expired)
        try:
            user, auth_token = super().authenticate_credentials(key.encode())
        except AuthenticationFailed:
            if expired:
                raise AuthenticationFailed(expired_message()) from None
            raise
        finally:
            _expired.reset(reset)
        assert isinstance(user, User)
        return user, auth_token


def _note_expired(sender: object, username: str = "", source: str = "", **kwargs: Any) -> None:
    expired = _expired.get()
    if expired is not None and source == "auth_token":
        expired.append(username)


token_expired.connect(_note_expired, sender=TokenAuthentication, dispatch_uid="accounts.expired")


def user_of_key(key: str) -> tuple[User, Any]:
    """The user and token of API key ``key`` (a websocket's ``auth`` message) by the REST API's
    rule, or ``AuthenticationFailed``."""
    return TokenAuthentication().authenticate_credentials(key.encode("utf-8", "replace"))


class TokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """The schema's ``tokenAuth``: ``Authorization: Token <key>``."""

    target_class = "core.accounts.auth.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        scheme: dict[str, Any] = build_bearer_security_scheme_object(
            header_name="Authorization", token_prefix=knox_settings.AUTH_HEADER_PREFIX
        )
        return scheme


#: The session key under which a session keeps the digest of the token it was given.
SESSION_TOKEN = "canfield_api_token"


def give(request: HttpRequest, token: Any) -> None:
    """Remember in ``request``'s session (after ``login()``) that it was given ``token``."""
    request.session[SESSION_TOKEN] = token.digest


def end_given(request: HttpRequest, user: User) -> bool:
    """Delete the token ``request``'s session was given, if it is still ``user``'s; whether one
    was deleted. (Before ``logout()``, which clears the session.)"""
    given = request.session.get(SESSION_TOKEN)
    if not isinstance(given, str):
        return False
    deleted, _rows = token_model().objects.filter(user=user, digest=given).delete()
    return bool(deleted)


def device_mark(request: Any) -> str:
    """The device of a request (a DRF request, or Django's), for the fair-play review: its device
    cookie's id (``core.devices``); else, for a request authenticated with an API token,
    ``"token:"`` and that token's device mark (``core.accounts.models.TokenOrigin``); else ""."""
    found = devices.device_id(request.COOKIES)
    if found:
        return found
    from core.accounts.models import TokenOrigin  # (the accounts' models: read once apps are ready)

    auth = getattr(request, "auth", None)
    if not is_token(auth):
        return ""
    mark = TokenOrigin.objects.filter(token=auth).values_list("mark", flat=True).first()
    return f"token:{mark}" if mark else ""
