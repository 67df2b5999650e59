"""What the games app tells the site's accounts (``core.accounts.guests``): a player's
games are theirs — a guest who signs up keeps them — and a game made or an action logged is a
player's activity (a guest with none for ``GUEST_IDLE_DAYS`` is purged). A guest's kept records
name the guest, so they are forgotten when the guest's games move to an account: the next reader
builds them again under the account's name (a replay names the game's current owner).
``GamesConfig.ready`` calls :func:`register`."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from core.accounts import guests
from games.models import Game, StoredRecord


def register() -> None:
    guests.register_owned(Game, "owner", activity=("created_at", "log__created_at"))
    guests.adopting.connect(forget_records, dispatch_uid="games-forget-guest-records")


def forget_records(sender: Any, guest: User, **kwargs: Any) -> None:
    """Delete the kept records of ``guest``'s games, which name the guest as their player."""
    StoredRecord.objects.filter(game__owner=guest).delete()
