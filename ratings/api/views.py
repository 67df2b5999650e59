"""The ratings over REST: thin views over ``ratings.services``. Refusals reach the client as
``{"code", "message"}`` (``core.api_errors``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import ErrorSerializer
from core.strict import read_query
from leaderboard.api.serializers import PageQuerySerializer
from leaderboard.services import find_player
from ratings import services
from ratings.api.serializers import RatingHistorySerializer, RatingRowSerializer
from ratings.models import PROVISIONAL_DAYS, Rating

TAGS = ["ratings"]


def _errors(**descriptions: str) -> dict[int, Any]:
    return {
        int(code.removeprefix("e")): OpenApiResponse(ErrorSerializer, description=text)
        for code, text in descriptions.items()
    }


class BoardPagination(PageNumberPagination):
    page_size = services.BOARD_PAGE_SIZE


class RatingBoardView(GenericAPIView[Rating]):
    permission_classes = [AllowAny]
    pagination_class = BoardPagination
    serializer_class = RatingRowSerializer

    @extend_schema(
        tags=TAGS,
        summary="The rating board: the best ratings first, 50 a page",
        description="Players rated on at least "
        f"{PROVISIONAL_DAYS} settled days, by their conservative rating (1000 + 40 × "
        "(mu − 3 sigma), openskill's Plackett-Luce over the days' results; docs/ratings.md). "
        "Provisional players (fewer days) are not listed: their rating is on their page.",
        parameters=[PageQuerySerializer],
        responses={
            200: RatingRowSerializer(many=True),
            **_errors(e400="Malformed page (invalid).", e404="No such page (not_found)."),
        },
    )
    def get(self, request: Request) -> Response:
        read_query(PageQuerySerializer, request.query_params)  # (the paginator reads the page)
        page = list(self.paginate_queryset(services.board()) or [])
        shown = getattr(self.paginator, "page", None)  # (DRF's paginator keeps the page read)
        start = (shown.number - 1) * services.BOARD_PAGE_SIZE if shown is not None else 0
        return self.get_paginated_response(services.board_rows(page, start))


class RatingHistoryView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=TAGS,
        summary="A player's rating and its history, for a chart",
        description="The rating after each settled day that rated the player, the last 365 of "
        "them, oldest first.",
        parameters=[OpenApiParameter("username", str, OpenApiParameter.PATH)],
        responses={200: RatingHistorySerializer, **_errors(e404="No such player (not_found).")},
    )
    def get(self, request: Request, username: str) -> Response:
        return Response(services.history(find_player(username)))
