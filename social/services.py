"""Following: players follow players, and see them on the day's board and on their home page.

Views call these functions; refusals are ``games.errors.GameError`` (their statuses:
``social.api.errors``). The rules:

- A player follows another by name (ignoring case); following is idempotent, and so is
  unfollowing. Nobody follows themselves (``follow_self``), nor more than ``FOLLOWS_MAX``
  players (``follow_limit``): a follower's follows are counted and added one request at a time
  (their user row locked), so a burst of parallel follows never passes the cap.
- Guests neither follow (``account_required``: they are asked to sign up) nor are followed (a
  guest's name is no player's: ``not_found``, as ``leaderboard.services.find_player`` has it).
- What the people I follow did today is their results — finished or not, won, cards home,
  actions, rank — never a move nor a way into their game until I may watch it
  (``games.services.can_watch``: a daily attempt of a day not over, once my own attempt is
  over).

The leaderboard, which stands below this app, asks it whom a player follows and what a player's
page says of follows (``leaderboard.services.answer_follows``, from ``SocialConfig.ready``).
"""

from __future__ import annotations

import datetime as dt
import math

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.accounts.guests import is_guest
from core.formats import iso
from games.clock import utc_today
from games.errors import GameError
from games.models import Game
from games.services import Viewer, can_watch, own_attempt_is_over
from leaderboard.payloads import FollowCounts
from leaderboard.services import board_among, find_player
from social.models import Follow
from social.payloads import FollowedPlayer, FollowedResult, FollowingToday, FollowState

#: Rows a page of what the people I follow did today (each asks ``can_watch``).
TODAY_PAGE_SIZE = 20


def _must_have_account(user: User) -> None:
    if is_guest(user):
        raise GameError(
            "account_required",
            _(
                "Sign up to follow players: you will see them beside you on the daily board, "
                "and what they did each day on your home page. The games you played as a guest "
                "are kept."
            ),
        )


def _followable(user: User, username: str) -> User:
    """The player named ``username`` that ``user`` may follow: ``not_found`` for no such player
    (a guest is none), ``follow_self`` for themselves."""
    _must_have_account(user)
    target = find_player(username)
    if target.pk == user.pk:
        raise GameError("follow_self", _("You cannot follow yourself."))
    return target


def follow(user: User, username: str) -> tuple[FollowState, bool]:
    """``user`` follows the player ``username``; whether they did not before. ``follow_limit``
    when they follow ``FOLLOWS_MAX`` players already (nothing changes)."""
    target = _followable(user, username)
    limit: int = settings.FOLLOWS_MAX
    with transaction.atomic():
        # The follower's row, locked: their follows are counted and added one at a time.
        list(User.objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True))
        mine = Follow.objects.filter(follower=user)
        created = not mine.filter(followed=target).exists()
        if created:
            if mine.count() >= limit:
                raise GameError(
                    "follow_limit",
                    ngettext(
                        "You follow %(count)d player already, the most one may follow. "
                        "Unfollow someone first.",
                        "You follow %(count)d players already, the most one may follow. "
                        "Unfollow someone first.",
                        limit,
                    )
                    % {"count": limit},
                )
            Follow.objects.create(follower=user, followed=target)
    return state(target, user), created


def unfollow(user: User, username: str) -> FollowState:
    """``user`` no longer follows the player ``username`` (whether they did or not)."""
    target = _followable(user, username)
    Follow.objects.filter(follower=user, followed=target).delete()
    return state(target, user)


def state(target: User, viewer: User) -> FollowState:
    """How ``viewer``'s follow of ``target`` stands, with ``target``'s counts."""
    found = counts(target, viewer)
    return {
        "player": target.get_username(),
        "followed_by_me": bool(found["followed_by_me"]),
        "followers": found["followers"],
        "following": found["following"],
    }


def counts(player: User, viewer: Viewer) -> FollowCounts:
    """What ``player``'s page says of follows to ``viewer``, in one query: whom they follow and
    who follows them, counted, and whether ``viewer`` follows them (``None`` when ``viewer``
    cannot: not logged in, a guest, or ``player`` themselves)."""
    can_follow = (
        isinstance(viewer, User)
        and viewer.is_authenticated
        and viewer.pk != player.pk
        and not is_guest(viewer)
    )
    found = Follow.objects.filter(Q(follower=player) | Q(followed=player)).aggregate(
        following=Count("pk", filter=Q(follower=player)),
        followers=Count("pk", filter=Q(followed=player)),
        mine=Count("pk", filter=Q(followed=player, follower_id=viewer.pk if can_follow else None)),
    )
    return {
        "following": found["following"],
        "followers": found["followers"],
        "followed_by_me": bool(found["mine"]) if can_follow else None,
    }


def followed_ids(user: User) -> list[int]:
    """The user ids of the players ``user`` follows (a guest: none)."""
    return list(Follow.objects.filter(follower_id=user.pk).values_list("followed_id", flat=True))


def follows_of(user: User) -> QuerySet[Follow]:
    """Whom ``user`` follows, newest first (``account_required`` for a guest)."""
    _must_have_account(user)
    return (
        Follow.objects.filter(follower=user)
        .select_related("followed")
        .only("created", "followed__username")
        .order_by("-created", "-pk")
    )


def followed_players(follows: list[Follow]) -> list[FollowedPlayer]:
    return [{"player": f.followed.get_username(), "since": iso(f.created) or ""} for f in follows]


def following_today(user: User, page: int = 1, now: dt.datetime | None = None) -> FollowingToday:
    """What the players ``user`` follows did at today's deal: those who played (one action or
    more), in the board's order, with their results; a way into a game (``watch``) only where
    ``games.services.can_watch`` lets ``user`` watch it. ``not_found`` for a page past the
    last; ``account_required`` for a guest."""
    _must_have_account(user)
    now = now or timezone.now()
    today = utc_today(now)
    followed = followed_ids(user)
    rows = board_among(today, followed, None, now)["results"]
    pages = max(1, math.ceil(len(rows) / TODAY_PAGE_SIZE))
    if page > pages:
        raise GameError(
            "not_found",
            ngettext("The list has %(count)d page.", "The list has %(count)d pages.", pages)
            % {"count": pages},
        )
    shown = rows[(page - 1) * TODAY_PAGE_SIZE : page * TODAY_PAGE_SIZE]
    games = Game.objects.defer("views", "engine_state").in_bulk([r["game_id"] for r in shown])
    results: list[FollowedResult] = []
    for row in shown:
        game = games.get(row["game_id"])
        results.append(
            {
                "player": row["player"],
                "status": row["status"],
                "result": row["result"],
                "won": row["won"],
                "foundation_cards": row["foundation_cards"],
                "actions": row["actions"],
                "board_rank": row["board_rank"],
                "watch": (
                    f"/games/{game.pk}/replay/"
                    if game is not None and can_watch(user, game, today)
                    else None
                ),
            }
        )
    return {
        "date": today.isoformat(),
        "mine_over": own_attempt_is_over(user, today, today),
        "following": len(followed),
        "waiting": len(followed) - len(rows),
        "count": len(rows),
        "page": page,
        "pages": pages,
        "results": results,
    }
