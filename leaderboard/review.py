"""Fair-play review: what staff need to judge a day's attempts, the signals that point them at
the suspicious ones, and disqualification.

**Recorded privately** when an attempt starts (:func:`record_start`, an ``AttemptReview``): the
account's age; the client's *network* — its /24 (IPv4) or /64 (IPv6) prefix — and its *device*
— the first-party device cookie (``core.devices``), a random id the site gave the
browser — each HMAC-hashed with the deployment's ``SECRET_KEY`` (the same network or browser
gives the same value; the value gives nothing back, and is worthless without the key). The rest
a reviewer needs is the attempt's own: its actions, undos, time, and its line against the day's
par. Reviews are kept ``KEEP`` (30 days; ``manage.py purge_reviews``) and shown to staff alone
(docs/privacy.md).

**Signals** of a day (:func:`day_review`), each a reason to look, never a verdict, each with its
weight in the attempt's *suspicion* (:data:`WEIGHTS`; the day is ordered by it, highest first):

- ``par`` (40): a win within :data:`NEAR_PAR` of par (the solver's line): at most
  ``par × (1 + NEAR_PAR)`` actions, undos included. Honest winners' lines are far longer
  (docs/performance.md, "Near par": benchmarks/par_margin.py);
- ``scout`` (15): an attempt that drew through the stock — so it has seen every stock card —
  and then resigned or left (closed at the day's end, or no action for :data:`SCOUT_IDLE`),
  without a win and with little else: at most :data:`SCOUT_MOVES` moves besides draws,
  recycles and undos, at most :data:`SCOUT_CARDS` cards on the foundations. What a second
  account does to read the deck for the first;
- ``linked`` (40): a scout and a winner of the same day from one network or one device: both
  are flagged, each naming the other;
- ``fast`` (30): ``FAST_MIN_ACTIONS`` actions or more at under ``FAST_SECONDS`` each on
  average — faster than a person reads the cards;
- ``network`` (10): several accounts from one network on the day's board — only together with
  another signal: honest players behind one address (a home, a school, an office) are not
  flagged for that alone.

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
from collections import defaultdict
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext as _

from core.networks import network
from games import services as games
from games.clock import utc_today
from games.engine import Canfield
from games.models import Game, LoggedAction
from leaderboard import standings
from leaderboard.models import AttemptReview, DailyDeal, FairPlayDecision

#: How long a review is kept after its attempt started.
KEEP: Final = dt.timedelta(days=30)
#: An attempt this long or longer whose average time per action is under FAST_SECONDS is
#: flagged: faster than a person reads the cards.
FAST_MIN_ACTIONS: Final = 20
FAST_SECONDS: Final = 0.5
#: A win in at most par × (1 + NEAR_PAR) actions is flagged ``par``. From
#: benchmarks/par_margin.py (docs/performance.md, "Near par: how close honest winners come"):
#: 28 days dealt as the dailies are, 2,800 games per level of simulated players: 6 % is the
#: widest margin within which at most 1 % of each level's wins come (0.2 % of all 2,365 honest
#: wins; within 10 %: 2.0 % of the casual player's). The audit's cheater was 1.8 % over par.
NEAR_PAR: Final = 0.06
#: A scout's most moves besides draws, recycles and undos, and most cards on the foundations
#: (the base card included).
SCOUT_MOVES: Final = 10
SCOUT_CARDS: Final = 4
#: An attempt in progress without an action for this long has been left.
SCOUT_IDLE: Final = dt.timedelta(minutes=10)

Flag: TypeAlias = Literal["par", "scout", "linked", "fast", "network"]
#: The signals, and each one's weight in an attempt's suspicion (the sum of its signals').
WEIGHTS: Final[dict[Flag, int]] = {"par": 40, "linked": 40, "fast": 30, "scout": 15, "network": 10}
FLAGS: Final = tuple(WEIGHTS)


def _hashed(kind: str, value: str) -> str:
    key = str(settings.SECRET_KEY).encode()
    return hmac.new(key, f"{kind}:{value}".encode(), hashlib.sha256).hexdigest()[:32]


def network_of(address: str) -> str:
    """A salted hash of the network of ``address`` (its /24 or /64), or "" for no address."""
    net = network(address)  # (one definition: core.networks)
    return "" if net is None else _hashed("fair-play", str(net))


def device_of(device: str) -> str:
    """A salted hash of a device cookie's id, or "" for none."""
    return _hashed("fair-play-device", device) if device else ""


def record_start(
    game: Game, user: User, address: str, now: dt.datetime | None = None, device: str = ""
) -> None:
    """Keep what a reviewer needs of ``game``, an attempt ``user`` just started from
    ``address``, in a browser whose device cookie is ``device`` ("" for none)."""
    now = now or timezone.now()
    AttemptReview.objects.update_or_create(
        game=game,
        defaults={
            "network": network_of(address),
            "device": device_of(device),
            "account_age": now - user.date_joined,
        },
    )


@dataclass(frozen=True)
class Signal:
    """One reason to look at an attempt, as data: its flag and what it rests on. Its sentence is
    :attr:`text`, rendered for the reader."""

    flag: Flag
    actions: int = 0
    par: int = 0
    #: ``scout``: how it ended ("resigned", or "left").
    ended: str = ""
    #: ``linked``: the other attempt, its player, and what links them ("network", "device").
    game_id: int = 0
    player: str = ""
    by: tuple[str, ...] = ()
    #: ``fast``: seconds an action; ``network``: accounts on the day's board from the network.
    seconds: float = 0.0
    accounts: int = 0

    @property
    def weight(self) -> int:
        return WEIGHTS[self.flag]

    @property
    def text(self) -> str:
        if self.flag == "par":
            if self.actions <= self.par:
                return _("won in %(actions)d actions, par or better (par %(par)d)") % {
                    "actions": self.actions,
                    "par": self.par,
                }
            return _("won in %(actions)d actions, %(percent)s %% over par (%(par)d)") % {
                "actions": self.actions,
                "percent": f"{(self.actions - self.par) / self.par * 100:.1f}",
                "par": self.par,
            }
        if self.flag == "scout":
            if self.ended == "resigned":
                return _("scouted: drew through the stock then resigned")
            return _("scouted: drew through the stock then left")
        if self.flag == "linked":
            values = {"player": self.player, "game": self.game_id}
            if self.by == ("network", "device"):
                return _("linked to %(player)s's attempt #%(game)d by network and device") % values
            if self.by == ("device",):
                return _("linked to %(player)s's attempt #%(game)d by device") % values
            return _("linked to %(player)s's attempt #%(game)d by network") % values
        if self.flag == "fast":
            return _("%(seconds)s s an action on average over %(actions)d actions") % {
                "seconds": f"{self.seconds:.2f}",
                "actions": self.actions,
            }
        return _("one of %(accounts)d accounts on the day's board from one network") % {
            "accounts": self.accounts
        }


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
    signals: tuple[Signal, ...]
    disqualified: bool
    #: The first characters of the device's hash ("" for none).
    device: str = ""

    @property
    def flags(self) -> tuple[Flag, ...]:
        return tuple(signal.flag for signal in self.signals)

    @property
    def suspicion(self) -> int:
        """The sum of its signals' weights (:data:`WEIGHTS`): the day's order, highest first."""
        return sum(signal.weight for signal in self.signals)

    @property
    def reasons(self) -> list[str]:
        """Its signals in plain words, in the reader's language."""
        return [signal.text for signal in self.signals]

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


def near_par(game: Game, par: int | None) -> bool:
    """Whether ``game`` is a win within :data:`NEAR_PAR` of ``par``."""
    return game.status == Game.Status.WON and par is not None and game.ply <= par * (1 + NEAR_PAR)


_NOT_MOVES: Final = frozenset({"D", "C", "U"})


def _scouts(attempts: list[Game], now: dt.datetime) -> dict[int, str]:
    """The attempts among ``attempts`` (their day's end applied) that look like scouting, with
    how each ended ("resigned" or "left"): see ``scout`` in the module's docstring. Only short
    attempts without a win are read, in one query; the stock is followed by replaying their
    logs in the engine (undos give back what they took, but what was seen stays seen)."""
    short = {
        game.pk: game
        for game in attempts
        if game.status != Game.Status.WON and game.foundation_cards <= SCOUT_CARDS
    }
    logs: dict[int, list[str]] = defaultdict(list)
    last: dict[int, dt.datetime] = {}
    rows = (
        LoggedAction.objects.filter(game_id__in=list(short))
        .order_by("game_id", "ply")
        .values_list("game_id", "token", "created_at")
    )
    for game_id, token, at in rows.iterator(chunk_size=2000):
        logs[game_id].append(token)
        last[game_id] = at
    found = {}
    for game_id, tokens in logs.items():
        game = short[game_id]
        if sum(token not in _NOT_MOVES for token in tokens) > SCOUT_MOVES:
            continue
        if game.status == Game.Status.RESIGNED:
            ended = "left" if game.day_over else "resigned"
        elif now - last[game_id] >= SCOUT_IDLE:
            ended = "left"
        else:
            continue
        engine = Canfield(game.code)
        for _action in engine.replaying(tokens):
            if not engine.stock:  # drawn through: every stock card has been shown
                found[game_id] = ended
                break
    return found


def day_review(day: dt.date, now: dt.datetime | None = None) -> list[ReviewRow]:
    """The day's attempts that have been played (one action or more), disqualified ones
    included, the most suspicious first (:attr:`ReviewRow.suspicion`), then by the board's
    order of what they achieved."""
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
    today = utc_today(now)
    for game in attempts:
        game.apply_day_end(today)
    scouts = _scouts(attempts, now)
    reviews = {game.pk: getattr(game, "review", None) for game in attempts}
    names = {game.pk: game.owner.get_username() for game in attempts}

    def linked(one: int, other: int) -> tuple[str, ...]:
        a, b = reviews[one], reviews[other]
        if a is None or b is None:
            return ()
        means = ("network", a.network == b.network != ""), ("device", a.device == b.device != "")
        return tuple(name for name, same in means if same)

    links: dict[int, list[Signal]] = defaultdict(list)
    winners = [game.pk for game in attempts if game.status == Game.Status.WON]
    for scout in scouts:
        for winner in winners:
            by = linked(scout, winner)
            if by:
                links[scout].append(Signal("linked", game_id=winner, player=names[winner], by=by))
                links[winner].append(Signal("linked", game_id=scout, player=names[scout], by=by))

    rows = []
    for game in attempts:
        review = reviews[game.pk]
        network = review.network if review is not None else ""
        same = shared.get(network, 0) if network else 0
        seconds = _seconds(game, now)
        per_action = seconds / game.ply if seconds is not None else None
        signals: list[Signal] = []
        if near_par(game, par):
            assert par is not None
            signals.append(Signal("par", actions=game.ply, par=par))
        if game.pk in scouts:
            signals.append(Signal("scout", ended=scouts[game.pk]))
        signals += links.get(game.pk, [])
        if per_action is not None and game.ply >= FAST_MIN_ACTIONS and per_action < FAST_SECONDS:
            signals.append(Signal("fast", actions=game.ply, seconds=per_action))
        if signals and same > 1:  # (a shared network alone is no reason)
            signals.append(Signal("network", accounts=same))
        rows.append(
            ReviewRow(
                game_id=game.pk,
                player=names[game.pk],
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
                signals=tuple(signals),
                disqualified=game.disqualified,
                device=review.device[:8] if review is not None else "",
            )
        )
    rows.sort(key=lambda r: (-r.suspicion, r.result != "won", -r.foundation_cards, r.actions))
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
