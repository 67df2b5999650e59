"""The standings over time over REST: ``GET /api/standings/?period=week|month|all``, a thin view
over ``leaderboard.periods.table`` (precomputed rows, read as a range of an index)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import strict
from core.api_errors import ErrorSerializer
from core.schema import serializer_for
from leaderboard import periods, services

StandingsSerializer = serializer_for(periods.StandingsPage, "Standings")


class StandingsQuerySerializer(serializers.Serializer[Any]):
    period = serializers.ChoiceField(
        choices=list(periods.KINDS),
        required=False,
        default="week",
        help_text="week (an ISO week, the default), month or all (all time).",
    )
    at = serializers.CharField(
        required=False,
        default="",
        help_text="A UTC day, YYYY-MM-DD: the week or month containing it (default today).",
    )
    page = strict.PageField(required=False, default=1)


class StandingsView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=["daily"],
        summary="The standings over a week, a month or all time",
        description="Each player's days with a ranked daily attempt in the period (settled days "
        "only), wins, average percentile (each day: the share of the day's other ranked "
        "attempts beaten, ties sharing; 0 to 100) and longest run of consecutive days within "
        "the period. Listed only with at least `minimum_days` days played (week 3, month 10, "
        "all time 30). Order: average percentile, then days played, then wins (higher first), "
        "then the player's name. 100 rows a page.",
        parameters=[StandingsQuerySerializer],
        responses={
            200: StandingsSerializer,
            400: OpenApiResponse(
                ErrorSerializer,
                description="An unknown period or a malformed page (invalid), a malformed date "
                "(invalid_date).",
            ),
            404: OpenApiResponse(
                ErrorSerializer,
                description="A day after today, or a page past the last (not_found).",
            ),
        },
    )
    def get(self, request: Request) -> Response:
        query = strict.read_query(StandingsQuerySerializer, request.query_params)
        at = services.parse_day(query["at"]) if query["at"] else None
        return Response(periods.table(query["period"], at, query["page"]))
