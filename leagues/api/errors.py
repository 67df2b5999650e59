"""The leagues' refusals at the API: the HTTP status of each code ``leagues.services`` refuses
with (as ``games.errors.GameError``, whose body the games app registers). :func:`register` gives
them to the site's exception handler (``core.api_errors``); ``LeaguesConfig.ready`` calls it."""

from __future__ import annotations

from typing import Final

from core.api_errors import register_statuses

STATUS: Final = {
    "invalid_week": 400,
    "no_division": 404,
}


def register() -> None:
    register_statuses(STATUS)
