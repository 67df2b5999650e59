"""The certified deal of a day: the first keyed candidate that is not dead, whose difficulty is in
the day's band, and that the solver proves winnable.

A day's deal is the first candidate ``n = 0, 1, 2, …`` of the keyed generator (``keyed``: draw 3,
app rules) that is not dead (:func:`~games.engine.keyed.is_dead`), on which the simulated casual
player's share of wins in ``games`` games falls in the day's ``band``
(:mod:`games.engine.difficulty`), and that the solver proves winnable within ``positions``
positions. The budgets are games and positions, not seconds, so that every process decides the
same candidate whatever its load; ``seconds`` is only a deadline for the whole search
(:class:`NoCertifiedDeal` when it passes), so that a search never holds its worker longer. The
winning line is then shortened on a budget of its own and checked by replaying it, and the deal's
difficulty completed with the other levels' games.

Pure, like the rest of the engine: the web service runs it in its solver pool
(``games.pool``) and stores what it returns.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from typing import Final

from .difficulty import Band, Difficulty, in_band, measure
from .game import Canfield
from .keyed import daily_deal_code, is_dead
from .solver import shorten, solve

DAILY_DRAW: Final = 3
DAILY_VARIANT: Final = "app"


class NoCertifiedDeal(RuntimeError):
    """No candidate of the day was certified within its tries, or before the deadline."""


@dataclass(frozen=True)
class Certified:
    """A day's deal as certification found it."""

    day: dt.date
    n: int
    code: str
    line: list[str]
    positions: int
    seconds: float
    #: Seconds spent on every candidate tried, this one included.
    total_seconds: float
    #: How the simulated players did on it, and the band it was picked in.
    difficulty: Difficulty
    band: Band


def certify(
    secret: bytes,
    day: dt.date,
    *,
    positions: int,
    shorten_positions: int,
    candidates: int,
    band: Band,
    games: int,
    seconds: float | None = None,
) -> Certified:
    """Find the deal of ``day`` under ``secret``: the first candidate not dead, whose casual
    player's share of wins in ``games`` games is inside ``band``, and proved winnable within
    ``positions`` positions, its line shortened within ``shorten_positions``. Raises
    :class:`NoCertifiedDeal` after ``candidates`` tries, or once ``seconds`` have passed."""
    start = time.perf_counter()
    for n in range(candidates):
        left = None if seconds is None else seconds - (time.perf_counter() - start)
        if left is not None and left <= 0:
            break
        code = daily_deal_code(secret, day, n, DAILY_DRAW, DAILY_VARIANT)
        if is_dead(code):
            continue
        middle = in_band(code, band, games)
        if middle is None:
            continue
        result = solve(code, max_positions=positions, seconds=left, shorten=False)
        if result.outcome != "win":
            continue
        # A shorter line on a budget of its own: the deciding budget is for hard deals, and most
        # wins are found within a few thousand positions.
        line = shorten(code, result.line, max_positions=shorten_positions)
        if not Canfield.replay(code, line).is_won():  # the engine is the judge
            continue
        difficulty = measure(code, games, known=(middle,))
        return Certified(
            day=day,
            n=n,
            code=str(code),
            line=[action.token() for action in line],
            positions=result.positions,
            seconds=round(result.seconds, 3),
            total_seconds=round(time.perf_counter() - start, 3),
            difficulty=difficulty,
            band=band,
        )
    elapsed = time.perf_counter() - start
    raise NoCertifiedDeal(
        f"no certified deal for {day.isoformat()} in {candidates} candidates (band {band})"
        if seconds is None or elapsed < seconds
        else f"no certified deal for {day.isoformat()} within {seconds:g} s"
    )
