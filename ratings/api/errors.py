"""The ratings app's refusals at the API: the HTTP status of each code its views refuse with
(as ``games.errors.GameError``, whose body the games app registers). :func:`register` gives them
to the site's exception handler (``core.api_errors``); ``RatingsConfig.ready`` calls it."""

from __future__ import annotations

from typing import Final

from core.api_errors import register_statuses

STATUS: Final = {"not_found": 404}


def register() -> None:
    register_statuses(STATUS)
