"""How a settled day becomes rating matches, and how a rating is shown. Pure: no database.

**The model.** openskill's Weng-Lin Plackett-Luce with its defaults: a new player starts at
``mu = 25``, ``sigma = 25/3``; ``beta = 25/6``; before each match every sigma grows by
``tau = 25/300`` (``sigma² + tau²``), so that a rating keeps moving as a player changes.

**The matches.** A day of a million attempts cannot be one match: Plackett-Luce's update is
quadratic in the number of players of a match. The day's ranked attempts, in board order (best
first), are cut into consecutive groups of :data:`GROUP`; a remainder smaller than
:data:`MIN_GROUP` joins the group before it (a remainder of one could not be a match at all).
Each group is one match, ranked as the board ranks it, attempts whose results tie sharing a
rank. So a day costs time in proportion to its attempts, and each player is measured against the
players whose results were nearest theirs — the comparisons that say most about them (against
someone far above or below, the outcome was all but certain). The cut depends on the board order
only: the same day always gives the same matches.

**The number shown.** ``ordinal = mu - 3 sigma`` is a conservative estimate (the skill is above it
with about 99.9 % confidence), 0 for a new player; it is shown as
``round(1000 + 40 * ordinal)`` — a new player 1000 — with its uncertainty ``round(40 * sigma)``
in the same points (a new player's: 333).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from openskill.models import PlackettLuce, PlackettLuceRating

#: Players of one match.
GROUP = 30
#: The smallest last group of a day that stays a match of its own.
MIN_GROUP = 10

#: The model, with openskill's defaults (module docstring).
MODEL = PlackettLuce()
MU: float = MODEL.mu
SIGMA: float = MODEL.sigma

#: The number shown: ``OFFSET + SCALE * ordinal``.
OFFSET = 1000
SCALE = 40

T = TypeVar("T")


def ordinal(mu: float, sigma: float) -> float:
    """The conservative number: ``mu - 3 sigma``."""
    return mu - 3.0 * sigma


def shown(value: float) -> int:
    """The conservative number ``value`` (an ordinal) as shown."""
    return round(OFFSET + SCALE * value)


def uncertainty(sigma: float) -> int:
    """``sigma`` in the points shown."""
    return round(SCALE * sigma)


@dataclass(frozen=True)
class Entry:
    """One ranked attempt of a day: its player and its result's percentile (ties equal)."""

    player_id: int
    percentile: float


def groups(entries: Iterable[T]) -> Iterator[list[T]]:
    """``entries`` (in board order) cut into the day's matches: consecutive groups of
    :data:`GROUP`, the last one taking a remainder below :data:`MIN_GROUP`; a day of fewer than
    two entries has none. Streams: holds at most two groups at a time."""
    pending: list[T] = []
    for entry in entries:
        pending.append(entry)
        if len(pending) == 2 * GROUP:
            yield pending[:GROUP]
            pending = pending[GROUP:]
    if len(pending) >= GROUP + MIN_GROUP:
        yield pending[:GROUP]
        pending = pending[GROUP:]
    if len(pending) >= 2:
        yield pending


def ranks(group: Sequence[Entry]) -> list[int]:
    """The match's ranks of ``group`` (in board order): 1 for the first, and an entry whose
    percentile equals the one before it shares its rank (ties are next to each other on the
    board)."""
    found: list[int] = []
    for index, entry in enumerate(group):
        tied = index > 0 and entry.percentile == group[index - 1].percentile
        found.append(found[-1] if tied else index + 1)
    return found


def rate(
    group: Sequence[Entry], before: Sequence[tuple[float, float]]
) -> list[tuple[float, float]]:
    """The new ``(mu, sigma)`` of each entry of ``group`` after its match, from ``before`` (their
    ratings going in, in the same order)."""
    teams = [[PlackettLuceRating(mu, sigma)] for mu, sigma in before]
    rated = MODEL.rate(teams, ranks=[float(rank) for rank in ranks(group)])
    return [(team[0].mu, team[0].sigma) for team in rated]
