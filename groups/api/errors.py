"""The groups' refusals at the API: the HTTP status of each code ``groups.services`` refuses
with (as ``games.errors.GameError``, whose body the games app registers). :func:`register` gives
them to the site's exception handler (``core.api_errors``); ``GroupsConfig.ready`` calls it."""

from __future__ import annotations

from typing import Final

from core.api_errors import register_statuses

STATUS: Final = {
    "invalid_name": 400,
    "owner_cannot_be_removed": 400,
    "owner_only": 403,
    "not_found": 404,
    "invite_not_found": 404,
    "too_many_groups": 409,
    "group_full": 409,
}


def register() -> None:
    register_statuses(STATUS)
