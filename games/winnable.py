"""Winnable deals: a random practice deal is proved winnable by the solver before it is dealt.

Proving a deal takes the solver milliseconds for most deals and seconds for a few, so it is done
ahead, within a budget of positions (:data:`PROVE_POSITIONS`): a deal the solver does not decide
within it is left out, so the pool holds the deals whose win the solver finds quickly (about two
random deals in three) — whose first hint is then found at once too. The worker tier keeps a
pool of deals proved winnable for each draw and rules (:func:`fill`, the periodic duty
``games.tasks.fill_winnable_pool``), solved in the worker's own process, never by a web process.
A new random practice game takes the next deal of its pool (:func:`take`: one conditional
``UPDATE``, so two players never get the same one) and starts at once. When the pool is empty (a
burst of new games faster than the worker refills it), the game is dealt at random at once — the
player never waits for the solver — and its answer says so (:func:`start`). A player may also
ask for any deal (``any_deal``): a random deal, not checked.

Every deal the pool's solver decides is kept (:class:`~games.models.ProvedDeal`): the winnable
ones are the pool, the lost ones are never dealt at random. A game started by code says when its
deal is known to be lost (:func:`outcome_of`): proved so by the pool's solver, or by a search of
any game at the deal's start (``services.hint``'s steps are keyed by the position).
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass
from typing import Final, Literal

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext as _

from games import pool_jobs, services
from games.engine import Canfield, DealCode
from games.models import Game, HintStep, ProvedDeal

log = logging.getLogger(__name__)

#: Deals proved winnable kept waiting for each draw and rules (4 pools).
POOL_SIZE: Final = 40
#: The solver's budget for one deal, in positions (a tenth of a second or so): a deal not decided
#: within it is left out — so a deal of the pool is also one whose first hint is found at once.
PROVE_POSITIONS: Final = 5_000
#: The longest one run of :func:`fill` goes on, in seconds (the next run goes on from there).
RUN_SECONDS: Final = 10.0
#: The draws and rules of the pools.
KINDS: Final[tuple[tuple[Literal[1, 3], Literal["app", "classic"]], ...]] = (
    (3, "app"),
    (1, "app"),
    (3, "classic"),
    (1, "classic"),
)
#: How many waiting deals :func:`take` tries, when others take them at the same moment.
TAKE_TRIES: Final = 5

Proof = Literal["win", "no_win"]
Source = Literal["pool", "random", "any", "code"]


@dataclass(frozen=True)
class Dealt:
    """How a new game's deal was chosen (:func:`start`), for its answer."""

    #: ``pool``: proved winnable before it was dealt; ``random``: the pool was empty, dealt at
    #: random; ``any``: a random deal, as asked; ``code``: the player's code.
    source: Source
    #: What the solver has proved of the deal from its start, or None: not known.
    proof: Proof | None

    def message(self) -> str | None:
        """What the player is told of the deal as it starts, or None: nothing to tell."""
        if self.proof == "no_win":
            return _("The solver has proved that this deal cannot be won.")
        if self.source == "random":
            return _(
                "No deal proved winnable was ready: this one is dealt at random, and may not "
                "be winnable."
            )
        return None

    def as_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "winnable": None if self.proof is None else self.proof == "win",
            "message": self.message(),
        }


def take(draw: int = 3, variant: str = "app") -> DealCode | None:
    """The next deal of the pool of ``draw`` and ``variant``, marked dealt (never dealt twice),
    or None when the pool is empty."""
    waiting = ProvedDeal.objects.filter(
        draw=draw, variant=variant, outcome=ProvedDeal.Outcome.WIN, dealt_at__isnull=True
    ).order_by("id")
    for row in waiting.values_list("id", "code")[:TAKE_TRIES]:
        taken = ProvedDeal.objects.filter(id=row[0], dealt_at__isnull=True).update(
            dealt_at=timezone.now()
        )
        if taken:
            return DealCode.parse(row[1])
    return None


def shown(draw: int = 3, variant: str = "app") -> DealCode | None:
    """A deal of the pool of ``draw`` and ``variant`` for a page to show before it is a game (the
    home page's board: its first action starts it by its code), drawn at random among the first
    waiting ones and left in the pool — a page view takes nothing; or None when the pool is
    empty."""
    codes = list(
        ProvedDeal.objects.filter(
            draw=draw, variant=variant, outcome=ProvedDeal.Outcome.WIN, dealt_at__isnull=True
        )
        .order_by("id")
        .values_list("code", flat=True)[:POOL_SIZE]
    )
    return DealCode.parse(random.choice(codes)) if codes else None


def waiting(draw: int = 3, variant: str = "app") -> int:
    """How many deals of ``draw`` and ``variant`` wait in the pool."""
    return ProvedDeal.objects.filter(
        draw=draw, variant=variant, outcome=ProvedDeal.Outcome.WIN, dealt_at__isnull=True
    ).count()


def outcome_of(deal: DealCode) -> Proof | None:
    """What the solver has proved of ``deal`` from its start: by the pool's solver, or by a
    search of any game at the deal's first position; None: not known."""
    kept = ProvedDeal.objects.filter(code=str(deal)).values_list("outcome", flat=True).first()
    if kept is not None:
        return "win" if kept == ProvedDeal.Outcome.WIN else "no_win"
    digest = Canfield(deal).position_digest()
    found = (
        HintStep.objects.filter(digest=digest, outcome__in=("win", "no_win"))
        .values_list("outcome", flat=True)
        .first()
    )
    return None if found is None else ("win" if found == "win" else "no_win")


def start(
    owner: User,
    code: str | None = None,
    draw: int | None = None,
    variant: str | None = None,
    any_deal: bool = False,
) -> tuple[Game, Dealt]:
    """Start a practice game for ``owner`` (``services.new_game``) and say how its deal was
    chosen: by ``code``; at random when ``any_deal``; else the next deal of the pool of its draw
    and rules, or, when that pool is empty, a random deal at once."""
    if code is not None:
        game = services.new_game(owner, code=code, draw=draw, variant=variant)
        return game, Dealt("code", outcome_of(game.deal_code))
    if any_deal:
        game = services.new_game(owner, draw=draw, variant=variant)
        return game, Dealt("any", outcome_of(game.deal_code))
    proved = take(draw or 3, variant or "app")
    if proved is None:
        log.warning("winnable pool: none waiting for %s %s; dealt at random", draw, variant)
        game = services.new_game(owner, draw=draw, variant=variant)
        return game, Dealt("random", outcome_of(game.deal_code))
    return services.new_game(owner, code=proved), Dealt("pool", "win")


def prove(deal: DealCode, positions: int | None = None) -> Proof | None:
    """Solve ``deal`` from its start within ``positions`` (:data:`PROVE_POSITIONS`) here (the
    worker's own process) and keep what was proved, with the winning line found: its outcome, or
    None when the solver could not tell within the budget."""
    budget = PROVE_POSITIONS if positions is None else positions
    outcome, line = pool_jobs.prove_deal(str(deal), budget)
    if outcome == "unknown":
        return None
    ProvedDeal.objects.get_or_create(
        code=str(deal),
        defaults={
            "draw": deal.draw,
            "variant": deal.variant,
            "outcome": outcome,
            "line": " ".join(line),
        },
    )
    return outcome


def fill(
    size: int | None = None,
    positions: int | None = None,
    limit: float | None = None,
    kinds: tuple[tuple[Literal[1, 3], Literal["app", "classic"]], ...] | None = None,
) -> dict[str, int]:
    """Top up each pool to ``size`` deals waiting, the emptiest first, solving random deals
    within ``positions`` each, for at most ``limit`` seconds in all; returns how many deals were
    added to each pool (by mode, ``D3``...). A deal the solver proves lost is kept as lost, one it
    cannot decide in time is left out. Each left out is the module's constant of its name
    (:data:`POOL_SIZE`, :data:`PROVE_POSITIONS`, :data:`RUN_SECONDS`, :data:`KINDS`)."""
    size = POOL_SIZE if size is None else size
    deadline = time.monotonic() + (RUN_SECONDS if limit is None else limit)
    kinds = KINDS if kinds is None else kinds
    counts = {(draw, variant): waiting(draw, variant) for draw, variant in kinds}
    added: dict[str, int] = {}
    while time.monotonic() < deadline:
        short = [kind for kind, count in counts.items() if count < size]
        if not short:
            break
        kind = min(short, key=lambda k: counts[k])
        deal = DealCode.random(*kind)
        if ProvedDeal.objects.filter(code=str(deal)).exists():
            continue  # (decided before: dealt, or lost)
        if prove(deal, positions) == "win":
            counts[kind] += 1
            added[deal.mode] = added.get(deal.mode, 0) + 1
    if added:
        log.info("winnable pool: added %s", added)
    return added
