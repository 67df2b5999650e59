"""Following over REST: thin views over ``social.services``.

The Following view of a day's board is the leaderboard's own endpoint
(``GET /api/daily/<date>/board/?following=1``), which asks this app whom a player follows; the
follow counts of a player's page likewise (``leaderboard.services.answer_follows``).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.players import player
from core.api_errors import ErrorSerializer
from core.strict import read_query
from leaderboard.api.serializers import PageQuerySerializer
from social import services
from social.api.serializers import (
    FollowedPlayerSerializer,
    FollowingTodaySerializer,
    FollowStateSerializer,
)
from social.models import Follow

TAGS = ["players"]

USERNAME = OpenApiParameter(
    "username", str, OpenApiParameter.PATH, description="A player's name (any case)."
)


def _errors(**descriptions: str) -> dict[int, Any]:
    return {
        int(code.removeprefix("e")): OpenApiResponse(ErrorSerializer, description=text)
        for code, text in descriptions.items()
    }


GUEST = (
    "A guest (account_required: following needs an account), or a session request without its "
    "CSRF header (permission_denied)."
)


class FollowView(APIView):
    throttle_scope = "follows"

    @extend_schema(
        tags=TAGS,
        summary="Follow a player",
        description="I follow the player from now on: on the daily board's Following view "
        "(GET /api/daily/<date>/board/?following=1) and on my home page "
        "(GET /api/me/following/today/). 201 when I did not follow them before, 200 when I "
        "did (nothing changes); the answer is the follow as it stands. At most FOLLOWS_MAX "
        "players (1,000) followed at once.",
        parameters=[USERNAME],
        request=None,
        responses={
            201: OpenApiResponse(FollowStateSerializer, description="I follow them now."),
            200: OpenApiResponse(FollowStateSerializer, description="I followed them already."),
            **_errors(
                e400="The player is myself (follow_self).",
                e401="Not logged in (not_authenticated).",
                e403=GUEST,
                e404="No such player; a guest is none (not_found).",
                e409="I follow FOLLOWS_MAX players already (follow_limit): nothing changes.",
                e429="Too many follows and unfollows (throttled; THROTTLE_FOLLOWS).",
            ),
        },
    )
    def post(self, request: Request, username: str) -> Response:
        state, created = services.follow(player(request), username)
        return Response(state, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(
        tags=TAGS,
        summary="Unfollow a player",
        description="I no longer follow the player; the same answer whether I did or not.",
        parameters=[USERNAME],
        responses={
            200: FollowStateSerializer,
            **_errors(
                e400="The player is myself (follow_self).",
                e401="Not logged in (not_authenticated).",
                e403=GUEST,
                e404="No such player; a guest is none (not_found).",
                e429="Too many follows and unfollows (throttled; THROTTLE_FOLLOWS).",
            ),
        },
    )
    def delete(self, request: Request, username: str) -> Response:
        return Response(services.unfollow(player(request), username))


class FollowingPagination(PageNumberPagination):
    page_size = 50


class FollowingView(GenericAPIView[Follow]):
    pagination_class = FollowingPagination
    serializer_class = FollowedPlayerSerializer

    @extend_schema(
        tags=TAGS,
        summary="Whom I follow, newest first",
        parameters=[PageQuerySerializer],
        responses={
            200: FollowedPlayerSerializer(many=True),
            **_errors(
                e400="Malformed page (invalid).",
                e401="Not logged in (not_authenticated).",
                e403="A guest (account_required: following needs an account).",
                e404="No such page (not_found).",
            ),
        },
    )
    def get(self, request: Request) -> Response:
        read_query(PageQuerySerializer, request.query_params)  # (the paginator reads the page)
        page = self.paginate_queryset(services.follows_of(player(request)))
        return self.get_paginated_response(services.followed_players(list(page or [])))


class FollowingTodayView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="What the players I follow did at today's deal",
        description="Those who played today's deal (one action or more), in the board's order, "
        "20 a page: finished or not, won, cards home, actions, rank on the whole board — "
        "results only. `watch` (the page that shows the game) is null until I may watch it: a "
        "daily attempt of a day not over, once my own attempt at it is over.",
        parameters=[PageQuerySerializer],
        responses={
            200: FollowingTodaySerializer,
            **_errors(
                e400="Malformed page (invalid).",
                e401="Not logged in (not_authenticated).",
                e403="A guest (account_required: following needs an account).",
                e404="A page past the last (not_found).",
            ),
        },
    )
    def get(self, request: Request) -> Response:
        query = read_query(PageQuerySerializer, request.query_params)
        return Response(services.following_today(player(request), query["page"]))
