"""Request bodies and query strings of the groups API, read strictly (``core.strict``); the
response bodies are declared in ``groups.payloads`` and ``leaderboard.payloads``, their
serializers derived from those declarations."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core import strict
from core.schema import serializer_for
from groups.payloads import GroupDict, GroupSummary, WeekTable
from groups.services import INVITE_MAX, NAME_MAX
from leaderboard.payloads import AmongBoard


class GroupNameSerializer(strict.StrictSerializer):
    name = strict.CharField(
        min_length=1,
        max_length=NAME_MAX,
        help_text=f"The group's name: 1 to {NAME_MAX} characters, not only blanks (blanks around "
        "it are dropped).",
    )


class GroupInviteSerializer(strict.StrictSerializer):
    invite = strict.CharField(
        min_length=1,
        max_length=INVITE_MAX,
        help_text="An invite token, as a group's `invite` (and its join page's address) has it.",
    )


class DayQuerySerializer(serializers.Serializer[Any]):
    date = serializers.CharField(
        required=False, help_text="A UTC day, YYYY-MM-DD (today or earlier); today without it."
    )


GroupSerializer = serializer_for(GroupDict, "Group")
GroupSummarySerializer = serializer_for(GroupSummary, "GroupSummary")
WeekSerializer = serializer_for(WeekTable, "GroupWeek")
AmongBoardSerializer = serializer_for(AmongBoard)
