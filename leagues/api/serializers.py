"""The leagues API's response shape, derived from its declaration in ``leagues.payloads``."""

from __future__ import annotations

from core.schema import serializer_for
from leagues.payloads import LeagueWeek, LeagueWeekSummary

LeagueWeekSerializer = serializer_for(LeagueWeek, "LeagueWeek")
LeagueWeekSummarySerializer = serializer_for(LeagueWeekSummary, "LeagueWeekSummary")
