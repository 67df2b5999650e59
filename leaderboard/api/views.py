"""The daily deal and the leaderboard over REST: thin views over ``leaderboard.services``.

Refusals are ``games.errors.GameError`` and reach the client as ``{"code", "message"}``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from core.accounts.auth import device_mark
from core.accounts.players import account, player
from core.api_errors import ErrorSerializer
from core.strict import read_query
from games.api.serializers import GameSerializer, RecordQuerySerializer, RecordSerializer
from games.clock import utc_today
from games.payloads import game_dict
from leaderboard import picture, services
from leaderboard.api.serializers import (
    AmongBoardSerializer,
    BoardQuerySerializer,
    BoardSerializer,
    DailySerializer,
    DaySerializer,
    PageQuerySerializer,
    PictureSerializer,
    PlayerSerializer,
)
from leaderboard.models import DailyDeal

TAGS = ["daily"]

DATE = OpenApiParameter(
    "date", str, OpenApiParameter.PATH, description="A UTC day, YYYY-MM-DD (today or earlier)."
)


def _errors(**descriptions: str) -> dict[int, Any]:
    return {
        int(code.removeprefix("e")): OpenApiResponse(ErrorSerializer, description=text)
        for code, text in descriptions.items()
    }


class DailyView(APIView):
    def get_permissions(self) -> list[Any]:
        return [AllowAny()] if self.request.method == "GET" else [IsAuthenticated()]

    @extend_schema(
        tags=TAGS,
        summary="Today's daily deal and my ranked attempt",
        description="Anyone may ask; `attempt` is null when not logged in. `code` is always "
        "null: a day's code is published once the day is over (GET /api/daily/days/).",
        responses={200: DailySerializer},
    )
    def get(self, request: Request) -> Response:
        return Response(services.today(request.user))

    @extend_schema(
        tags=TAGS,
        summary="Start my one ranked attempt at today's deal",
        description="Creates the attempt (a Game of kind `daily`, its code null); play it with "
        "POST /api/games/<id>/actions/. Its clock starts with the first action. The server deals "
        "each day ahead; a request never waits for the solver: while the day's deal is being "
        "certified the answer is 503 deal_pending, with Retry-After.",
        request=None,
        responses={
            201: GameSerializer,
            **_errors(
                e401="Not logged in (not_authenticated).",
                e403="A guest (account_required: a ranked attempt needs an account), or a "
                "session request without its CSRF header (permission_denied).",
                e409="I already have today's attempt (attempt_exists).",
                e503="Today's deal is being dealt (deal_pending: a few seconds), or could not "
                "be certified yet (deal_unavailable: it is tried again a minute later); "
                "retry_after and the Retry-After header say when to try again.",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        # (the client's address, behind NUM_PROXIES proxies, and its browser's device cookie,
        # for the fair-play review)
        address = BaseThrottle().get_ident(request) or ""
        device = device_mark(request)
        game = services.start_attempt(account(request), address=address, device=device)
        return Response(game_dict(game, utc_today()), status=status.HTTP_201_CREATED)


class BoardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=TAGS,
        summary="A day's board, 100 rows a page, with my own row; or its Following view",
        description="Order: won first, then more foundation cards, fewer actions, less time, "
        "earlier finish. The score is shown, never ranked. Attempts without an action yet are "
        "not on the board. `seq` is the live stream's latest sequence number. With "
        "`?following=1` (logged in): the Following view, an AmongBoard — my attempt and those "
        "of the players I follow, in the board's order, `rank` among us and `board_rank` on "
        "the whole board, all on one page.",
        parameters=[DATE, BoardQuerySerializer],
        responses={
            200: PolymorphicProxySerializer(
                component_name="BoardOrFollowing",
                serializers=[BoardSerializer, AmongBoardSerializer],
                resource_type_field_name=None,
            ),
            **_errors(
                e400="Malformed date (invalid_date), page or following (invalid).",
                e401="?following=1 without logging in (not_authenticated).",
                e404="A day not begun yet, or a page past the last (not_found).",
            ),
        },
    )
    def get(self, request: Request, date: str) -> Response:
        day = services.board_day(date)
        query = read_query(BoardQuerySerializer, request.query_params)
        if not query["following"]:
            return Response(services.board(day, query["page"], request.user))
        viewer = player(request)  # (401 for a visitor)
        return Response(services.following_board(day, viewer, query["page"]))


class PictureView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=TAGS,
        summary="A day's picture: how many players reached each number of foundation cards",
        description="Counts only, never a card: the attempts played (one action or more) by "
        "their cards on the foundations, the real share of wins next to the one the simulated "
        "players predicted, par once the day is over, and my own attempt's place. While the day "
        "runs it is the picture so far (a few seconds old at most).",
        parameters=[DATE],
        responses={
            200: PictureSerializer,
            **_errors(
                e400="Malformed date (invalid_date).",
                e404="A day not begun yet (not_found).",
            ),
        },
    )
    def get(self, request: Request, date: str) -> Response:
        day = services.board_day(date)
        return Response(picture.picture(day, request.user))


class SolutionView(APIView):
    permission_classes = [AllowAny]

    @property
    def throttle_scope(self) -> str | None:
        """With every state (``?states=1``) rate-limited as a game's record is."""
        return "states" if self.request.query_params.get("states") in {"1", "true"} else None

    @extend_schema(
        tags=TAGS,
        summary="A past day's solution: the solver's winning line as a record",
        description="The line that certified the day's deal winnable, in the shape of a game's "
        "record (`id` 0, player `(solver)`, result `won`); `?states=1` adds the views for a "
        "replay. Its length is the day's `par`: the solver's, not proved shortest. Only once the "
        "day is over (UTC).",
        parameters=[DATE, RecordQuerySerializer],
        responses={
            200: RecordSerializer,
            **_errors(
                e400="Malformed date (invalid_date) or query (invalid).",
                e404="The day is not over (today or later), or it has no solver line: dealt "
                "before certification, or never dealt (not_found).",
                e429="Rate-limited, with ?states=1: throttled (retry_after).",
            ),
        },
    )
    def get(self, request: Request, date: str) -> Response:
        day = services.parse_day(date)
        query = read_query(RecordQuerySerializer, request.query_params)
        return Response(services.solution(day, query["states"]))


class DaysPagination(PageNumberPagination):
    page_size = services.DAYS_PAGE_SIZE


class DaysView(GenericAPIView[DailyDeal]):
    permission_classes = [AllowAny]
    pagination_class = DaysPagination
    serializer_class = DaySerializer

    @extend_schema(
        tags=TAGS,
        summary="Past days: their code, players and winners, newest first",
        parameters=[PageQuerySerializer],
        responses={
            200: DaySerializer(many=True),
            **_errors(e400="Malformed page (invalid).", e404="No such page (not_found)."),
        },
    )
    def get(self, request: Request) -> Response:
        read_query(PageQuerySerializer, request.query_params)  # (the paginator reads the page)
        page = self.paginate_queryset(services.past_days())
        return self.get_paginated_response(services.day_rows(list(page or [])))


class PlayerView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=TAGS,
        summary="A player's daily stats and history, and their follows",
        description="Stats over daily attempts with one action or more; streaks count "
        "consecutive UTC days played. History: every daily attempt, newest first, with its rank. "
        "`following` and `followers` count the player's follows; `followed_by_me` says whether "
        "I follow them (null when I cannot: not logged in, a guest, or my own page).",
        parameters=[
            OpenApiParameter("username", str, OpenApiParameter.PATH),
            PageQuerySerializer,
        ],
        responses={
            200: PlayerSerializer,
            **_errors(e400="Malformed page (invalid).", e404="No such player or page (not_found)."),
        },
    )
    def get(self, request: Request, username: str) -> Response:
        query = read_query(PageQuerySerializer, request.query_params)
        return Response(services.player(username, query["page"], viewer=request.user))
