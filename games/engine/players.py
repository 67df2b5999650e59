"""Simulated players: how a person plays a deal, seeing only what a person sees.

A simulated player is given the player's view of the game (:meth:`Canfield.player_view`: the
reserve's top card and count, the stock's count, the waste's face-up spread, the foundations,
the columns and the legal actions — never a stock card, nor a reserve card below the top) and
answers the action it plays. It never holds the game itself, so it cannot look at a hidden card:
:func:`play` hands it a fresh view after every action, and nothing else.

It plays by the habits the app's taps teach (RULES.md, "Tapping a card"), in this order:

1. **Foundation first**: a card the foundations accept goes there — the reserve's top card, a
   column's last card, the waste's top card.
2. **Keep the reserve moving**: the reserve's top card onto a column; a whole column onto another,
   so that the reserve fills the gap.
3. **Runs** (from the middle level up): part of a column onto another when the card it uncovers
   goes to a foundation or takes the reserve's or the waste's top card; and a foundation's top
   card taken back onto a column when the reserve's top card then fits on it.
4. **The waste**: its top card onto a column.
5. **Cycle the stock while it helps**: draw; with the stock empty, turn the waste over — unless
   the last passes through the stock (as many as the level's patience) placed no card from the
   reserve or the waste and none on a foundation.

A card moved to a column goes where a tap sends it: the longest column that accepts it (ties:
the leftmost), failing that the leftmost empty column, never a whole column into an empty one.

**Stuck**, a player undoes its actions back to the last choice where it saw other moves than the
one it played (another move, or drawing instead of playing a waste card to a column), and tries
the next — as long as its level's undos last and the game's 100 undos reach that far. With
nothing left to try it stops, as a person who sees nothing more to do leaves the game.

Randomness stands for attention: at each look the player notices each useful move with the
level's chance (``notice``), and picks among the moves of one habit at random; the stock is
never overlooked. A game's randomness comes from its own seed, so every game, and every
measure of a deal (:mod:`games.engine.difficulty`), is the same on every machine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from .actions import Action
from .cards import FITS_ON, RANKS, Card, parse_card
from .deals import DealCode
from .game import UNDO_LIMIT, Canfield, PlayerView

LevelName: TypeAlias = Literal["novice", "casual", "expert"]


@dataclass(frozen=True, slots=True)
class Level:
    """A player's skill."""

    name: LevelName
    #: The chance of noticing each useful move at a look.
    notice: float
    #: Whether the player moves part of a column (a run from inside it).
    runs: bool
    #: Passes through the stock without progress before the player stops.
    patience: int
    #: Whether the player takes a foundation's top card back onto a column when the reserve's
    #: top card then fits on it.
    take_backs: bool = False
    #: The most undos the player makes in a game: stuck, it takes its moves back to the last
    #: choice it made and tries another of the moves it saw there.
    undos: int = 0


NOVICE: Final = Level("novice", notice=0.7, runs=False, patience=1)
CASUAL: Final = Level("casual", notice=0.85, runs=True, patience=2, take_backs=True, undos=100)
EXPERT: Final = Level("expert", notice=0.98, runs=True, patience=3, take_backs=True, undos=300)
#: The levels, weakest first; the middle one is the casual player.
LEVELS: Final = (NOVICE, CASUAL, EXPERT)

#: The most actions a simulated game may take: a player's game never needs as many.
MAX_ACTIONS: Final = 1500

_COLUMNS: Final = ("T1", "T2", "T3", "T4")
_FOUNDATIONS: Final = ("F1", "F2", "F3", "F4")
# The habits, in order (a habit's moves are tried before the next habit's).
_FOUNDATION, _RESERVE, _RUN, _WASTE = range(4)


@dataclass(slots=True)
class _Seen:
    """The cards of a view as integers, and what each foundation accepts next."""

    reserve: Card | None
    reserve_count: int
    stock: int
    waste: Card | None
    columns: list[list[Card]]
    #: The card each foundation accepts next, by its name (a complete one is left out).
    needed: dict[Card, str]
    #: The foundations' top cards (None for an empty one).
    tops: list[Card | None]
    legal: frozenset[str]


def _seen(view: PlayerView) -> _Seen:
    needed: dict[Card, str] = {}
    tops: list[Card | None] = [
        parse_card(f["cards"][-1]) if f["cards"] else None for f in view["foundations"]
    ]
    for name, foundation in zip(_FOUNDATIONS, view["foundations"], strict=True):
        cards = foundation["cards"]
        if len(cards) == 13:
            continue
        rank = RANKS.index(foundation["start"])
        if cards:
            rank = (RANKS.index(cards[-1][0]) + 1) % 13
        needed[parse_card(RANKS[rank] + foundation["suit"])] = name
    top = view["reserve"]["top"]
    spread = view["waste"]["cards"]
    return _Seen(
        reserve=None if top is None else parse_card(top),
        reserve_count=view["reserve"]["count"],
        stock=view["stock"]["count"],
        waste=parse_card(spread[-1]) if spread else None,
        columns=[[parse_card(c) for c in column] for column in view["columns"]],
        needed=needed,
        tops=tops,
        legal=frozenset(view["legal"]),
    )


def _tap_column(seen: _Seen, card: Card, source: int = -1, whole: bool = False) -> str | None:
    """Where a tap sends ``card`` (with the cards on top of it) among the columns: the longest
    that accepts it (ties: the leftmost), else the leftmost empty one (never for a whole
    column). ``source``: the column it comes from, if any."""
    best: str | None = None
    size = 0
    for k, column in enumerate(seen.columns):
        if k != source and len(column) > size and FITS_ON[card][column[-1]]:
            best, size = _COLUMNS[k], len(column)
    if best is not None or whole or seen.reserve is not None:
        return best
    for k, column in enumerate(seen.columns):
        if k != source and not column:
            return _COLUMNS[k]
    return None


@dataclass(slots=True)
class _Choice:
    """A move chosen where others were seen: the actions in effect then, the habit, the other
    moves (in the order they would be tried), and the player's count of passes then."""

    moves: int
    habit: int
    alternatives: list[str]
    fruitless: int
    progress: bool


class SimulatedPlayer:
    """One simulated player for one game: :meth:`choose` answers an action for a view."""

    def __init__(self, level: Level, rng: random.Random) -> None:
        self.level = level
        self.rng = rng
        #: Passes through the stock since a card was last placed (from the reserve or the
        #: waste, or on a foundation).
        self.fruitless = 0
        self.progress = False
        #: The last run moved between columns (source, destination), so as not to move it back.
        self.last_run: tuple[str, str] | None = None
        #: The choices made with other moves seen, latest last, and the one being undone to.
        self.choices: list[_Choice] = []
        self.rewind: _Choice | None = None
        #: Undos made.
        self.undos = 0

    def candidates(self, seen: _Seen) -> list[list[str]]:
        """The useful moves the player might see, by habit."""
        habits: list[list[str]] = [[], [], [], []]
        if seen.reserve is not None and seen.reserve in seen.needed:
            habits[_FOUNDATION].append(f"R-{seen.needed[seen.reserve]}")
        for k, column in enumerate(seen.columns):
            if column and column[-1] in seen.needed:
                habits[_FOUNDATION].append(f"{_COLUMNS[k]}-{seen.needed[column[-1]]}")
        if seen.waste is not None and seen.waste in seen.needed:
            habits[_FOUNDATION].append(f"W-{seen.needed[seen.waste]}")
        if seen.reserve is not None:
            target = _tap_column(seen, seen.reserve)
            if target is not None:
                habits[_RESERVE].append(f"R-{target}")
            for k, column in enumerate(seen.columns):
                if column:
                    target = _tap_column(seen, column[0], k, whole=True)
                    if target is not None:
                        habits[_RESERVE].append(_run(k, len(column), target))
        if self.level.runs:
            for k, column in enumerate(seen.columns):
                for start in range(1, len(column)):
                    under = column[start - 1]
                    useful = (
                        under in seen.needed
                        or (seen.reserve is not None and FITS_ON[seen.reserve][under])
                        or (seen.waste is not None and FITS_ON[seen.waste][under])
                    )
                    if not useful:
                        continue
                    target = _tap_column(seen, column[start], k)
                    if target is not None and (target, _COLUMNS[k]) != self.last_run:
                        habits[_RUN].append(_run(k, len(column) - start, target))
        if self.level.take_backs and seen.reserve is not None:
            for f, top in enumerate(seen.tops):
                if top is not None and FITS_ON[seen.reserve][top]:
                    target = _tap_column(seen, top)
                    if target is not None:
                        habits[_RUN].append(f"{_FOUNDATIONS[f]}-{target}")
        if seen.waste is not None:
            target = _tap_column(seen, seen.waste)
            if target is not None:
                habits[_WASTE].append(f"W-{target}")
        return habits

    def choose(self, view: PlayerView) -> str | None:
        """The token of the action the player plays on ``view``, or ``None`` when it stops."""
        if view["won"]:
            return None
        if self.rewind is not None:
            if not view["can_undo"]:  # (the game's undos reach no further back)
                self.rewind = None
                self.choices.clear()
                return None
            if view["moves"] > self.rewind.moves:
                self.undos += 1
                return "U"
            choice, self.rewind = self.rewind, None
            token = choice.alternatives.pop(0)
            self.fruitless, self.progress = choice.fruitless, choice.progress
            if choice.alternatives:
                self.choices.append(choice)
            self._played(choice.habit, token)
            return token
        seen = _seen(view)
        notice = self.level.notice
        noticed: list[tuple[int, str]] = []
        for habit, moves in enumerate(self.candidates(seen)):
            if len(moves) > 1:
                self.rng.shuffle(moves)
            for token in moves:
                if token in seen.legal and (notice >= 1.0 or self.rng.random() < notice):
                    noticed.append((habit, token))
        if noticed:
            habit, token = noticed[0]
            if self.level.undos:
                others = [t for _, t in noticed[1:]]
                if habit == _WASTE and seen.stock:
                    others.append("D")
                if others:
                    self.choices.append(
                        _Choice(view["moves"], habit, others, self.fruitless, self.progress)
                    )
            self._played(habit, token)
            return token
        if seen.stock:
            return "D"
        if "C" in seen.legal:
            if self.progress:
                self.fruitless = 0
                self.progress = False
                return "C"
            self.fruitless += 1
            if self.fruitless <= self.level.patience:
                return "C"
        return self._stuck(view)

    def _stuck(self, view: PlayerView) -> str | None:
        """Stuck: undo back to the last choice with another move to try, if the level's undos
        reach it, else stop."""
        left = min(self.level.undos - self.undos, UNDO_LIMIT)
        while self.choices:
            choice = self.choices.pop()
            if view["moves"] - choice.moves <= left:
                self.rewind = choice
                self.undos += 1
                return "U"
        return None

    def _played(self, habit: int, token: str) -> None:
        if token == "D" or (habit == _RUN and token[0] == "F"):  # (no run moved)
            self.last_run = None
        elif habit == _RUN:
            source, target = token.split("-")
            self.last_run = (source.split(":")[0], target)
        else:
            self.last_run = None
            self.progress = True


def _run(column: int, count: int, target: str) -> str:
    source = _COLUMNS[column]
    return f"{source}-{target}" if count == 1 else f"{source}:{count}-{target}"


@dataclass(frozen=True, slots=True)
class Played:
    """How one simulated game ended."""

    won: bool
    foundation_cards: int
    #: Actions taken.
    actions: int
    #: The actions, as tokens.
    tokens: tuple[str, ...]


def play(code: DealCode | str, level: Level, seed: str, max_actions: int = MAX_ACTIONS) -> Played:
    """One game of deal ``code`` by a player of ``level`` whose randomness is seeded by ``seed``:
    the player gets a fresh view after each action and nothing else, until it wins, stops, or
    has taken ``max_actions`` actions."""
    game = Canfield(code)
    player = SimulatedPlayer(level, random.Random(seed))
    tokens: list[str] = []
    while len(tokens) < max_actions:
        token = player.choose(game.player_view())
        if token is None:
            break
        game.push(Action.parse(token))
        tokens.append(token)
    return Played(game.is_won(), game.foundation_cards, len(tokens), tuple(tokens))


__all__ = [
    "CASUAL",
    "EXPERT",
    "LEVELS",
    "MAX_ACTIONS",
    "NOVICE",
    "Level",
    "LevelName",
    "Played",
    "SimulatedPlayer",
    "play",
]
