"""Query strings of the daily-deal and leaderboard API, validated by DRF serializers; the response
bodies are declared in ``leaderboard.payloads`` and their serializers derived from those
declarations.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core import strict
from core.schema import serializer_for
from leaderboard.payloads import AmongBoard, BoardPage, DayRow, PlayerPage, TodayDict
from leaderboard.picture import PictureDict


class PageQuerySerializer(serializers.Serializer[Any]):
    page = strict.PageField(required=False, default=1)


class BoardQuerySerializer(PageQuerySerializer):
    following = strict.FlagField(
        required=False,
        default=False,
        help_text="1 or true: the Following view, the board among me and the players I follow "
        "(logged in only; one page). 0 or false (the default): everyone's board.",
    )


BoardSerializer = serializer_for(BoardPage, "Board")
AmongBoardSerializer = serializer_for(AmongBoard)
DailySerializer = serializer_for(TodayDict, "Daily")
DaySerializer = serializer_for(DayRow, "Day")
PlayerSerializer = serializer_for(PlayerPage, "Player")
PictureSerializer = serializer_for(PictureDict, "Picture")
