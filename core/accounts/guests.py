"""Guests: a visitor plays first and signs up to rank (PRODUCT.md).

A guest is a real ``User``, so that every service keeps working on a user and every ownership
check stays as it is: no password (an unusable one), a username of the reserved pattern
``guest-<random>`` (sign-up refuses it: ``is_reserved``), and the mark that makes it a guest, an
``accounts.Guest`` row. It is made lazily, at the visitor's first practice game
(:func:`practice_player`) — never for a page view, so a crawler makes none — and logged into the
browser's session (the session cookie, CSRF as for any session): the guest's games belong to
that session.

- **What a guest may do**: what a player does with practice games — random deals, deals by code
  (through every fair-play guard of ``games.services.new_game``), hints — under the same per-user
  limits (actions, hints), and the limits of :func:`practice_player` per network.
- **What a guest may not**: anything that needs an account (``players.account``: 403
  ``account_required``) — a ranked daily attempt, and with it the boards, the player pages and
  the stats, where a guest never appears (no daily attempt; ``leaderboard.services.find_player``
  and the profile page know no guest).
- **Kept by signing up**: sign-up or log-in from a guest's session gives the account everything
  the guest owns (:func:`adopt`: one UPDATE per kind of row, in the sign-up's transaction) and
  deletes the guest. What an app keeps that names the guest (a finished game's stored record,
  which names its player) it forgets when :data:`adopting` is sent, so that the guest's games
  are shown under the account's name from then on.
- **Purged when idle**: a guest with no game started nor action played for ``GUEST_IDLE_DAYS``
  is deleted with their games by the worker tier (:func:`purge`, ``accounts.tasks``), a bounded
  number per run.

The site imports no app (tests/site/test_layering.py): what a guest owns, and what says they were
active, the apps tell it from their ``AppConfig.ready`` (:func:`register_owned`), as they give the
site their error tables.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.models import User
from django.db import models, transaction
from django.db.models import QuerySet
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework.request import Request

from core import throttling
from core.accounts.models import Guest

#: The username pattern of guests: this prefix and random hexadecimal digits. Sign-up refuses
#: every username with this prefix, in any case.
PREFIX: Final = "guest-"
#: The most idle guests one run of :func:`purge` deletes (the duty runs hourly: a backlog goes
#: in steps, each a bounded transaction).
PURGE_BATCH: Final = 200
#: The backend a guest is logged in with (they have no password to authenticate with).
BACKEND: Final = "django.contrib.auth.backends.ModelBackend"


@dataclass(frozen=True)
class Owned:
    """Rows an app keeps that belong to a player: ``model``'s foreign key ``field`` is the user;
    ``activity``: lookups from such a row to the times something was done with it (a row made,
    an action logged)."""

    model: type[models.Model]
    field: str
    activity: tuple[str, ...]

    def reverse(self) -> str:
        """The name of these rows in a query from the user (``games``)."""
        field = self.model._meta.get_field(self.field)
        if not isinstance(field, models.ForeignKey):
            raise TypeError(f"{self.model.__name__}.{self.field} is not a foreign key to a user")
        return field.related_query_name()


_OWNED: list[Owned] = []

#: Sent by :func:`adopt` with ``guest`` and ``user`` before the guest's rows move to ``user``, in
#: the same transaction: a receiver forgets what it keeps under the guest's name.
adopting = Signal()


def register_owned(model: type[models.Model], field: str, activity: tuple[str, ...]) -> None:
    """An app's rows that belong to a player (see :class:`Owned`): moved to the account a guest
    signs up for, and read for when a guest was last active. Idempotent."""
    owned = Owned(model, field, activity)
    if owned not in _OWNED:
        _OWNED.append(owned)


def is_reserved(username: str) -> bool:
    """Whether ``username`` has the guests' pattern, which no account may take."""
    return username.lower().startswith(PREFIX)


def is_guest(user: object) -> bool:
    """Whether ``user`` is a guest (one query per user object at most: the answer is cached on
    it)."""
    return isinstance(user, User) and user.is_authenticated and hasattr(user, "guest")


def guest_of(request: Request) -> User | None:
    """The guest whose session makes ``request``, or ``None``."""
    user = request.user
    return user if isinstance(user, User) and is_guest(user) else None


def _new_guest() -> User:
    user = User.objects.create_user(f"{PREFIX}{secrets.token_hex(6)}", password=None)
    Guest.objects.create(user=user)
    return user


@contextmanager
def practice_player(request: Request) -> Iterator[User]:
    """The player a new practice game of ``request`` is for, with the game's limits counted:
    the request's user; for a visitor, a guest made now, in the block's transaction, and logged
    into the browser's session once the block has made the game. When the block raises (a bad
    code, a deck that may not be played) every count is given back and no guest is left.

    The limits, each answered 429 ``throttled`` with its wait (``throttling.Limits``: counted all
    or none, atomically): per player ``THROTTLE_PRACTICE``; per network
    ``THROTTLE_PRACTICE_NETWORK`` for everyone, ``THROTTLE_GUEST_GAMES`` for guests' games and
    ``THROTTLE_GUESTS`` for new guests."""
    network = throttling.network_key(request)
    network_games = (
        "practice_network",
        network,
        _("Too many new games from your network: try again later."),
    )
    guest_games = (
        "guest_games",
        network,
        _("Too many guest games from your network: sign up to go on, or try again later."),
    )
    user = request.user
    if isinstance(user, User) and user.is_authenticated:
        limits = throttling.Limits(
            _player_limit(user), network_games, *([guest_games] if is_guest(user) else [])
        )
        limits.admit()
        try:
            yield user
        except BaseException:
            limits.give_back()
            raise
        return
    limits = throttling.Limits(
        ("guests", network, _("Too many new guests from your network: sign up, or try later.")),
        guest_games,
        network_games,
    )
    limits.admit()
    try:
        with transaction.atomic():
            guest = _new_guest()
            own = throttling.Limits(_player_limit(guest))
            own.admit()
            try:
                yield guest
            except BaseException:
                own.give_back()
                raise
    except BaseException:
        limits.give_back()
        raise
    login(request, guest, backend=BACKEND)


def _player_limit(user: User) -> tuple[str, str, str]:
    return (
        "practice",
        f"user:{user.pk}",
        _("Too many new games: finish one of yours, or try again later."),
    )


def adopt(guest: User, user: User) -> None:
    """Give ``user`` everything ``guest`` owns — their games, with their logs — and delete the
    guest: one UPDATE per kind of row, in the caller's transaction (sign-up's, log-in's), after
    :data:`adopting` has been sent."""
    adopting.send(sender=User, guest=guest, user=user)
    for owned in _OWNED:
        rows = owned.model._default_manager.filter(**{owned.field: guest})
        rows.update(**{owned.field: user})
    guest.delete()


def idle(now: dt.datetime | None = None) -> QuerySet[User]:
    """The guests with nothing done for ``GUEST_IDLE_DAYS``: made before then, and no row of
    theirs (a game) made or acted on since."""
    since = (now or timezone.now()) - dt.timedelta(days=settings.GUEST_IDLE_DAYS)
    users = User.objects.filter(guest__created_at__lt=since)
    for owned in _OWNED:
        for lookup in owned.activity:
            users = users.exclude(**{f"{owned.reverse()}__{lookup}__gte": since})
    return users


def purge(now: dt.datetime | None = None, batch: int = PURGE_BATCH) -> int:
    """Delete up to ``batch`` idle guests (the longest idle first), with all they own; returns
    how many. The test is made again in the deletion, so a guest who came back meanwhile stays."""
    chosen = list(idle(now).order_by("guest__created_at").values_list("pk", flat=True)[:batch])
    if not chosen:
        return 0
    with transaction.atomic():
        _, deleted = idle(now).filter(pk__in=chosen).delete()
    return deleted.get(User._meta.label, 0)
