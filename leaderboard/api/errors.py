"""The leaderboard's refusals at the API: the HTTP status of each code its services refuse with
(as ``games.errors.GameError``, whose body the games app registers). :func:`register` gives them
to the site's exception handler (``core.api_errors``); ``LeaderboardConfig.ready``
calls it."""

from __future__ import annotations

from typing import Final

from core.api_errors import register_statuses

STATUS: Final = {
    "invalid_date": 400,
    "not_found": 404,
    "attempt_exists": 409,
    "deal_pending": 503,
    "deal_unavailable": 503,
}


def register() -> None:
    register_statuses(STATUS)
