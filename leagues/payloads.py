"""What the leagues API answers, each shape declared once as a ``TypedDict`` and built here; the
API's schema is derived from these declarations (``core.schema``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal, TypedDict

from core.formats import IsoDate
from leagues.models import Membership, Movement, Tier
from leagues.rules import ORDER, movement_of, week_days, week_label

Zone = Literal["up", "stay", "down"]

_ZONES: dict[int, Zone] = {Movement.UP: "up", Movement.STAY: "stay", Movement.DOWN: "down"}


class TierDict(TypedDict):
    code: Annotated[int, "0 (Bronze, the lowest) to 5 (Diamond, the highest)."]
    name: Annotated[str, "The tier's name, in the request's language."]


class LeagueRow(TypedDict):
    place: Annotated[
        int,
        "Place in the division: more points first, then more days played, then the best single "
        "day, then the earlier account (docs/leagues.md). Final once the week is closed.",
    ]
    player: str
    points: Annotated[int, "The week's points of its settled days: 10 to 100 a ranked day; final."]
    days: Annotated[int, "Settled days with a ranked attempt this week."]
    today: Annotated[
        int | None,
        "Provisional points of today's attempt as it stands (10 + 90 × percentile, from its "
        "current rank on today's whole board), while the week is open and today is in it; null "
        "if the player has not played today, and once the day is over. The place and the zone "
        "count them; they are final once the day settles (docs/leagues.md).",
    ]
    zone: Annotated[
        Zone,
        "Where this place goes at the week's end: up a tier, down, or stay; once the week is "
        "closed, where the player went.",
    ]


class LeagueWeek(TypedDict):
    """The signed-in player's division in an ISO week (docs/leagues.md)."""

    week: Annotated[str, "The ISO week, like 2026-W49."]
    start: Annotated[IsoDate, "Its Monday (UTC)."]
    end: Annotated[IsoDate, "Its Sunday."]
    closed: Annotated[bool, "Whether the week is over and its movements were made."]
    tier: TierDict
    division: Annotated[int, "The division's number among the tier's divisions this week."]
    rows: Annotated[list[LeagueRow], "Every member of the division, by place."]
    me: LeagueRow


class LeagueWeekSummary(TypedDict):
    """One week the signed-in player had a division, for the list of their weeks."""

    week: Annotated[str, "The ISO week, like 2026-W49."]
    start: Annotated[IsoDate, "Its Monday (UTC)."]
    end: Annotated[IsoDate, "Its Sunday."]
    closed: Annotated[bool, "Whether the week is over and its movements were made."]
    tier: TierDict
    division: Annotated[int, "The division's number among the tier's divisions that week."]
    place: Annotated[int | None, "The final place in the division; null while the week is open."]
    zone: Annotated[
        Zone | None, "Where the player went at the week's end; null while the week is open."
    ]


def tier_dict(tier: int) -> TierDict:
    return {"code": tier, "name": str(Tier(tier).label)}


@dataclass(frozen=True)
class Member:
    """A member of a division as the API shows them: their membership (its player loaded) and
    their totals — summed from their day rows while the week is open, as written at its close
    after."""

    membership: Membership
    points: int
    days: int
    best: int
    #: Today's provisional points (``None``: not played today, or no day in play).
    today: int | None = None

    def sort_key(self) -> tuple[int, ...]:
        """:data:`~leagues.rules.ORDER`, in Python: the first member sorts first. Today's
        provisional points count as a settled day would: added to the points, a day played,
        and the best day if better."""
        played = self.today is not None
        today = self.today or 0
        values = {
            "points": self.points + today,
            "days": self.days + played,
            "best": max(self.best, today),
            "player_id": self.membership.player_id,
        }
        return tuple(-values[key[1:]] if key.startswith("-") else values[key] for key in ORDER)


def league_week(me: Membership, members: list[Member]) -> LeagueWeek:
    """``me``'s division (``members``: all of it, ``me`` among them)."""
    division = me.division
    closed = me.week.closed_at is not None
    if closed:
        ordered = sorted(members, key=lambda m: (m.membership.place or 0, m.sort_key()))
    else:
        ordered = sorted(members, key=Member.sort_key)
    rows: list[LeagueRow] = []
    mine: LeagueRow | None = None
    for place, member in enumerate(ordered, start=1):
        row_place, movement = place, movement_of(place, len(ordered), division.tier)
        final = member.membership
        if closed and final.place is not None and final.movement is not None:
            row_place, movement = final.place, Movement(final.movement)
        row: LeagueRow = {
            "place": row_place,
            "player": final.player.get_username(),
            "points": member.points,
            "days": member.days,
            "today": member.today,
            "zone": _ZONES[movement],
        }
        rows.append(row)
        if final.pk == me.pk:
            mine = row
    assert mine is not None
    days = week_days(division.week_id)
    return {
        "week": week_label(division.week_id),
        "start": days[0].isoformat(),
        "end": days[-1].isoformat(),
        "closed": closed,
        "tier": tier_dict(division.tier),
        "division": division.number,
        "rows": rows,
        "me": mine,
    }


def week_summary(membership: Membership) -> LeagueWeekSummary:
    """One of a player's weeks (``membership``, its division and week loaded)."""
    days = week_days(membership.week_id)
    closed = membership.week.closed_at is not None
    movement = membership.movement
    return {
        "week": week_label(membership.week_id),
        "start": days[0].isoformat(),
        "end": days[-1].isoformat(),
        "closed": closed,
        "tier": tier_dict(membership.division.tier),
        "division": membership.division.number,
        "place": membership.place if closed else None,
        "zone": _ZONES[movement] if closed and movement is not None else None,
    }
