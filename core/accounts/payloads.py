"""What the accounts endpoints answer, declared once (the schema's serializers derive from it)."""

from __future__ import annotations

from typing import Annotated, TypedDict

from django.contrib.auth.models import User

from core.accounts.auth import Issued, expires_at
from core.accounts.guests import is_guest
from core.accounts.models import PlayerSettings
from core.formats import IsoDateTime, iso


class AuthResultDict(TypedDict):
    """What sign-up and log-in answer: the canonical username and the API token."""

    username: str
    token: Annotated[
        str,
        "For scripts: send `Authorization: Token <token>`. A new token at each log-in, shown "
        "only here (the server keeps a hash of it).",
    ]
    expires_at: Annotated[
        IsoDateTime, "When the token stops working (TOKEN_LIFETIME_DAYS after it was issued)."
    ]


class MeDict(TypedDict):
    """Who is logged in."""

    username: str
    guest: Annotated[
        bool,
        "A guest: a visitor who played without an account (practice games only; signing up "
        "or logging in keeps their games).",
    ]


class PlayerSettingsDict(TypedDict):
    """A player's choices about what others see of them."""

    practice_private: Annotated[
        bool,
        "Their practice games are listed, replayed and watched by them alone (false: by anyone "
        "once they are over, and watched live while played).",
    ]


def settings_dict(found: PlayerSettings) -> PlayerSettingsDict:
    return {"practice_private": found.practice_private}


def me(user: User) -> MeDict:
    return {"username": user.get_username(), "guest": is_guest(user)}


def auth_result(user: User, issued: Issued) -> AuthResultDict:
    return {
        "username": user.get_username(),
        "token": issued.key,
        "expires_at": iso(expires_at(issued.token)) or "",
    }
