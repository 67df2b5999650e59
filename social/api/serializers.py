"""The social API's response bodies, derived from their declarations in ``social.payloads``."""

from __future__ import annotations

from core.schema import serializer_for
from social.payloads import FollowedPlayer, FollowingToday, FollowState

FollowStateSerializer = serializer_for(FollowState)
FollowedPlayerSerializer = serializer_for(FollowedPlayer)
FollowingTodaySerializer = serializer_for(FollowingToday)
