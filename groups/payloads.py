"""What the groups API answers, each shape declared once as a ``TypedDict`` and built by one
function; the API's schema is derived from these declarations (``core.schema``). A group's board
is the leaderboard's ``AmongBoard`` (``leaderboard.services.board_among``). Nothing here holds a
card: a group shows results (rows of a board, points, streaks), never a game's moves."""

from __future__ import annotations

from typing import Annotated, TypedDict

from core.formats import IsoDate, IsoDateTime, iso
from groups.models import Group, Membership


class MemberDict(TypedDict):
    player: str
    joined: IsoDateTime
    owner: Annotated[bool, "Whether this member owns the group."]


class GroupSummary(TypedDict):
    """A group in the list of mine."""

    id: int
    name: str
    owner: Annotated[str, "The owner's name."]
    members: Annotated[int, "How many members it has, the owner included."]
    owned: Annotated[bool, "Whether I own it."]


class GroupDict(TypedDict):
    """A group, as its members see it."""

    id: int
    name: str
    owner: Annotated[str, "The owner's name."]
    created: IsoDateTime
    owned: Annotated[bool, "Whether I own it."]
    invite: Annotated[
        str,
        "The current invite token: whoever has it may join (POST /api/groups/join/). The owner "
        "may replace it (POST /api/groups/<id>/invite/); the old one then joins nobody.",
    ]
    members: Annotated[list[MemberDict], "Its members, the longest-standing first."]


class WeekRow(TypedDict):
    rank: Annotated[int, "Place in the table: more points first; equal totals share a place."]
    player: str
    points: Annotated[
        list[float | None],
        "Points of each day of the week, Monday first (docs/api.md, the formula): null for a day "
        "not begun yet.",
    ]
    total: float
    current_streak: Annotated[
        int,
        "Consecutive days the member played the daily deal, up to today (or yesterday, while "
        "today's is not played yet).",
    ]


class WeekTable(TypedDict):
    """A week's table of a group: Monday to Sunday (UTC), points by each day's rank among the
    members (docs/api.md, "The week's table")."""

    start: Annotated[IsoDate, "The week's Monday."]
    days: Annotated[list[IsoDate], "The week's seven days, Monday first."]
    rows: Annotated[list[WeekRow], "Every member, the most points first."]


def member_dict(membership: Membership, group: Group) -> MemberDict:
    return {
        "player": membership.user.get_username(),
        "joined": iso(membership.joined_at) or "",
        "owner": membership.user_id == group.owner_id,
    }


def summary(group: Group, members: int, viewer_id: int) -> GroupSummary:
    return {
        "id": group.pk,
        "name": group.name,
        "owner": group.owner.get_username(),
        "members": members,
        "owned": group.owner_id == viewer_id,
    }


def group_dict(group: Group, memberships: list[Membership], viewer_id: int) -> GroupDict:
    return {
        "id": group.pk,
        "name": group.name,
        "owner": group.owner.get_username(),
        "created": iso(group.created_at) or "",
        "owned": group.owner_id == viewer_id,
        "invite": group.invite,
        "members": [member_dict(m, group) for m in memberships],
    }
