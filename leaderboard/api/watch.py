"""``GET /api/watch/``: the games to watch (``leaderboard.watching``), a thin view."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.schema import serializer_for
from leaderboard import watching

WatchListsSerializer = serializer_for(watching.WatchLists, "WatchLists")


class WatchView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        tags=["watch"],
        summary="Games to watch: those being played now, and the day's best finished games",
        description=(
            "Anyone may ask. Each list holds only the games the asker may watch (a practice game "
            "whose player keeps practice private is theirs alone; a daily attempt of a day not "
            "over only for a player whose own attempt at that deal is over), and never a "
            "guest's. A game in progress is watched live on its page, /games/<id>/replay/, over "
            "the websocket /ws/games/<id>/watch/."
        ),
        responses={200: WatchListsSerializer},
    )
    def get(self, request: Request) -> Response:
        return Response(watching.watch_lists(request.user))
