"""The social app's refusals at the API: the HTTP status of each code its services refuse with
(as ``games.errors.GameError``, whose body the games app registers). :func:`register` gives them
to the site's exception handler (``core.api_errors``); ``SocialConfig.ready`` calls it."""

from __future__ import annotations

from typing import Final

from core.api_errors import register_statuses

STATUS: Final = {
    "follow_self": 400,
    "account_required": 403,
    "not_found": 404,
    "follow_limit": 409,
}


def register() -> None:
    register_statuses(STATUS)
