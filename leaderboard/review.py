"""Fair-play review: what staff need to judge a day's attempts, the signals that point them at
the suspicious ones, and disqualification.

**Recorded privately** when an attempt starts (:func:`record_start`, an ``AttemptReview``): the
account's age; the client's *network* — its /24 (IPv4) or /64 (IPv6) prefix — and its *device*
— the first-party device cookie (``core.devices``), a random id the site gave the browser, or
for an API client that keeps no cookie its token's device mark (the network and user agent
that the token was issued to) — each HMAC-hashed with the deployment's ``SECRET_KEY`` (the same
network or browser gives the same value; the value gives nothing back, and is worthless without
the key). The rest a reviewer needs is the attempt's own: its actions, undos, time, and its line
against the day's par. Reviews are kept ``KEEP`` (30 days; ``manage.py purge_reviews``) and
shown to staff alone (docs/privacy.md).

**Judged in the worker tier** once the attempt is over (:func:`judge`, the task
``leaderboard.tasks.judge_attempt``): how many of the deck's cards its log showed (undone
actions' included), and — for every win and every attempt in the top :data:`TOP` of its day's
board — the clairvoyance test (``games.engine.clairvoyance``, docs/fair-play.md): the evidence
that its choices were made by one who sees the hidden cards, and the forks it rests on, kept with
the review. Never on a web process, and nothing of it reaches a player.

**Signals** of a day (:func:`day_review`), each a reason to look, never a verdict, each with its
weight in the attempt's *suspicion* (:data:`WEIGHTS`; the day is ordered by it, highest first):

- ``par`` (40): a win within :data:`NEAR_PAR` of par (the solver's line): at most
  ``par × (1 + NEAR_PAR)`` actions, undos included. Honest winners' lines are far longer
  (docs/performance.md, "Near par": benchmarks/par_margin.py);
- ``clairvoyant`` (40): the clairvoyance test's evidence at :data:`CLAIRVOYANT` or more — a
  level that the simulated honest winners stayed below (docs/fair-play.md). Padding the line
  with undone actions or detours changes next to nothing of it, playing it slowly nothing;
- ``scout`` (15): an attempt that showed its player most of the deck — :data:`SCOUT_SEEN` cards
  or more, undone actions' included — without trying to win, whatever its number of actions: not
  won, then resigned or left (closed at the day's end, or no action for :data:`SCOUT_IDLE`),
  having either given back cards it had placed (it ended with fewer cards on the foundations
  than it once had: it undid its way back) or made at most :data:`SCOUT_MOVES` moves besides
  draws, recycles and undos (it drew through the stock and stopped). What a second account does
  to read the deck for the first (the audit's scout saw all 52 cards in 128 actions of play and
  undos); an honest player who gives up stops at the best they reached;
- ``linked`` (40): a scout and a winner, or an attempt in the top :data:`TOP` of the day's board,
  linked by one network, one device, or their sign-up (the two accounts made within
  :data:`SIGNUP_WINDOW` of each other, one of them on its first day): both are flagged, each
  naming the other;
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
(``FairPlayDecision``). A signal never disqualifies: a person decides.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import hmac
import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias, TypedDict

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, Max
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.networks import network
from games import services as games
from games.clock import utc_today
from games.engine import clairvoyance
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
#: A scout has seen at least SCOUT_SEEN of the 52 cards (undone actions' included: the stock
#: drawn through shows 40 in a fresh deal), and gave back cards it had placed or made at most
#: SCOUT_MOVES moves besides draws, recycles and undos.
SCOUT_SEEN: Final = 40
SCOUT_MOVES: Final = 10
#: An attempt in progress without an action for this long has been left.
SCOUT_IDLE: Final = dt.timedelta(minutes=10)
#: The top of a day's board: judged by the clairvoyance test (with every win) and checked for
#: links to the day's scouts.
TOP: Final = 10
#: Two accounts made this close together, one of them on its first day, are linked by sign-up.
SIGNUP_WINDOW: Final = dt.timedelta(minutes=15)
FIRST_DAY: Final = dt.timedelta(days=1)
#: The clairvoyance test's evidence (a natural log of the likelihood ratio) from which an attempt
#: is flagged ``clairvoyant``. From benchmarks/clairvoyance.py (docs/fair-play.md, "The figures"):
#: the upper 95 % confidence bound of the evidence that one honest win in 1,000 reaches, from the
#: tail of about a thousand simulated honest wins' (none of which reaches it); about half of the
#: clairvoyant lines of each kind (+0 %, +15 %, +40 %, the stock shown first) do.
CLAIRVOYANT: Final = 23.0
#: The version of the judgement: raise it when the test changes what it finds; a judgement of
#: another version is made again. 2: a column's cards moved for nothing rank last among the
#: habits, the waste's card that serves nothing level with the stock (``clairvoyance.habit``),
#: and the model is fitted again.
JUDGE_VERSION: Final = 2
#: What one judgement may cost (positions per solve, samples, forks, positions in all).
JUDGE_BUDGET: Final = clairvoyance.Budget()

Flag: TypeAlias = Literal["par", "clairvoyant", "scout", "linked", "fast", "network"]
#: The signals, and each one's weight in an attempt's suspicion (the sum of its signals').
WEIGHTS: Final[dict[Flag, int]] = {
    "par": 40,
    "clairvoyant": 40,
    "linked": 40,
    "fast": 30,
    "scout": 15,
    "network": 10,
}
FLAGS: Final = tuple(WEIGHTS)
#: What links two attempts, in the order their names are said.
Link: TypeAlias = Literal["network", "device", "sign-up"]


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
    #: ``scout``: how it ended ("resigned", or "left"), the cards its log showed, and the cards
    #: on the foundations at its end and at most.
    ended: str = ""
    seen: int = 0
    home: int = 0
    best: int = 0
    #: ``linked``: the other attempt, its player, and what links them (:data:`Link`).
    game_id: int = 0
    player: str = ""
    by: tuple[str, ...] = ()
    #: ``fast``: seconds an action; ``network``: accounts on the day's board from the network.
    seconds: float = 0.0
    accounts: int = 0
    #: ``clairvoyant``: the evidence, and the forks it rests on.
    evidence: float = 0.0
    forks: int = 0

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
            values = {"seen": self.seen, "home": self.home, "best": self.best}
            if self.ended == "resigned":
                return (
                    _(
                        "scouted: saw %(seen)d of the 52 cards, ended with %(home)d home "
                        "(%(best)d at most), then resigned"
                    )
                    % values
                )
            return (
                _(
                    "scouted: saw %(seen)d of the 52 cards, ended with %(home)d home "
                    "(%(best)d at most), then left"
                )
                % values
            )
        if self.flag == "clairvoyant":
            return ngettext(
                "chose as one who sees the hidden cards: log ratio %(ratio)s at %(forks)d fork",
                "chose as one who sees the hidden cards: log ratio %(ratio)s at %(forks)d forks",
                self.forks,
            ) % {"ratio": f"{self.evidence:.1f}", "forks": self.forks}
        if self.flag == "linked":
            return _linked_text(self.by) % {"player": self.player, "game": self.game_id}
        if self.flag == "fast":
            return _("%(seconds)s s an action on average over %(actions)d actions") % {
                "seconds": f"{self.seconds:.2f}",
                "actions": self.actions,
            }
        return _("one of %(accounts)d accounts on the day's board from one network") % {
            "accounts": self.accounts
        }


def _linked_text(by: tuple[str, ...]) -> str:
    """The sentence of a ``linked`` signal by the means ``by`` (in :data:`Link`'s order)."""
    if by == ("network", "device", "sign-up"):
        return _("linked to %(player)s's attempt #%(game)d by network, device and sign-up time")
    if by == ("network", "device"):
        return _("linked to %(player)s's attempt #%(game)d by network and device")
    if by == ("network", "sign-up"):
        return _("linked to %(player)s's attempt #%(game)d by network and sign-up time")
    if by == ("device", "sign-up"):
        return _("linked to %(player)s's attempt #%(game)d by device and sign-up time")
    if by == ("device",):
        return _("linked to %(player)s's attempt #%(game)d by device")
    if by == ("sign-up",):
        return _("linked to %(player)s's attempt #%(game)d by sign-up time")
    return _("linked to %(player)s's attempt #%(game)d by network")


class StoredMove(TypedDict):
    """A fork's legal move as a review keeps it (:class:`clairvoyance.MoveShare`)."""

    move: str
    share: float
    habit: int
    chance: float
    wins: bool


class StoredFork(TypedDict):
    """A fork of the clairvoyance test as a review keeps it (``AttemptReview.forks``, JSON):
    :class:`clairvoyance.Fork`'s fields."""

    ply: int
    played: str
    moves: list[StoredMove]
    honest: float
    evidence: float


def stored_fork(fork: clairvoyance.Fork) -> StoredFork:
    return {
        "ply": fork.ply,
        "played": fork.played,
        "moves": [
            {
                "move": m.move,
                "share": m.share,
                "habit": m.habit,
                "chance": round(m.chance, 6),
                "wins": m.wins,
            }
            for m in fork.moves
        ],
        "honest": round(fork.honest, 6),
        "evidence": round(fork.evidence, 6),
    }


def fork_of(stored: StoredFork) -> clairvoyance.Fork:
    return clairvoyance.Fork(
        ply=stored["ply"],
        played=stored["played"],
        moves=tuple(clairvoyance.MoveShare(**m) for m in stored["moves"]),
        honest=stored["honest"],
        evidence=stored["evidence"],
    )


def decisive(forks: list[StoredFork], most: int = 3) -> tuple[clairvoyance.Fork, ...]:
    """The ``most`` decisive of the stored ``forks``: the most evidence first (a reviewer reads
    on each the move made, the moves that looked as good, and those the hidden cards kept
    winning and not: :class:`clairvoyance.Fork`)."""
    found = sorted((fork_of(fork) for fork in forks), key=lambda f: (-f.evidence, f.ply))
    return tuple(found[:most])


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
    #: The clairvoyance test's evidence (None: not judged), the forks it weighed, and the most
    #: decisive of them.
    evidence: float | None = None
    forks_weighed: int = 0
    forks: tuple[clairvoyance.Fork, ...] = ()
    #: Cards its log showed its player (None: not counted yet).
    seen: int | None = None

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


def _ended(game: Game, last: dt.datetime | None, now: dt.datetime) -> str:
    """How an attempt that is not won ended, for a scout: "resigned", "left" (closed at its
    day's end, or idle for :data:`SCOUT_IDLE`; ``last``: its last action's time), or "" while it
    is still being played."""
    if game.status == Game.Status.RESIGNED:
        return "left" if game.day_over else "resigned"
    if game.is_in_progress and last is not None and now - last >= SCOUT_IDLE:
        return "left"
    return ""


def is_scouting(shown: clairvoyance.Shown, home: int) -> bool:
    """Whether an attempt not won whose log showed ``shown`` and that ended with ``home`` cards
    on the foundations read the deck without trying to win (see ``scout``)."""
    return shown.seen >= SCOUT_SEEN and (home < shown.best or shown.moves <= SCOUT_MOVES)


def _shown(judgement: dict[str, object]) -> clairvoyance.Shown | None:
    """What the worker tier found the log showed (:func:`judge`), if it has counted it."""
    values = [judgement.get(name) for name in ("seen", "best", "moves")]
    if not all(isinstance(v, int) for v in values):
        return None
    seen, best, moves = values
    return clairvoyance.Shown(seen=seen, best=best, moves=moves)  # type: ignore[arg-type]


def _ended_attempts(
    attempts: list[Game], reviews: dict[int, AttemptReview | None], now: dt.datetime
) -> dict[int, tuple[str, clairvoyance.Shown]]:
    """The attempts among ``attempts`` (their day's end applied) that ended without a win —
    resigned, or left (see :func:`_ended`) — with how each ended and what its log showed: the
    review's, counted by the worker tier once the attempt ended (:func:`judge`); the logs not
    counted yet (an attempt left, or closed at the day's end) are read here, in one query."""
    ended: dict[int, str] = {}
    last = dict(
        LoggedAction.objects.filter(game_id__in=[g.pk for g in attempts if g.is_in_progress])
        .values_list("game")
        .annotate(at=Max("created_at"))
        .values_list("game", "at")
    )
    for game in attempts:
        if game.status != Game.Status.WON:
            how = _ended(game, last.get(game.pk), now)
            if how:
                ended[game.pk] = how
    found: dict[int, clairvoyance.Shown] = {}
    for pk in ended:
        review = reviews.get(pk)
        counted = _shown(review.judgement) if review is not None else None
        if counted is not None:
            found[pk] = counted
    logs: dict[int, list[str]] = defaultdict(list)
    rows = (
        LoggedAction.objects.filter(game_id__in=[pk for pk in ended if pk not in found])
        .order_by("game_id", "ply")
        .values_list("game_id", "token")
    )
    for game_id, token in rows.iterator(chunk_size=2000):
        logs[game_id].append(token)
    by_id = {game.pk: game for game in attempts}
    for pk, tokens in logs.items():
        found[pk] = clairvoyance.shown(by_id[pk].deal_code, tokens)
    return {pk: (how, found[pk]) for pk, how in ended.items() if pk in found}


def _links(one: Game, other: Game, reviews: dict[int, AttemptReview | None]) -> tuple[Link, ...]:
    """What links the attempts ``one`` and ``other`` (in :data:`Link`'s order)."""
    a, b = reviews.get(one.pk), reviews.get(other.pk)
    means: list[Link] = []
    if a is not None and b is not None:
        if a.network == b.network != "":
            means.append("network")
        if a.device == b.device != "":
            means.append("device")
    joined = abs(one.owner.date_joined - other.owner.date_joined)
    first_day = any(review is not None and review.account_age < FIRST_DAY for review in (a, b))
    if joined <= SIGNUP_WINDOW and first_day:
        means.append("sign-up")
    return tuple(means)


def top_of(day: dt.date, now: dt.datetime) -> list[int]:
    """The ids of the attempts in the top :data:`TOP` of ``day``'s board at ``now``."""
    return [game.pk for game in standings.board(day, now).rows(0, TOP)]


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
    reviews = {game.pk: getattr(game, "review", None) for game in attempts}
    by_id = {game.pk: game for game in attempts}
    ended = _ended_attempts(attempts, reviews, now)
    scouts = {
        pk: found
        for pk, found in ended.items()
        if is_scouting(found[1], by_id[pk].foundation_cards)
    }
    names = {game.pk: game.owner.get_username() for game in attempts}

    # Every scout against every win and the top of the board, not only those already flagged.
    watched = {game.pk for game in attempts if game.status == Game.Status.WON}
    watched.update(pk for pk in top_of(day, now) if pk in by_id)
    links: dict[int, list[Signal]] = defaultdict(list)
    for scout in scouts:
        for other in sorted(watched - {scout}):
            by = _links(by_id[scout], by_id[other], reviews)
            if by:
                links[scout].append(Signal("linked", game_id=other, player=names[other], by=by))
                links[other].append(Signal("linked", game_id=scout, player=names[scout], by=by))

    rows = []
    for game in attempts:
        review = reviews[game.pk]
        network = review.network if review is not None else ""
        same = shared.get(network, 0) if network else 0
        seconds = _seconds(game, now)
        per_action = seconds / game.ply if seconds is not None else None
        evidence = review.evidence if review is not None else None
        stored_forks = review.forks if review is not None else []
        counted = _shown(review.judgement) if review is not None else None
        if game.pk in ended:
            counted = ended[game.pk][1]
        signals: list[Signal] = []
        if near_par(game, par):
            assert par is not None
            signals.append(Signal("par", actions=game.ply, par=par))
        if evidence is not None and evidence >= CLAIRVOYANT:
            signals.append(Signal("clairvoyant", evidence=evidence, forks=len(stored_forks)))
        if game.pk in scouts:
            how, shown = scouts[game.pk]
            signals.append(
                Signal(
                    "scout",
                    ended=how,
                    seen=shown.seen,
                    home=game.foundation_cards,
                    best=shown.best,
                )
            )
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
                evidence=evidence,
                forks_weighed=len(stored_forks),
                forks=decisive(stored_forks),
                seen=counted.seen if counted is not None else None,
            )
        )
    rows.sort(key=lambda r: (-r.suspicion, r.result != "won", -r.foundation_cards, r.actions))
    return rows


# --- judging an attempt, in the worker tier ----------------------------------------------------


def eligible(game: Game, now: dt.datetime) -> bool:
    """Whether the clairvoyance test judges ``game``: a win, or an attempt in the top
    :data:`TOP` of its day's board."""
    if game.status == Game.Status.WON:
        return True
    rank = standings.rank_of(game, now)
    return rank is not None and rank <= TOP


def is_judged(review: AttemptReview | None) -> bool:
    """Whether ``review`` holds a judgement of this version."""
    return review is not None and review.judgement.get("version") == JUDGE_VERSION


def judge_budget() -> clairvoyance.Budget:
    """What judging one attempt may cost: :data:`JUDGE_BUDGET`, searching at most the
    settings' ``FAIR_PLAY_JUDGE_POSITIONS`` positions in all."""
    return dataclasses.replace(JUDGE_BUDGET, total=settings.FAIR_PLAY_JUDGE_POSITIONS)


def judge(
    game_id: int, now: dt.datetime | None = None, budget: clairvoyance.Budget | None = None
) -> str:
    """Judge daily attempt ``game_id`` once it is over, here in the calling process (the
    worker's), and keep what was found with its review: what its log showed its player
    (``games.engine.clairvoyance.shown``: for ``scout``), and for a win or an attempt in the top
    of its day's board the clairvoyance test (its evidence and forks,
    ``games.engine.clairvoyance.judge`` within ``budget``, seeded by the attempt). Returns
    "judged", "counted" (what it showed only: neither a win nor in the top), "kept" (judged
    already by this version), "not_over", or "gone". Running it again changes nothing."""
    now = now or timezone.now()
    game = (
        Game.objects.filter(pk=game_id, kind=Game.Kind.DAILY, ply__gt=0)
        .select_related("owner")
        .first()
    )
    if game is None:
        return "gone"
    game.apply_day_end(utc_today(now))
    if game.is_in_progress:
        return "not_over"
    review = AttemptReview.objects.filter(game=game).first()
    if is_judged(review):
        return "kept"
    tokens = games.tokens_of(game)
    shown = clairvoyance.shown(game.deal_code, tokens)
    values: dict[str, object] = {"judge_task": ""}
    judgement: dict[str, object] = {"seen": shown.seen, "best": shown.best, "moves": shown.moves}
    status = "counted"
    if eligible(game, now):
        found = clairvoyance.judge(
            game.deal_code, tokens, seed=f"attempt {game.pk}", budget=budget or judge_budget()
        )
        values["evidence"] = found.evidence
        values["forks"] = [stored_fork(fork) for fork in found.forks]
        values["judged_at"] = now
        judgement.update(
            decisions=found.decisions,
            positions=found.positions,
            complete=found.complete,
            version=JUDGE_VERSION,
        )
        status = "judged"
    values["judgement"] = judgement
    if review is None:  # (an attempt started before reviews were kept)
        values["account_age"] = max(dt.timedelta(0), game.created_at - game.owner.date_joined)
    AttemptReview.objects.update_or_create(game=game, defaults=values)
    return status


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
