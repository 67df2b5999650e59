"""The difficulty of a deal: how simulated players (:mod:`games.engine.players`) do on it.

The players are three who see only what a player sees — a novice, a casual player and an
expert — and each level does at least as well as the one below on average
(``tests/engine/test_players.py``). A deal's difficulty is measured by playing it ``games``
times at each level, each game with a seed of its own made from the deal's code, the level and
the game's number, so that a measure is the same in every process. Its figures are those of the
middle level, the casual player:
the share of its games won (``share``) and the mean number of cards it placed on the foundations
(``cards``); the other levels' figures are kept beside them. A label names the share:

========== =====================
label      the casual player wins
========== =====================
gentle     35% of its games or more
moderate   15% to 35%
hard       5% to 15%
fierce     less than 5%
========== =====================

A day's deal is picked in a **band** of shares (:class:`Band`, :mod:`games.engine.certify`), its
weekday's: :data:`WEEK` is the service's rhythm unless configured otherwise, gentle early in the
week and fierce at the weekend. The labels and the bands are set from the casual player's shares
over random daily candidates (docs/difficulty.md, "Random deals": about one candidate in twenty
is gentle, one in ten moderate, one in ten hard, three in four fierce).
Testing a candidate against a band stops as soon as the games left could no longer bring its
share into the band (:func:`in_band`), so that the many candidates outside it cost little.

Nothing here reveals a card: a difficulty is counts and shares.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from .deals import DealCode
from .players import CASUAL, LEVELS, Level, LevelName, play

Label: TypeAlias = Literal["gentle", "moderate", "hard", "fierce"]

#: The labels, easiest first, each with the lowest share of the casual player's wins it names.
LABELS: Final[tuple[tuple[Label, float], ...]] = (
    ("gentle", 0.35),
    ("moderate", 0.15),
    ("hard", 0.05),
    ("fierce", 0.0),
)


#: The bands of the days, Monday first (``DAILY_DIFFICULTY_WEEK``'s default): gentle on Monday
#: and Tuesday, moderate on Wednesday and Thursday, hard on Friday, fierce at the weekend.
WEEK: Final = "35-100,35-100,15-35,15-35,5-15,0-5,0-5"


def label_of(share: float) -> Label:
    """The label of a share of the casual player's games won."""
    for label, lowest in LABELS:
        if share >= lowest:
            return label
    return LABELS[-1][0]


def game_seed(code: DealCode | str, level: Level, game: int) -> str:
    """The seed of simulated game ``game`` (0, 1, …) of ``level`` on deal ``code``."""
    return f"{code}|{level.name}|{game}"


@dataclass(frozen=True, slots=True)
class LevelResult:
    """How one level did in its games on a deal."""

    level: LevelName
    games: int
    wins: int
    #: Cards placed on the foundations in all its games (the base card included: 1 to 52 each).
    cards: int

    @property
    def share(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_cards(self) -> float:
        return self.cards / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class Difficulty:
    """A deal's difficulty: each level's results, the casual player's first among equals."""

    levels: tuple[LevelResult, ...]

    @property
    def middle(self) -> LevelResult:
        return next(r for r in self.levels if r.level == CASUAL.name)

    @property
    def share(self) -> float:
        """The share of the casual player's games won."""
        return self.middle.share

    @property
    def cards(self) -> float:
        """The casual player's mean number of cards on the foundations."""
        return self.middle.mean_cards

    @property
    def label(self) -> Label:
        return label_of(self.share)


_BAND = re.compile(r"(\d{1,3})-(\d{1,3})")


@dataclass(frozen=True, slots=True)
class Band:
    """A range of the casual player's share of wins, in whole per cent: from ``low`` (included)
    up to ``high`` (excluded, but 100 includes 100)."""

    low: int
    high: int

    def __post_init__(self) -> None:
        if not 0 <= self.low < self.high <= 100:
            raise ValueError(f"a band runs from 0 to 100 per cent, low below high: {self}")

    @classmethod
    def parse(cls, text: str) -> Band:
        """``"35-100"``: from 35% up to 100%."""
        match = _BAND.fullmatch(text.strip())
        if match is None:
            raise ValueError(f"a band is written LOW-HIGH in per cent (35-100), not {text!r}")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"

    def holds(self, wins: int, games: int) -> bool:
        """Whether ``wins`` of ``games`` is a share inside the band (exactly, in integers)."""
        share = 100 * wins
        return self.low * games <= share and (share < self.high * games or self.high == 100)

    def out_of_reach(self, wins: int, played: int, games: int) -> bool:
        """Whether, with ``wins`` in the first ``played`` of ``games``, the share can no longer
        end inside the band, whatever the games left do."""
        most = wins + games - played
        return 100 * most < self.low * games or (
            self.high < 100 and 100 * wins >= self.high * games
        )


def play_level(code: DealCode | str, level: Level, games: int) -> LevelResult:
    """``games`` games of ``level`` on ``code``."""
    wins = cards = 0
    for game in range(games):
        played = play(code, level, game_seed(code, level, game))
        wins += played.won
        cards += played.foundation_cards
    return LevelResult(level.name, games, wins, cards)


def in_band(code: DealCode | str, band: Band, games: int) -> LevelResult | None:
    """The casual player's ``games`` games on ``code`` if their share of wins is inside
    ``band``; ``None`` as soon as it cannot be."""
    wins = cards = 0
    for game in range(games):
        played = play(code, CASUAL, game_seed(code, CASUAL, game))
        wins += played.won
        cards += played.foundation_cards
        if band.out_of_reach(wins, game + 1, games):
            return None
    return LevelResult(CASUAL.name, games, wins, cards) if band.holds(wins, games) else None


def measure(code: DealCode | str, games: int, known: tuple[LevelResult, ...] = ()) -> Difficulty:
    """The difficulty of ``code``: ``games`` games at each level (the results already ``known``,
    for the same games, are kept)."""
    done = {result.level: result for result in known if result.games == games}
    return Difficulty(
        tuple(done.get(level.name) or play_level(code, level, games) for level in LEVELS)
    )


__all__ = [
    "LABELS",
    "WEEK",
    "Band",
    "Difficulty",
    "Label",
    "LevelResult",
    "game_seed",
    "in_band",
    "label_of",
    "measure",
    "play_level",
]
