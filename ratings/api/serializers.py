"""The ratings API's response bodies, derived from their declarations in ``ratings.payloads``."""

from __future__ import annotations

from core.schema import serializer_for
from ratings.payloads import BoardRow, RatingHistory

RatingRowSerializer = serializer_for(BoardRow, "RatingRow")
RatingHistorySerializer = serializer_for(RatingHistory, "RatingHistory")
