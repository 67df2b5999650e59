"""Groups of friends: what a player may do with them, and what a group shows its members.

Views call these functions; refusals are ``games.errors.GameError`` (``groups.api.errors`` gives
their statuses), and every write happens in one transaction. The rules:

- **Private.** A group, its board and its week's table are its members' alone: to anyone else a
  group that exists is answered exactly as one that does not (``not_found``), so its existence
  is never told. A member who is not the owner and asks for what only the owner may do knows the
  group: ``owner_only``.
- **Joining** is by the group's current invite (:func:`join`): an invite that never was and one
  the owner replaced are the same ``invite_not_found``, reached by the same path (the group is
  found by the invite's digest: ``groups.models``). Joining a group twice is no error.
- **Caps**, checked with the rows locked so that parallel requests cannot pass them:
  ``GROUPS_PER_PLAYER`` groups a player belongs to, those they own included
  (``too_many_groups``), and ``GROUP_MEMBERS_MAX`` members a group (``group_full``).
- **An owner who leaves** hands the group to the member who has been in it longest (the earliest
  to join; the first row on a tie); the last member to leave ends it (the group is deleted).
  The owner cannot remove themselves: they leave.
- **The board** of a day among the members is the leaderboard's (``board_among``), and the
  week's table gives points by each day's place among them (:func:`day_points`).

Each write takes ``admit``, the caller's rate limit: called once the request is known to be well
formed (a name that may be a name, an invite that may be one) and before anything is written, so
that bad input uses up nothing — and a join is counted before its invite is looked up, so that
guesses at invites are counted.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections.abc import Callable, Sequence

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext as _

from games.clock import utc_today
from games.errors import GameError
from games.models import Game
from groups.models import Group, Membership, invite_digest
from groups.payloads import GroupDict, GroupSummary, WeekRow, WeekTable, group_dict, summary
from leaderboard import services as boards
from leaderboard import standings
from leaderboard.models import DailyDeal
from leaderboard.payloads import AmongBoard, AmongRow

#: The longest name a group may have, in characters.
NAME_MAX = 40
#: The longest text taken for an invite (a token is 32 characters; anything longer is none).
INVITE_MAX = 64

Admit = Callable[[], None]


def _nothing() -> None:
    return None


def clean_name(text: str) -> str:
    """A group's name as it is kept: blanks around it dropped, runs of blanks inside made one
    space; ``invalid_name`` for a name that is then empty, longer than :data:`NAME_MAX`, or has
    a control character."""
    name = " ".join(text.split())
    if not name:
        raise GameError("invalid_name", _("A group needs a name."))
    if len(name) > NAME_MAX:
        raise GameError(
            "invalid_name",
            _("A group's name has at most %(count)d characters.") % {"count": NAME_MAX},
        )
    if any(unicodedata.category(char) in {"Cc", "Cf", "Cs", "Co", "Cn"} for char in name):
        raise GameError("invalid_name", _("A group's name may not hold control characters."))
    return name


def not_found() -> GameError:
    return GameError("not_found", _("No such group."))


def invite_not_found() -> GameError:
    return GameError(
        "invite_not_found",
        _(
            "This invite does not work: it may be mistyped, or the group has made a new one. "
            "Ask a member for the current link."
        ),
    )


def _owner_only() -> GameError:
    return GameError("owner_only", _("Only the group's owner may do that."))


# --- reading -----------------------------------------------------------------------------------


def group_of(user: User, group_id: int) -> Group:
    """The group ``group_id`` if ``user`` is a member, else ``not_found`` (as for no group)."""
    group = (
        Group.objects.select_related("owner")
        .filter(pk=group_id, memberships__user_id=user.pk)
        .first()
    )
    if group is None:
        raise not_found()
    return group


def member_ids(group: Group) -> list[int]:
    return list(Membership.objects.filter(group=group).values_list("user_id", flat=True))


def _memberships(group: Group) -> list[Membership]:
    return list(Membership.objects.filter(group=group).select_related("user"))


def detail(user: User, group_id: int) -> GroupDict:
    group = group_of(user, group_id)
    return group_dict(group, _memberships(group), user.pk)


def groups_of(user: User) -> list[GroupSummary]:
    """The groups ``user`` belongs to, by name."""
    found = list(Group.objects.filter(memberships__user_id=user.pk).select_related("owner"))
    counts = dict(
        Membership.objects.filter(group_id__in=[g.pk for g in found])
        .values("group")
        .annotate(n=Count("id"))
        .values_list("group", "n")
    )
    return [summary(group, counts.get(group.pk, 0), user.pk) for group in found]


# --- writing -----------------------------------------------------------------------------------


def _lock_player(user: User) -> None:
    """Lock ``user``'s row for the transaction: their groups are counted and changed one request
    at a time (on SQLite every write transaction is already one at a time)."""
    User.objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True).first()


def _check_room(user: User) -> None:
    held = Membership.objects.filter(user_id=user.pk).count()
    if held >= settings.GROUPS_PER_PLAYER:
        raise GameError(
            "too_many_groups",
            _("You are in %(count)d groups, the most a player may be in: leave one first.")
            % {"count": settings.GROUPS_PER_PLAYER},
        )


def create(owner: User, name: str, admit: Admit = _nothing) -> GroupDict:
    """A new group named ``name``, owned by ``owner``, its first member, with a fresh invite."""
    name = clean_name(name)
    admit()
    with transaction.atomic():
        _lock_player(owner)
        _check_room(owner)
        group = Group(name=name, owner=owner)
        group.new_invite()
        group.save()
        Membership.objects.create(group=group, user=owner)
    return group_dict(group, _memberships(group), owner.pk)


def join(user: User, invite: str, admit: Admit = _nothing) -> GroupDict:
    """``user`` joins the group whose current invite is ``invite`` (already a member: nothing
    changes). ``invite_not_found`` for any text that is not a group's current invite, by one
    path whatever the text: the counted attempt, then a look-up by digest."""
    admit()
    digest = invite_digest(invite[:INVITE_MAX])
    with transaction.atomic():
        _lock_player(user)  # (before the group's row, as every write that takes both)
        group = (
            Group.objects.select_for_update()
            .select_related("owner")
            .filter(invite_digest=digest)
            .first()
        )
        if group is None or len(invite) > INVITE_MAX:
            raise invite_not_found()
        if not Membership.objects.filter(group=group, user_id=user.pk).exists():
            _check_room(user)
            if Membership.objects.filter(group=group).count() >= settings.GROUP_MEMBERS_MAX:
                raise GameError(
                    "group_full",
                    _("This group is full: it has %(count)d members, the most a group may have.")
                    % {"count": settings.GROUP_MEMBERS_MAX},
                )
            Membership.objects.create(group=group, user=user)
    return group_dict(group, _memberships(group), user.pk)


def _locked(user: User, group_id: int) -> Group:
    """The group ``group_id`` of which ``user`` is a member, locked; else ``not_found``."""
    group = (
        Group.objects.select_for_update().filter(pk=group_id, memberships__user_id=user.pk).first()
    )
    if group is None:
        raise not_found()
    return group


def _owned(user: User, group_id: int) -> Group:
    group = _locked(user, group_id)
    if group.owner_id != user.pk:
        raise _owner_only()
    return group


def leave(user: User, group_id: int, admit: Admit = _nothing) -> None:
    """``user`` leaves the group. An owner who leaves hands it to the longest-standing member
    left; the last member to leave ends the group."""
    group_of(user, group_id)  # (not a member: not_found, nothing counted)
    admit()
    with transaction.atomic():
        group = _locked(user, group_id)
        Membership.objects.filter(group=group, user_id=user.pk).delete()
        if group.owner_id != user.pk:
            return
        heir = Membership.objects.filter(group=group).order_by("joined_at", "id").first()
        if heir is None:
            group.delete()
            return
        group.owner_id = heir.user_id
        group.save(update_fields=["owner"])


def rename(user: User, group_id: int, name: str, admit: Admit = _nothing) -> GroupDict:
    """The owner names the group ``name``."""
    name = clean_name(name)
    _owned_now(user, group_id)
    admit()
    with transaction.atomic():
        group = _owned(user, group_id)
        group.name = name
        group.save(update_fields=["name"])
    return detail(user, group_id)


def new_invite(user: User, group_id: int, admit: Admit = _nothing) -> GroupDict:
    """The owner replaces the group's invite: the old one joins nobody from then on."""
    _owned_now(user, group_id)
    admit()
    with transaction.atomic():
        group = _owned(user, group_id)
        group.new_invite()
        group.save(update_fields=["invite", "invite_digest"])
    return detail(user, group_id)


def remove_member(user: User, group_id: int, username: str, admit: Admit = _nothing) -> GroupDict:
    """The owner takes the member ``username`` out of the group (``not_found`` for a name that is
    no member's; the owner leaves instead of removing themselves)."""
    group = _owned_now(user, group_id)
    member = Membership.objects.filter(group=group, user__username__iexact=username).first()
    if member is None:
        raise GameError("not_found", _("No such member of this group."))
    if member.user_id == user.pk:
        raise GameError(
            "owner_cannot_be_removed",
            _("You own this group: to go, leave it (it passes to the longest-standing member)."),
        )
    admit()
    with transaction.atomic():
        _owned(user, group_id)
        Membership.objects.filter(pk=member.pk).delete()
    return detail(user, group_id)


def _owned_now(user: User, group_id: int) -> Group:
    """The group, if ``user`` is a member and its owner (read without a lock: to refuse early,
    before a request is counted)."""
    group = group_of(user, group_id)
    if group.owner_id != user.pk:
        raise _owner_only()
    return group


# --- the board and the week's table -------------------------------------------------------------


def board(
    user: User, group_id: int, day_text: str | None, now: dt.datetime | None = None
) -> AmongBoard:
    """A day's board among the group's members (today's without ``day_text``): the day's
    leaderboard among them (``leaderboard.services.board_among``), for a day that has a board
    (``invalid_date``, ``not_found`` as the day's board answers)."""
    now = now or timezone.now()
    group = group_of(user, group_id)
    day = utc_today(now) if day_text is None else boards.board_day(day_text, now)
    return boards.board_among(day, member_ids(group), user, now)


def result_of(row: AmongRow) -> tuple[bool, int, int]:
    """What two attempts must share to share their points: won or not, cards on the foundations,
    actions. The board's last tie-breaks (time, who finished first) separate every two attempts;
    the table does not split points by them."""
    return (row["won"], row["foundation_cards"], row["actions"])


def day_points(rows: Sequence[AmongRow]) -> dict[str, float]:
    """Points of the day for each player of ``rows`` (a day's board among the members, in its
    order): of n attempts, the first gets n points, the next n - 1, the last 1; attempts with the
    same result (:func:`result_of`) share the points of the places they hold, evenly. A member
    with no attempt that day gets none (not in ``rows``)."""
    n = len(rows)
    points: dict[str, float] = {}
    first = 0
    while first < n:
        last = first
        while last + 1 < n and result_of(rows[last + 1]) == result_of(rows[first]):
            last += 1
        # Places first+1 .. last+1 earn n - first .. n - last: each the mean.
        share = n - (first + last) / 2
        for row in rows[first : last + 1]:
            points[row["player"]] = share
        first = last + 1
    return points


def week(
    user: User, group_id: int, day_text: str | None, now: dt.datetime | None = None
) -> WeekTable:
    """The table of the week (Monday to Sunday, UTC) of ``day_text`` (this week without it):
    each member's points of each day (:func:`day_points`) and in all, and their current daily
    streak. The members are the group's now, whenever they joined."""
    now = now or timezone.now()
    today = utc_today(now)
    group = group_of(user, group_id)
    day = today if day_text is None else boards.parse_day(day_text)
    if day > today:
        raise GameError(
            "not_found", _("There is no daily deal for %(day)s yet.") % {"day": day.isoformat()}
        )
    monday = day - dt.timedelta(days=day.weekday())
    days = [monday + dt.timedelta(days=i) for i in range(7)]
    members = list(
        Membership.objects.filter(group=group).select_related("user").order_by("joined_at", "id")
    )
    ids = [m.user_id for m in members]
    dealt = set(
        DailyDeal.objects.filter(date__in=days).exclude(code="").values_list("date", flat=True)
    )
    points: dict[dt.date, dict[str, float]] = {
        d: day_points(boards.board_among(d, ids, user, now)["results"])
        for d in days
        if d <= today and (d in dealt or d == today)
    }
    streak = _streaks(ids, today)
    rows: list[WeekRow] = []
    for membership in members:
        name = membership.user.get_username()
        shown: list[float | None] = [
            None if d > today else points.get(d, {}).get(name, 0.0) for d in days
        ]
        rows.append(
            {
                "rank": 0,
                "player": name,
                "points": shown,
                "total": sum(p for p in shown if p is not None),
                "current_streak": streak.get(membership.user_id, 0),
            }
        )
    rows.sort(key=lambda r: (-r["total"], r["player"].casefold()))
    for place, row in enumerate(rows, start=1):
        tied = place > 1 and rows[place - 2]["total"] == row["total"]
        row["rank"] = rows[place - 2]["rank"] if tied else place
    return {"start": monday.isoformat(), "days": [d.isoformat() for d in days], "rows": rows}


def _streaks(ids: list[int], today: dt.date) -> dict[int, int]:
    """Each player's current daily streak (``leaderboard.services.streaks`` over the days of
    their ranked attempts), in one query."""
    played: dict[int, list[dt.date]] = {}
    found = (
        Game.objects.filter(*standings.ranked_filters(), owner_id__in=ids)
        .order_by()
        .values_list("owner_id", "daily_date")
    )
    for owner_id, day in found:
        if day is not None:
            played.setdefault(owner_id, []).append(day)
    return {owner: boards.streaks(days, today)[0] for owner, days in played.items()}
