"""What the ratings API sends, each shape declared once as a ``TypedDict`` and built by one
function; the serializers and the schema are derived from these (``core.schema``). A player's
``rating`` object is the leaderboard's ``PlayerRating``, which the player's page declares."""

from __future__ import annotations

from typing import Annotated, TypedDict

from core.formats import IsoDate
from leaderboard.payloads import PlayerRating
from ratings import matches
from ratings.models import PROVISIONAL_DAYS, Rating, RatingPoint


class BoardRow(TypedDict):
    place: Annotated[int, "1 for the best; players whose ratings are equal share a place."]
    player: str
    rating: Annotated[int, "The conservative rating shown: 1000 + 40 × (mu − 3 sigma)."]
    uncertainty: Annotated[int, "One standard deviation, in the same points: 40 × sigma."]
    days: Annotated[int, "Settled days that rated the player."]
    provisional: Annotated[bool, "Always false here: provisional players are not listed."]


class HistoryPoint(TypedDict):
    date: Annotated[IsoDate, "A settled day that rated the player."]
    rating: Annotated[int, "The conservative rating shown after that day."]
    uncertainty: int


class RatingHistory(TypedDict):
    player: str
    rating: Annotated[PlayerRating | None, "The player's rating now; null if never rated."]
    points: Annotated[list[HistoryPoint], "The last 365 days that rated the player, oldest first."]


def player_rating(rating: Rating) -> PlayerRating:
    return {
        "number": matches.shown(rating.ordinal),
        "uncertainty": matches.uncertainty(rating.sigma),
        "days": rating.days,
        "provisional": rating.days < PROVISIONAL_DAYS,
    }


def board_row(rating: Rating, place: int) -> BoardRow:
    return {
        "place": place,
        "player": rating.player.get_username(),
        "rating": matches.shown(rating.ordinal),
        "uncertainty": matches.uncertainty(rating.sigma),
        "days": rating.days,
        "provisional": rating.days < PROVISIONAL_DAYS,
    }


def history_point(point: RatingPoint) -> HistoryPoint:
    return {
        "date": point.day.isoformat(),
        "rating": matches.shown(point.ordinal),
        "uncertainty": matches.uncertainty(point.sigma),
    }
