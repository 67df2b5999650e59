"""What the social API sends, each shape declared once as a ``TypedDict`` (the schema is derived
from these: ``core.schema``). The counts on a player's page are the leaderboard's
``payloads.FollowCounts``; the Following view of a day's board is its ``AmongBoard``.

A row of what the people I follow did today holds their results only — never a move, a card or
a way into their game — until I may watch it (``games.services.can_watch``).
"""

from __future__ import annotations

from typing import Annotated, TypedDict

from core.formats import IsoDate, IsoDateTime
from games.payloads import Result, Status


class FollowState(TypedDict):
    """A follow as it stands after POST or DELETE /api/players/<name>/follow/."""

    player: Annotated[str, "The player followed (or no longer followed), as they spell it."]
    followed_by_me: Annotated[bool, "Whether I follow them now."]
    followers: Annotated[int, "How many players follow them now."]
    following: Annotated[int, "How many players they follow."]


class FollowedPlayer(TypedDict):
    player: str
    since: Annotated[IsoDateTime, "When I began to follow them."]


class FollowedResult(TypedDict):
    """A followed player's attempt at the day's deal, results only."""

    player: str
    status: Status
    result: Result
    won: bool
    foundation_cards: Annotated[int, "Cards on the foundations, 1 to 52."]
    actions: Annotated[int, "Every action logged, undos included."]
    board_rank: Annotated[int | None, "The attempt's rank on the whole day's board."]
    watch: Annotated[
        str | None,
        "The page that shows the game (live while it is played, its replay once over), once I "
        "may watch it: for a daily attempt of a day not over, once my own attempt at that day's "
        "deal is over. Null before: results only.",
    ]


class FollowingToday(TypedDict):
    """What the players I follow did at today's deal: those who played, in the board's order."""

    date: Annotated[IsoDate, "Today, UTC."]
    mine_over: Annotated[
        bool, "Whether my own attempt at today's deal is over (their games open to me then)."
    ]
    following: Annotated[int, "How many players I follow."]
    waiting: Annotated[int, "How many of them have not played today's deal yet."]
    count: Annotated[int, "How many of them have played it (one action or more)."]
    page: int
    pages: int
    results: Annotated[list[FollowedResult], "20 a page, best first."]
