"""Watching games: who is let in, what they are shown first, and which games are being played now.

Who may watch a game is ``games.services.can_watch``'s decision, always: the spectators' socket
(``games.api.watch_consumer``), the replay page of a game in progress (``frontend.views``) and the
list of games being played (:func:`playing`, and the watch list's API, ``leaderboard.watching``)
ask it, and restate nothing. This module only says *why* a refused viewer is refused
(:func:`refusal`), in words a page and a socket give alike, and reads the games.

What a spectator sees is what the player sees: the game's payload as its owner's ``GET
/api/games/<id>/`` answers it (``games.payloads.game_dict``: the player's view, never a hidden
card), built once for every spectator (``games.watch_hub``).
"""

from __future__ import annotations

import datetime as dt

from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from django.utils.translation import gettext as _

from games import services, watch_hub
from games.clock import utc_today
from games.errors import GameError, not_found
from games.models import Game
from games.services import Viewer

#: How recently a game in progress was played to be among the games being played now.
PLAYING_WITHIN = dt.timedelta(minutes=15)
#: The most games :func:`playing` reads to find its page (games it may not show are skipped).
PLAYING_READ = 200


def refusal(user: Viewer, game: Game | None, today: dt.date | None = None) -> GameError | None:
    """Why ``user`` may not watch ``game`` (``None``: they may): ``not_found`` for a game that
    does not exist or whose player keeps their practice games private (the same answer for both,
    as the REST API gives), ``own_attempt_not_over`` for a daily attempt of a day not over, with
    what would let them in."""
    if game is None:
        return not_found()
    if services.can_watch(user, game, today):
        return None
    if not game.is_daily:
        return not_found()
    if not user.is_authenticated:
        message = _(
            "A daily attempt can be watched while its day lasts only by players who have "
            "finished their own attempt at that deal: log in and play it first. Once the day is "
            "over, anyone may watch it."
        )
    else:
        message = _(
            "You may watch another player's attempt at this daily deal once your own attempt is "
            "over (won or resigned). Once the day is over, anyone may watch it."
        )
    return GameError("own_attempt_not_over", message)


def admit(game_id: int, user: Viewer) -> Game:
    """The game ``user`` asks to watch, if they may (else :func:`refusal`'s ``GameError``)."""
    game = services.find_game(game_id)
    refused = refusal(user, game)
    if refused is not None:
        raise refused
    assert game is not None
    return game


def snapshot(game_id: int) -> tuple[watch_hub.Version, str]:
    """The game's payload as it stands (``watch_hub.payload_text``): its version and its JSON."""
    game = services.find_game(game_id)
    if game is None:
        raise not_found()
    return watch_hub.payload_text(game)


def playing(viewer: Viewer | None = None, limit: int = 20) -> list[Game]:
    """The games being played now, most recently active first: games in progress played within
    :data:`PLAYING_WITHIN`, never a guest's, only those ``viewer`` may watch (``can_watch``), at
    most ``limit`` of them (read from the :data:`PLAYING_READ` most recently active)."""
    viewer = viewer or AnonymousUser()
    today = utc_today()
    recent = (
        Game.objects.with_status(Game.Status.IN_PROGRESS, today)
        .filter(active_at__gte=timezone.now() - PLAYING_WITHIN, owner__guest__isnull=True)
        .select_related("owner")
        .order_by("-active_at", "-id")[:PLAYING_READ]
    )
    shown: list[Game] = []
    for game in recent:
        if services.can_watch(viewer, game, today):
            shown.append(game)
            if len(shown) == limit:
                break
    return shown
