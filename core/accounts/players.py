"""Who a request comes from, as the services want it."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.utils.translation import gettext as _
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request

from core.accounts.guests import is_guest
from core.api_errors import ApiError


def named(username: str) -> User | None:
    """The player of that name, ignoring case — never a guest, who has no name to be found by
    (``core.accounts.guests``) — or ``None``."""
    return User.objects.filter(username__iexact=username, guest__isnull=True).first()


def player(request: Request) -> User:
    """The logged-in player making ``request`` (a guest too); ``NotAuthenticated`` (401) for
    anyone else. Views that require a login check it first (``IsAuthenticated``); this gives the
    services the ``User`` they work with."""
    user = request.user
    if not isinstance(user, User) or not user.is_authenticated:
        raise NotAuthenticated()
    return user


def account(request: Request) -> User:
    """The player making ``request``, who must have an account: 401 for a visitor, 403
    ``account_required`` for a guest (``core.accounts.guests``), whose message says what
    signing up gives."""
    user = player(request)
    if is_guest(user):
        raise ApiError(
            403,
            "account_required",
            _(
                "Sign up to play the daily deal: an account gives you a ranked attempt every day, "
                "a place on the leaderboard, your stats and streak, and your games on any device. "
                "The games you played as a guest are kept."
            ),
        )
    return user
