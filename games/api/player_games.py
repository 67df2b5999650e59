"""``GET /api/players/<name>/games/``: a player's games, newest first, for anyone to browse and
replay (PRODUCT.md, "Together and over time").

Who sees which game in the list is who may read its record (``games.services.can_view_record``):
the player, all of their games; anyone else, their finished practice games — unless they keep
practice private (``core.accounts.models.PlayerSettings``) — and their daily attempts of days that
are over. A list is a query, not a loop over games, so :func:`listed` says the same rule in SQL
for a page at a time; tests/games/test_player_games.py holds it to ``can_view_record`` game by
game. Staff see here what anyone sees (a review reads its attempts elsewhere). A guest has no
name to be found by: their games are listed nowhere, and once they sign up they are the
account's, listed under its name (``core.accounts.guests.adopt``).

Each row is declared once (:class:`PlayerGameDict`, built by :func:`player_game_dict`); the
schema's serializer is derived from it.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from django.contrib.auth.models import User
from django.db.models import Q
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from core import strict
from core.accounts.models import practice_is_private
from core.accounts.players import named
from core.api_errors import ErrorSerializer
from core.formats import IsoDate, IsoDateTime, iso
from core.schema import serializer_for
from core.strict import read_query
from games.api.views import TAGS
from games.clock import utc_today
from games.errors import GameError
from games.models import Game, GameQuerySet
from games.payloads import GameSummary, summary
from games.services import Viewer

#: The results a list may be filtered by: a game's ``result`` (``Game.result``).
RESULTS = ("in_progress", "won", "resigned", "closed")


class PlayerGameDict(GameSummary):
    """One of a player's games, as their page lists it: what it was, how it ended, and where
    to replay it."""

    foundation_cards: Annotated[int, "Cards home: on the foundations, 52 for a win."]
    actions: Annotated[int, "Every action logged, undos included."]
    date: Annotated[IsoDate, "The UTC day it was played: a daily attempt's day, else its start."]
    started_at: Annotated[IsoDateTime | None, "Time of the first action."]
    finished_at: IsoDateTime | None
    replay_url: Annotated[str, "The page that replays it (a game in progress: as it stands)."]


PlayerGameSerializer = serializer_for(PlayerGameDict)


def player_game_dict(game: Game, today: dt.date) -> PlayerGameDict:
    """The list's row of ``game`` as it stands on ``today`` (a daily attempt of a day over is
    closed, in memory: reads never write)."""
    head = summary(game, today)
    day = game.daily_date or (game.started_at or game.created_at).astimezone(dt.UTC).date()
    return {
        **head,
        "foundation_cards": game.foundation_cards,
        "actions": game.ply,
        "date": day.isoformat(),
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
        "replay_url": f"/games/{game.pk}/replay/",
    }


def listed(owner: User, viewer: Viewer, today: dt.date) -> GameQuerySet:
    """The games of ``owner`` that ``viewer`` (a user, or an anonymous one) may see listed on
    ``today``, newest first: ``can_view_record``'s rule in SQL. The player sees all of theirs;
    anyone else a practice game once it is over (none while the player keeps practice private)
    and a daily attempt once its day is over."""
    games = Game.objects.filter(owner=owner).select_related("owner")
    if viewer.is_authenticated and viewer.pk == owner.pk:
        return games
    open_to_all = Q(kind=Game.Kind.DAILY, daily_date__lt=today)
    if not practice_is_private(owner.pk):
        open_to_all |= Q(kind=Game.Kind.PRACTICE) & ~Q(status=Game.Status.IN_PROGRESS)
    return games.filter(open_to_all)


def with_result(games: GameQuerySet, result: str, today: dt.date) -> GameQuerySet:
    """The games of ``games`` whose ``result`` on ``today`` is ``result``: a daily attempt still
    open in the table after its day is ``closed`` (``Game.apply_day_end``), as its row shows it."""
    if result == "closed":
        return games.filter(day_over=True) | games.open_after_day_end(today)
    if result == "resigned":
        return games.filter(status=Game.Status.RESIGNED, day_over=False)
    return games.with_status(result, today)


class PlayerGamesQuerySerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(
        choices=Game.Kind.values, required=False, help_text="practice or daily: only those."
    )
    result = serializers.ChoiceField(
        choices=list(RESULTS),
        required=False,
        help_text="in_progress, won, resigned or closed (a daily attempt closed with its day).",
    )
    page = strict.PageField(required=False)


class PlayerGamesView(GenericAPIView[Game]):
    # Who sees which game is the list's own decision (listed), anonymous visitors included.
    permission_classes = [AllowAny]

    @extend_schema(
        tags=TAGS,
        summary="A player's games, newest first",
        description=(
            "20 a page. The player sees every game of theirs; anyone else sees their finished "
            "practice games (none while the player keeps practice private: PATCH "
            "/api/auth/me/settings/) and their daily attempts of days that are over — exactly "
            "the games whose record they may read. Usernames match ignoring case; a guest is no "
            "player."
        ),
        parameters=[
            OpenApiParameter("username", str, OpenApiParameter.PATH),
            PlayerGamesQuerySerializer,
        ],
        responses={
            200: PlayerGameSerializer(many=True),
            400: OpenApiResponse(
                ErrorSerializer,
                description="A query parameter that is not one of its values, given twice, or "
                "given empty: invalid.",
            ),
            404: OpenApiResponse(
                ErrorSerializer,
                description="No such player (a guest is none), or a page past the last: not_found.",
            ),
        },
    )
    def get(self, request: Request, username: str) -> Response:
        query = read_query(PlayerGamesQuerySerializer, request.query_params)
        owner = named(username)
        if owner is None:
            raise GameError("not_found", _("No such player."))
        today = utc_today()
        games = listed(owner, request.user, today)
        if "kind" in query:
            games = games.filter(kind=query["kind"])
        if "result" in query:
            games = with_result(games, query["result"], today)
        page = self.paginate_queryset(games) or []
        return self.get_paginated_response([player_game_dict(game, today) for game in page])
