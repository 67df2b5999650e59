"""A player's milestones over REST: ``GET /api/players/<name>/milestones/``
(``leaderboard.milestones``)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import ErrorSerializer
from core.schema import serializer_for
from leaderboard import milestones, services

MilestonesSerializer = serializer_for(milestones.MilestonesPage, "Milestones")


class MilestonesView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=["daily"],
        summary="A player's milestones",
        description="Each earned once, with the UTC day it was earned: the first win, 7, 30 and "
        "100 consecutive days with a ranked daily attempt, a league promotion, the top tier. "
        "`title` is in the request's language.",
        parameters=[OpenApiParameter("username", str, OpenApiParameter.PATH)],
        responses={
            200: MilestonesSerializer,
            404: OpenApiResponse(ErrorSerializer, description="No such player (not_found)."),
        },
    )
    def get(self, request: Request, username: str) -> Response:
        return Response(milestones.of(services.find_player(username)))
