"""Fair-play review: what staff need to judge a day's attempts, the flags that point them at the
suspicious ones, and disqualification.

**Recorded privately** when an attempt starts (:func:`record_start`, an ``AttemptReview``): the
account's age, and the client's *network* — its /24 (IPv4) or /64 (IPv6) prefix, HMAC-hashed
with the deployment's ``SECRET_KEY`` (the same network gives the same value; the value gives no
address back, and is worthless without the key). The rest a reviewer needs is the attempt's own:
its actions, undos, time, and its line against the day's par. Reviews are kept
``KEEP`` (30 days; ``manage.py purge_reviews``) and shown to staff alone (docs/privacy.md).

**Flags** of a day (:func:`day_review`), each a reason to look, never a verdict:

- ``network``: several accounts from one network on the day's board (a player and their second
  account that scouted the deck);
- ``par``: a win in par actions or fewer (the solver's own line is par; people rarely match it);
- ``fast``: ``FAST_MIN_ACTIONS`` actions or more at under ``FAST_SECONDS`` each on average —
  faster than a person reads the cards.

**Disqualification** (:func:`disqualify`, undone by :func:`reinstate`): the attempt's
``Game.disqualified`` flag, which the board's one definition of "ranked" reads
(``leaderboard.standings.order.RANKED``): the attempt leaves every board, the live board (its
player leaves the top, the rows below move up), the final ranks of a settled day (written
again) and its player's stats. Every decision is logged with who and why
(``FairPlayDecision``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import statistics
from dataclasses import dataclass
from typing import Final

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from canfield_site.networks import network
from games import services as games
from games.clock import utc_today
from games.models import Game
from leaderboard import standings
from leaderboard.models import AttemptReview, DailyDeal, FairPlayDecision

#: How long a review is kept after its attempt started.
KEEP: Final = dt.timedelta(days=30)
#: An attempt this long or longer whose average time per action is under FAST_SECONDS is
#: flagged: faster than a person reads the cards.
FAST_MIN_ACTIONS: Final = 20
FAST_SECONDS: Final = 0.5

FLAGS: Final = ("network", "par", "fast")


def network_of(address: str) -> str:
    """A salted hash of the network of ``address`` (its /24 or /64), or "" for no address."""
    net = network(address)  # (one definition: canfield_site.networks)
    if net is None:
        return ""
    key = str(settings.SECRET_KEY).encode()
    return hmac.new(key, f"fair-play:{net}".encode(), hashlib.sha256).hexdigest()[:32]


def record_start(game: Game, user: User, address: str, now: dt.datetime | None = None) -> None:
    """Keep what a reviewer needs of ``game``, an attempt ``user`` just started from
    ``address``."""
    now = now or timezone.now()
    AttemptReview.objects.update_or_create(
        game=game,
        defaults={"network": network_of(address), "account_age": now - user.date_joined},
    )


@dataclass(frozen=True)
class ReviewRow:
    """One attempt of a day, as a reviewer sees it."""

    game_id: int
    player: str
    account_age: dt.timedelta | None
    network: str
    #: Accounts on the day's board from the same network, this one included (0: unknown).
    same_network: int
    actions: int
    undos: int
    foundation_cards: int
    result: str
    seconds: float | None
    par: int | None
    #: Seconds per action on average (None before the first action).
    per_action: float | None
    flags: tuple[str, ...]
    disqualified: bool

    @property
    def over_par(self) -> int | None:
        """Actions beyond par (negative: shorter than the solver's line)."""
        return None if self.par is None else self.actions - self.par


def _seconds(game: Game, now: dt.datetime) -> float | None:
    """The attempt's time: from its first action to its end, or to now while it runs (a day's
    end closes it: ``Game.apply_day_end``)."""
    if game.started_at is None:
        return None
    return max(0.0, ((game.finished_at or now) - game.started_at).total_seconds())


def day_review(day: dt.date, now: dt.datetime | None = None) -> list[ReviewRow]:
    """The day's attempts that have been played (one action or more), disqualified ones
    included, flagged ones first, then by the board's order of what they achieved."""
    now = now or timezone.now()
    par = DailyDeal.objects.filter(date=day).values_list("par", flat=True).first()
    attempts = list(
        Game.objects.filter(kind=Game.Kind.DAILY, daily_date=day, ply__gt=0)
        .select_related("owner", "review")
        .order_by("pk")
    )
    shared = dict(
        AttemptReview.objects.filter(
            game__daily_date=day, game__kind=Game.Kind.DAILY, game__ply__gt=0
        )
        .exclude(network="")
        .values_list("network")
        .annotate(n=Count("game"))
        .values_list("network", "n")
    )
    rows = []
    for game in attempts:
        game.apply_day_end(utc_today(now))
        review = getattr(game, "review", None)
        network = review.network if review is not None else ""
        same = shared.get(network, 0) if network else 0
        seconds = _seconds(game, now)
        per_action = seconds / game.ply if seconds is not None else None
        flags = []
        if same > 1:
            flags.append("network")
        if game.status == Game.Status.WON and par is not None and game.ply <= par:
            flags.append("par")
        if per_action is not None and game.ply >= FAST_MIN_ACTIONS and per_action < FAST_SECONDS:
            flags.append("fast")
        rows.append(
            ReviewRow(
                game_id=game.pk,
                player=game.owner.get_username(),
                account_age=review.account_age if review is not None else None,
                network=network[:8],
                same_network=same,
                actions=game.ply,
                undos=game.undos,
                foundation_cards=game.foundation_cards,
                result=game.result,
                seconds=seconds,
                par=par,
                per_action=per_action,
                flags=tuple(flags),
                disqualified=game.disqualified,
            )
        )
    rows.sort(key=lambda r: (not r.flags, r.result != "won", -r.foundation_cards, r.actions))
    return rows


def median_per_action(rows: list[ReviewRow]) -> float | None:
    """The day's median seconds per action, for a reviewer to compare with."""
    values = [r.per_action for r in rows if r.per_action is not None]
    return statistics.median(values) if values else None


def _decide(game_id: int, staff: User, reason: str, action: str) -> Game:
    reason = reason.strip()
    if not reason:
        raise ValueError("a decision needs its reason")
    disqualify = action == FairPlayDecision.Action.DISQUALIFY
    with transaction.atomic():
        game = games.set_disqualified(game_id, disqualify)
        FairPlayDecision.objects.create(game=game, action=action, staff=staff, reason=reason)
    assert game.daily_date is not None
    standings.settle_day(game.daily_date, again=True)  # (a settled day: its ranks anew)
    return game


def disqualify(game_id: int, staff: User, reason: str) -> Game:
    """Take the attempt off its day's board — every board, rank and stat — and log it."""
    return _decide(game_id, staff, reason, FairPlayDecision.Action.DISQUALIFY)


def reinstate(game_id: int, staff: User, reason: str) -> Game:
    """Put a disqualified attempt back on its board, and log it."""
    return _decide(game_id, staff, reason, FairPlayDecision.Action.REINSTATE)


def purge(now: dt.datetime | None = None) -> int:
    """Delete the reviews older than :data:`KEEP`; how many went."""
    now = now or timezone.now()
    deleted, _ = AttemptReview.objects.filter(created__lt=now - KEEP).delete()
    return deleted
