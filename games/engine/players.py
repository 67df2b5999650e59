"""Simulated players: how a person plays a deal, seeing only what a person sees.

A simulated player is given the player's view of the game (:meth:`Canfield.player_view`: the
reserve's top card and count, the stock's count, the waste's face-up spread, the foundations,
the columns and the legal actions — never a stock card, nor a reserve card below the top) and
answers the action it plays. It never holds the game itself, so it cannot look at a hidden card:
:func:`play` hands it a fresh view after every action, and nothing else. What it remembers is
its own: the actions it played, and (the expert) the positions it has been in.

It plays by the habits the app's taps teach (RULES.md, "Tapping a card"), in this order:

1. **Foundation first**: a card the foundations accept goes there — the reserve's top card, a
   column's last card, the waste's top card.
2. **Keep the reserve moving**: the reserve's top card onto a column; a whole column onto another,
   so that the reserve fills the gap.
3. **Runs** (from the middle level up): part of a column onto another when the card it uncovers
   goes to a foundation or takes the reserve's or the waste's top card.
4. **The waste**: its top card onto a column — for the expert only when that serves (the
   reserve's top card then fits on it, or the card under it goes to a foundation); else it
   draws, and keeps the move to try when stuck.
5. **Cycle the stock while it helps**: draw; with the stock empty, turn the waste over — unless
   the last passes through the stock (as many as the level's patience) placed no card from the
   reserve or the waste and none on a foundation.
6. **Take a card back** (from the middle level up), when nothing else is left: a foundation's
   top card onto a column, and the reserve's top card onto it at once.

A card moved to a column goes where a tap sends it: the longest column that accepts it (ties:
the leftmost), failing that the leftmost empty column, never a whole column into an empty one.

**Stuck**, a player undoes its actions back to the last choice where it saw other moves than the
one it played (another move, or drawing instead of playing a waste card to a column), and tries
the next — as long as its level's undos last and the game's 100 undos reach that far. The
expert knows a position it has been in before and, meeting it again (a pass through the stock
that changed nothing, another order of the same moves), treats it as stuck at once instead of
playing it through again.

**A player ends at its best position**: the most cards on the foundations it reached (the
earliest such). With nothing left to try it stops where it stands if that holds as many cards;
else it undoes back to where its line and the best one part and plays the best line's actions
again, then stops — as a person who has tried everything goes back to their best game before
leaving. So that the way back always exists, a player never plays an action (nor undoes to a
choice) after which its best position would be out of reach: beyond the game's 100 undos, its
level's undos left, or the game's actions left (:data:`MAX_ACTIONS`). What :func:`play` reports
is the position the game ends in.

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
    #: Passes through the stock without progress before the player is stuck.
    patience: int
    #: Whether the player, with nothing else left, takes a foundation's top card back onto a
    #: column for the reserve's top card to go on it.
    take_backs: bool = False
    #: The most undos the player makes in a game: stuck, it takes its moves back to the last
    #: choice it made and tries another of the moves it saw there.
    undos: int = 0
    #: Whether the player knows a position it has been in before, and that playing on from it
    #: brings nothing new.
    remembers: bool = False
    #: Whether the player plays the waste's top card to a column only when that serves (the
    #: reserve's top card then fits on it, or the card under it on the waste goes to a
    #: foundation), drawing instead and keeping the move to try when stuck.
    purposeful: bool = False


NOVICE: Final = Level("novice", notice=0.7, runs=False, patience=1)
CASUAL: Final = Level("casual", notice=0.85, runs=True, patience=2, take_backs=True, undos=100)
EXPERT: Final = Level(
    "expert",
    notice=0.98,
    runs=True,
    patience=3,
    take_backs=True,
    undos=1000,
    remembers=True,
    purposeful=True,
)
#: The levels, weakest first; the middle one is the casual player.
LEVELS: Final = (NOVICE, CASUAL, EXPERT)

#: The most actions a simulated game may take, undos included: only the expert's search for
#: another way uses them all.
MAX_ACTIONS: Final = 1500

_COLUMNS: Final = ("T1", "T2", "T3", "T4")
_FOUNDATIONS: Final = ("F1", "F2", "F3", "F4")
# The habits, in order (a habit's moves are tried before the next habit's; a take-back only when
# nothing else is left, the stock included).
_FOUNDATION, _RESERVE, _RUN, _WASTE, _TAKE_BACK, _IDLE = range(6)


@dataclass(slots=True)
class _Seen:
    """The cards of a view as integers, and what each foundation accepts next."""

    reserve: Card | None
    reserve_count: int
    stock: int
    waste: Card | None
    #: The card under the waste's top one when the spread shows it.
    under: Card | None
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
        under=parse_card(spread[-2]) if len(spread) > 1 else None,
        columns=[[parse_card(c) for c in column] for column in view["columns"]],
        needed=needed,
        tops=tops,
        legal=frozenset(view["legal"]),
    )


def _position(view: PlayerView) -> tuple[object, ...]:
    """A position as a view shows it."""
    return (
        view["reserve"]["top"],
        view["reserve"]["count"],
        view["stock"]["count"],
        view["waste"]["count"],
        tuple(view["waste"]["cards"]),
        tuple(len(f["cards"]) for f in view["foundations"]),
        tuple(tuple(column) for column in view["columns"]),
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
    """A move chosen where others were seen: the actions in effect then, the cards on the
    foundations then, the habit, the other moves (in the order they would be tried), and the
    player's count of passes then."""

    moves: int
    cards: int
    habit: int
    alternatives: list[str]
    fruitless: int
    progress: bool


def _gain(token: str) -> int:
    """What an action other than an undo does to the cards on the foundations."""
    if token[0] == "F":  # (a take-back)
        return -1
    return 1 if token[-2:-1] == "F" else 0


def _steps(token: str) -> int:
    """The actions a player's move takes: two for a take-back (the reserve's card follows)."""
    return 2 if token[0] == "F" else 1


class SimulatedPlayer:
    """One simulated player for one game: :meth:`choose` answers an action for a view.

    The player remembers its own actions in effect (:attr:`line`) and the line that reached its
    best position (:attr:`best_line`: the most cards on the foundations, the earliest such), as
    a person remembers how they played; never a card it has not been shown."""

    def __init__(self, level: Level, rng: random.Random, max_actions: int = MAX_ACTIONS) -> None:
        self.level = level
        self.rng = rng
        #: Passes through the stock since a card was last placed (from the reserve or the
        #: waste, or on a foundation).
        self.fruitless = 0
        self.progress = False
        #: The last run moved between columns (source, destination), so as not to move it back.
        self.last_run: tuple[str, str] | None = None
        #: The move a take-back was made for: the reserve's top card onto the card taken back.
        self.then: str | None = None
        #: The choices made with other moves seen, latest last, and the one being undone to.
        self.choices: list[_Choice] = []
        self.rewind: _Choice | None = None
        #: Undos made, and actions taken (undos included) out of ``max_actions``.
        self.undos = 0
        self.actions = 0
        self.max_actions = max_actions
        #: The actions in effect, and how many undos the game allows now (RULES.md, "Undo").
        self.line: list[str] = []
        self.depth = 0
        #: The best position reached: its cards on the foundations, the line that reached it
        #: first, and how many of its actions the actions in effect still share.
        self.best = 0
        self.best_line: list[str] = []
        self.shared = 0
        #: Whether the player has given up and is going back to its best position.
        self.leaving = False
        #: The positions it has played on from (a player that remembers).
        self.seen: set[tuple[object, ...]] = set()

    def candidates(self, seen: _Seen) -> list[list[str]]:
        """The useful moves the player might see, by habit."""
        habits: list[list[str]] = [[], [], [], [], [], []]
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
                        habits[_TAKE_BACK].append(f"{_FOUNDATIONS[f]}-{target}")
        if seen.waste is not None:
            target = _tap_column(seen, seen.waste)
            if target is not None:
                serves = (
                    not self.level.purposeful
                    or seen.reserve is None
                    or FITS_ON[seen.reserve][seen.waste]
                    or seen.under in seen.needed
                )
                habits[_WASTE if serves else _IDLE].append(f"W-{target}")
        return habits

    def choose(self, view: PlayerView) -> str | None:
        """The token of the action the player plays on ``view``, or ``None`` when it stops."""
        if view["won"]:
            return None
        if view["foundation_cards"] > self.best:
            self.best = view["foundation_cards"]
            self.best_line = self.line.copy()
            self.shared = len(self.line)
        token = self._next(view)
        if token is not None:
            self._took(token)
        return token

    def _next(self, view: PlayerView) -> str | None:
        if self.leaving:
            return self._leave()
        if self.rewind is not None:
            if len(self.line) > self.rewind.moves:
                return "U"
            choice, self.rewind = self.rewind, None
            token = choice.alternatives.pop(0)
            self.fruitless, self.progress = choice.fruitless, choice.progress
            if choice.alternatives:
                self.choices.append(choice)
            self._played(choice.habit, token)
            return token
        cards = view["foundation_cards"]
        if self.then is not None:  # (afforded with the take-back)
            token, self.then = self.then, None
            self._played(_RESERVE, token)
            return token
        if self.level.remembers:
            key = _position(view)
            if key in self.seen:
                return self._stuck(view)
            self.seen.add(key)
        seen = _seen(view)
        notice = self.level.notice
        noticed: list[tuple[int, str]] = []
        for habit, moves in enumerate(self.candidates(seen)):
            if len(moves) > 1:
                self.rng.shuffle(moves)
            for token in moves:
                if (
                    token in seen.legal
                    and (notice >= 1.0 or self.rng.random() < notice)
                    and self._affords(token, cards)
                ):
                    noticed.append((habit, token))
        idle = [token for habit, token in noticed if habit == _IDLE]
        last = [token for habit, token in noticed if habit == _TAKE_BACK]
        noticed = [(habit, token) for habit, token in noticed if habit < _TAKE_BACK]
        if noticed:
            habit, token = noticed[0]
            if self.level.undos:
                others = [t for _, t in noticed[1:]]
                if habit == _WASTE and seen.stock:
                    others.append("D")
                if others:
                    self.choices.append(
                        _Choice(len(self.line), cards, habit, others, self.fruitless, self.progress)
                    )
            self._played(habit, token)
            return token
        if seen.stock:
            if self._affords("D", cards):
                self._keep(idle, cards)
                return "D"
        elif (
            "C" in seen.legal
            and (self.progress or self.fruitless < self.level.patience)
            and self._affords("C", cards)
        ):
            self._keep(idle, cards)
            self.fruitless = 0 if self.progress else self.fruitless + 1
            self.progress = False
            return "C"
        if idle:
            self._played(_WASTE, idle[0])
            return idle[0]
        if last:
            token = last[0]
            if self.level.undos and last[1:]:
                self.choices.append(
                    _Choice(
                        len(self.line), cards, _TAKE_BACK, last[1:], self.fruitless, self.progress
                    )
                )
            self._played(_TAKE_BACK, token)
            return token
        return self._stuck(view)

    def _keep(self, idle: list[str], cards: int) -> None:
        """Drawing or recycling instead of the waste moves ``idle``: a choice, to try them when
        stuck."""
        if idle and self.level.undos:
            self.choices.append(
                _Choice(len(self.line), cards, _WASTE, idle, self.fruitless, self.progress)
            )

    def _cost(self, moves: int, cards: int, shared: int) -> int:
        """The actions it takes to go back from a position to the best one: none from a
        position with as many cards, else undos down to the actions it shares with the best
        line and that line's actions again."""
        if cards >= self.best:
            return 0
        return moves - shared + len(self.best_line) - shared

    def _within_reach(
        self, moves: int, cards: int, shared: int, depth: int, undos: int, actions: int
    ) -> bool:
        """Whether the best position is within reach of a position the player would be in:
        ``moves`` actions in effect, ``cards`` on the foundations, ``shared`` actions in common
        with the best line, ``depth`` undos allowed by the game, ``undos`` more made and
        ``actions`` taken by then. It is when the position holds as many cards, else when the
        undos back to the best line are within the game's and the level's, and the way back
        within the actions left."""
        if cards >= self.best:
            return True
        back = moves - shared
        return (
            back <= depth
            and self.undos + undos + back <= self.level.undos
            and actions + self._cost(moves, cards, shared) <= self.max_actions
        )

    def _affords(self, token: str, cards: int) -> bool:
        """Whether playing ``token`` (a take-back with the reserve's card after it) keeps the
        best position within reach."""
        steps = _steps(token)
        return self._within_reach(
            len(self.line) + steps,
            cards + _gain(token),
            self.shared,
            min(self.depth + steps, UNDO_LIMIT),
            0,
            self.actions + steps,
        )

    def _stuck(self, view: PlayerView) -> str | None:
        """Stuck: undo back to the last choice with another move to try, if the game's and the
        level's undos reach it and the best position stays within reach once that move is
        played; else give up."""
        self.then = None
        moves = len(self.line)
        while self.choices:
            choice = self.choices.pop()
            back = moves - choice.moves
            if back > self.depth or self.undos + back > self.level.undos:
                continue
            token = choice.alternatives[0]
            steps = _steps(token)
            if self._within_reach(
                choice.moves + steps,
                choice.cards + _gain(token),
                min(self.shared, choice.moves),
                min(self.depth - back + steps, UNDO_LIMIT),
                back,
                self.actions + back + steps,
            ):
                self.rewind = choice
                return "U"
        return self._give_up(view)

    def _give_up(self, view: PlayerView) -> str | None:
        """Nothing more to try: stop where it stands if that is as good as its best position,
        else go back to the best position first."""
        self.choices.clear()
        if view["foundation_cards"] >= self.best:
            return None
        self.leaving = True
        return self._leave()

    def _leave(self) -> str | None:
        """The next action back to the best position: an undo down to the actions the best
        line shares, then that line's next action; ``None`` once there."""
        if len(self.line) > self.shared:
            return "U"
        if len(self.line) < len(self.best_line):
            return self.best_line[len(self.line)]
        return None

    def _took(self, token: str) -> None:
        """Remember an action taken (every one the player answers is played)."""
        self.actions += 1
        line = self.line
        if token == "U":
            self.undos += 1
            self.depth -= 1
            line.pop()
            self.shared = min(self.shared, len(line))
            return
        if self.shared == len(line) < len(self.best_line) and self.best_line[self.shared] == token:
            self.shared += 1
        line.append(token)
        self.depth = min(self.depth + 1, UNDO_LIMIT)

    def _played(self, habit: int, token: str) -> None:
        if token == "D":
            self.last_run = None
        elif habit == _TAKE_BACK:  # (for the reserve's top card)
            self.last_run = None
            self.then = "R-" + token.split("-")[1]
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
    """How one simulated game ended: the position its game ends in, which is the best the
    player reached."""

    won: bool
    foundation_cards: int
    #: Actions taken.
    actions: int
    #: The actions, as tokens.
    tokens: tuple[str, ...]


def play(code: DealCode | str, level: Level, seed: str, max_actions: int = MAX_ACTIONS) -> Played:
    """One game of deal ``code`` by a player of ``level`` whose randomness is seeded by ``seed``:
    the player gets a fresh view after each action and nothing else, until it wins or stops (at
    its best position, within ``max_actions`` actions)."""
    game = Canfield(code)
    player = SimulatedPlayer(level, random.Random(seed), max_actions)
    tokens: list[str] = []
    while len(tokens) < max_actions:
        token = player.choose(game.player_view(look_ahead=False))
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
