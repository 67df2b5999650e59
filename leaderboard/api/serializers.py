"""Bodies of the daily-deal and leaderboard API, for the OpenAPI schema and query validation.

Payloads are built by ``leaderboard.services`` (board rows by ``leaderboard.ranking.row``); the
response serializers here describe them.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.api.serializers import GameSerializer
from games.models import Game


class PageQuerySerializer(serializers.Serializer[Any]):
    page = serializers.IntegerField(min_value=1, required=False, default=1)


class BoardRowSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField(
        allow_null=True, help_text="1 for the best; null for an attempt not on the board."
    )
    player = serializers.CharField()
    status = serializers.ChoiceField(choices=Game.Status.values)
    result = serializers.CharField(
        help_text="in_progress, won, resigned, or closed (still open when its day ended)."
    )
    won = serializers.BooleanField()
    foundation_cards = serializers.IntegerField(help_text="Cards on the foundations, 1 to 52.")
    actions = serializers.IntegerField(help_text="Every action logged, undos included.")
    time_seconds = serializers.FloatField(
        allow_null=True,
        help_text="Server time from the first action to the end (or to now / the day's end "
        "while open); null before the first action.",
    )
    score = serializers.IntegerField(help_text="Shown only: never part of the order.")
    finished_at = serializers.DateTimeField(allow_null=True)
    game_id = serializers.IntegerField(help_text="For GET /api/games/<id>/record/ (a replay).")


class BoardSerializer(serializers.Serializer[Any]):
    date = serializers.DateField()
    code = serializers.CharField(
        allow_null=True, help_text="The day's deal code; null until the day is over."
    )
    count = serializers.IntegerField(help_text="Attempts on the board (one action or more).")
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    results = BoardRowSerializer(many=True, help_text="100 rows per page, in rank order.")
    me = BoardRowSerializer(
        allow_null=True, help_text="The viewer's own row, wherever it ranks; null if none."
    )
    seq = serializers.IntegerField(
        help_text="The latest sequence number of the day's live stream (/ws/daily/<date>/)."
    )


class DailySerializer(serializers.Serializer[Any]):
    date = serializers.DateField(help_text="Today, UTC.")
    ends_at = serializers.DateTimeField(help_text="When today's deal ends (midnight UTC).")
    attempt = GameSerializer(allow_null=True, help_text="My ranked attempt today, or null.")
    code = serializers.CharField(allow_null=True, help_text="Always null: published tomorrow.")


class DaySerializer(serializers.Serializer[Any]):
    date = serializers.DateField()
    code = serializers.CharField(help_text="The day's deal code, public once the day is over.")
    players = serializers.IntegerField(help_text="Attempts played (one action or more).")
    winners = serializers.IntegerField()


class PlayerStatsSerializer(serializers.Serializer[Any]):
    played = serializers.IntegerField(help_text="Daily attempts with one action or more.")
    won = serializers.IntegerField()
    win_rate = serializers.FloatField(help_text="won / played, 0 to 1 (0 when none played).")
    best_score = serializers.IntegerField(allow_null=True)
    current_streak = serializers.IntegerField(
        help_text="Consecutive UTC days played, ending today (or yesterday, if today's deal "
        "is not played yet)."
    )
    longest_streak = serializers.IntegerField()


class HistoryRowSerializer(BoardRowSerializer):
    date = serializers.DateField()


class PlayerSerializer(serializers.Serializer[Any]):
    player = serializers.CharField()
    stats = PlayerStatsSerializer()
    count = serializers.IntegerField(help_text="Daily attempts in the history.")
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    history = HistoryRowSerializer(many=True, help_text="Newest first, 30 per page.")
