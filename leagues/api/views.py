"""The leagues endpoints: the signed-in player's weeks, and their division in the current ISO
week or in a week they name. Thin views over ``leagues.services``; refusals are ``GameError``
(``leagues.api.errors`` gives their statuses) and reach the client as ``{"code", "message"}``."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.players import player
from core.api_errors import ErrorSerializer
from games.clock import utc_today
from leagues import services
from leagues.api.serializers import LeagueWeekSerializer, LeagueWeekSummarySerializer
from leagues.rules import parse_week, week_of

TAGS = ["leagues"]

_DESCRIPTION = (
    "My division of the week: its tier, its number, and every member's place, points, days "
    "played and zone (up, stay, down), with my own row, and whether the week is closed. Points "
    "come from each settled day's percentile (docs/leagues.md): the week's rows grow as its days "
    "settle. While the week is open and today is in it, each row's today is the provisional "
    "points of the member's attempt today as the day's board stands, and the places and zones "
    "count them. Results only: never a card."
)

_E401 = OpenApiResponse(ErrorSerializer, description="Not logged in: not_authenticated.")
_E404 = OpenApiResponse(
    ErrorSerializer,
    description="No division of mine that week (no ranked attempt settled in it): no_division.",
)

WEEK = OpenApiParameter(
    "week",
    str,
    OpenApiParameter.PATH,
    description="An ISO week: the year, -W and the week's number, like 2026-W49.",
)


class WeeksView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="My weeks",
        description=(
            "The weeks I had a division, newest first, at most 52: each week's tier, division "
            "and, once the week is closed, my final place and where I went (zone)."
        ),
        responses={200: LeagueWeekSummarySerializer(many=True), 401: _E401},
    )
    def get(self, request: Request) -> Response:
        return Response(services.weeks_of(player(request)))


class CurrentWeekView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="My division this week",
        description=_DESCRIPTION + " This week is the ISO week of today (UTC).",
        responses={200: LeagueWeekSerializer, 401: _E401, 404: _E404},
    )
    def get(self, request: Request) -> Response:
        user = player(request)
        return Response(services.division_of(user, week_of(utc_today(timezone.now()))))


class WeekView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="My division in a week",
        description=_DESCRIPTION,
        parameters=[WEEK],
        responses={
            200: LeagueWeekSerializer,
            400: OpenApiResponse(
                ErrorSerializer,
                description="Not an ISO week (2026-W60, abc): invalid_week.",
            ),
            401: _E401,
            404: _E404,
        },
    )
    def get(self, request: Request, week: str) -> Response:
        user = player(request)
        return Response(services.division_of(user, parse_week(week)))
