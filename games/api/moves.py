"""The moves of a game as its clients send them — an action, Finish, resigning — read, played and
answered in one place, for both ways in: the REST views (``games.api.views``) and the game's
websocket (``games.api.consumers``). Each function reads the body with the API's serializer (one
definition of a valid body), calls the service that plays it (``games.services``: every rule is
there) and builds the answer from ``games.payloads``; so the two adapters answer alike, byte for
byte, and hold no rule of their own.

A refusal is raised: the services' ``GameError``, or DRF's ``ValidationError`` for a body that is
not one. The REST views let the site's exception handler answer it; the socket answers it with
:func:`refusal`, the same body.
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import APIException, Throttled

from core import throttling
from core.api_errors import error_body
from games import payloads, services
from games.api.serializers import ActionSerializer, FinishedGameDict, FinishSerializer
from games.clock import utc_today
from games.errors import GameError
from games.payloads import GameDict, PlayedGameDict

#: The rate-limit scope of actions and Finish, on either way in (``THROTTLE_ACTIONS``).
ACTIONS_SCOPE = "actions"


def play_action(
    game_id: int, user: services.Viewer, body: Any, known: services.Known | None = None
) -> PlayedGameDict:
    """``POST /api/games/<id>/actions/``'s body (``{"ply", "action"}`` or ``{"ply", "tap",
    "index", "double_click"}``) played by ``user``: the game's payload with ``applied``.
    ``known``: the client's kept copy of the game (``services.Known``; the socket's)."""
    request = ActionSerializer(data=body)
    request.is_valid(raise_exception=True)
    data = request.validated_data
    result = services.play(game_id, user, data["ply"], request.to_play(), known)
    return payloads.played_game_dict(result, utc_today())


def finish_game(game_id: int, user: services.Viewer, body: Any) -> FinishedGameDict:
    """``POST /api/games/<id>/finish/``'s body (``{"ply"}``): the won game's payload with
    ``applied``, every token Finish played."""
    request = FinishSerializer(data=body)
    request.is_valid(raise_exception=True)
    result = services.finish(game_id, user, request.validated_data["ply"])
    return {**payloads.game_dict(result.game, utc_today()), "applied": result.applied}


def resign_game(game_id: int, user: services.Viewer) -> GameDict:
    """``POST /api/games/<id>/resign/``: the resigned game's payload."""
    return payloads.game_dict(services.resign(game_id, user), utc_today())


def count_action(user: services.Viewer) -> None:
    """Count one against the player's actions limit (``THROTTLE_ACTIONS``), under the key the
    REST views' throttle counts them by (``core.throttling.user_key``), so that actions over
    REST and over the socket share one limit; or raise ``Throttled`` (with the wait) when it is
    full, counting nothing."""
    wait = throttling.hit(ACTIONS_SCOPE, throttling.user_key(user.pk))
    if wait is not None:
        raise Throttled(wait)  # (as the REST view's throttle refuses: the same answer)


def refusal(exc: GameError | APIException) -> dict[str, Any]:
    """The body the REST API answers ``exc`` with (``core.api_errors``): ``code``,
    ``message`` and the extra fields (``reason``, ``ply``, ``fields``, ``retry_after``)."""
    if isinstance(exc, GameError):
        return exc.to_dict()
    return error_body(exc)
