"""What the games app tells the site's accounts (``core.accounts.guests``): a player's
games are theirs — a guest who signs up keeps them — and a game made or an action logged is a
player's activity (a guest with none for ``GUEST_IDLE_DAYS`` is purged). ``GamesConfig.ready``
calls :func:`register`."""

from __future__ import annotations

from core.accounts import guests
from games.models import Game


def register() -> None:
    guests.register_owned(Game, "owner", activity=("created_at", "log__created_at"))
