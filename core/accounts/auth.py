"""API tokens expire: a token works for ``settings.TOKEN_LIFETIME_DAYS`` days after it was issued,
then it is refused (401 ``not_authenticated``, "The token has expired") until its owner logs in
again, which issues a new one (``fresh_token``).

A log-out ends the token it was given: a log-in or sign-up that opens a session answers a token
too, and the session remembers which (:func:`give`, a digest of the key, never the key); logging
that session out deletes that token if it is still the user's (:func:`end_given`). A token from an
earlier log-in that the session was not given — a script's — is left alone."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed


def lifetime() -> dt.timedelta:
    return dt.timedelta(days=settings.TOKEN_LIFETIME_DAYS)


def expires_at(token: Token) -> dt.datetime:
    created: dt.datetime = token.created
    return created + lifetime()


def has_expired(token: Token, now: dt.datetime | None = None) -> bool:
    return (now or timezone.now()) >= expires_at(token)


def fresh_token(user: User) -> Token:
    """The user's token, replaced by a new one (a new key) if it has expired."""
    with transaction.atomic():
        token, created = Token.objects.select_for_update().get_or_create(user=user)
        if not created and has_expired(token):
            token.delete()
            token = Token.objects.create(user=user)
    return token


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's ``Authorization: Token <key>``, refusing a key older than its lifetime."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        user, token = super().authenticate_credentials(key)
        if has_expired(token):
            raise AuthenticationFailed(_("The token has expired: log in again for a new one."))
        return user, token


#: The session key under which a session keeps the digest of the token it was given.
SESSION_TOKEN = "canfield_api_token"


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def give(request: HttpRequest, token: Token) -> None:
    """Remember in ``request``'s session (after ``login()``) that it was given ``token``."""
    request.session[SESSION_TOKEN] = _digest(token.key)


def end_given(request: HttpRequest, user: User) -> bool:
    """Delete the token ``request``'s session was given, if it is still ``user``'s; whether one
    was deleted. (Before ``logout()``, which clears the session.)"""
    given = request.session.get(SESSION_TOKEN)
    if not isinstance(given, str):
        return False
    token = Token.objects.filter(user=user).first()
    if token is None or not hmac.compare_digest(_digest(token.key), given):
        return False
    token.delete()
    return True
