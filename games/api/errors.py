"""The games app's refusals at the API: the HTTP status of each code its services refuse with,
and a ``GameError``'s body (``GameError.to_dict``: the engine's reason in the request's
language). :func:`register` gives both to the site's exception handler
(``core.api_errors``); ``GamesConfig.ready`` calls it."""

from __future__ import annotations

from typing import Final

from core.api_errors import register_error, register_statuses
from games.errors import GameError

STATUS: Final = {
    "invalid_code": 400,
    "unknown_deal": 400,
    "bad_notation": 400,
    "illegal_action": 400,
    "hints_not_allowed": 403,
    "daily_not_public": 403,
    "not_found": 404,
    "attempt_exists": 409,
    "game_over": 409,
    "game_too_long": 409,
    "not_finishable": 409,
    "stale_ply": 409,
    "busy": 503,
}


def register() -> None:
    register_statuses(STATUS)
    register_error(GameError, GameError.to_dict)
