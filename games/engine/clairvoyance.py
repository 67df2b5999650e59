"""The clairvoyance test: does a player choose as one who sees the hidden cards?

A player who knows the stock's order and the reserve's cards below its top makes choices that
only that knowledge explains: where what is visible cannot tell the moves apart and the hidden
cards decide which of them keep the win, they take a winning one, again and again. This module
weighs an attempt's choices for that, as a likelihood ratio between two models of the player,
from its log alone (timing plays no part). docs/fair-play.md gives the method, its calibration on
simulated players and its error rates.

**The line judged.** The actions *in effect* at the log's end (:func:`in_effect`: every undone
action taken out), and of those only the decisions that stuck: where the line comes back to a
position it stood on before (a move and its reversal, a pass through the stock that changed
nothing), only the last decision taken from that position counts. So undo pairs and such
detours add nothing — except what they showed: a card the player has seen is known to them from
then on, however it was seen (:class:`Sight`).

**A fork** is a decision at a position with two legal moves or more and two hidden cards or more
that the player has never seen, where the *true deck* separates the moves: some *keep the win*
and some do not. For a won attempt, a move keeps the win when a win follows it in no more actions
than the player's own line took from there (plus :attr:`Budget.slack`): the move made keeps it by
its own line's proof, another move when that line with the move taken first still wins, or the
solver finds a win short enough within :attr:`Budget.truth` positions. For an attempt not won, a
move keeps the win when the solver finds any win after it. Every other position adds nothing, so
padding an attempt with moves at positions that are no fork adds nothing either.

**The two models at a fork.** The *honest* player sees what the player saw. It weighs each legal
move by two things it can see: its *share* — the part of :attr:`Budget.samples` deals consistent
with everything the player has seen (the unseen cards shuffled among the hidden places) in which
the solver finds, within :attr:`Budget.positions` positions, a win after it — and its *habit*
(:func:`habit`: foundation first, then the reserve, the columns and the waste, the stock,
take-backs, a column's cards moved for nothing, as a tap would play), and picks a move with the
softmax of ``share / T - κ · habit``,
save for a :data:`BLIND` part of its choices made at random among the ``n`` legal moves (``T``
:attr:`Budget.temperature` and ``κ`` :attr:`Budget.habit` fitted to the simulated honest players
of ``games.engine.players``: benchmarks/clairvoyance.py). The *clairvoyant* player picks as the
honest one would, but among the moves the true deck keeps winning, save for a slip of
:attr:`Budget.slip`::

    P_honest(m)      = (1 - β) · softmax(share / T - κ · habit)(m) + β / n
    P_clairvoyant(m) = (1 - ε) · P_honest(m) · [m keeps the win] / P_honest(W) + ε · P_honest(m)

where ``W`` is the set of moves that keep the win. The *evidence* at a fork is the natural log of
their ratio for the move made: ``log((1 - ε) / P_honest(W) + ε)`` for a move that keeps the win,
``log ε`` for one that does not; the attempt's evidence is the sum over its forks. Where what is
visible already tells the winning moves apart, ``P_honest(W)`` is near 1 and the evidence near 0;
where it cannot, each fork passed adds about ``-log P_honest(W)``. For a player who chooses as the
honest model does, the ratio is a martingale, so the chance that its evidence ever reaches ``t``
is at most ``e^-t`` (Ville's inequality); docs/fair-play.md says what that bound assumes and what
the simulations show.

**Bounded and deterministic.** Positions per solve, samples per fork, forks weighed (the first
ones along the line: the judgement ends at the last) and positions in all (:class:`Budget`) bound
the work; the samples are drawn from a generator seeded by the caller's seed and the position as
the player knows it, so the same attempt is judged alike on every machine, and the same position
alike in a padded line.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from .actions import COLUMNS, FOUNDATIONS, RESERVE, UNDO, WASTE, Action
from .cards import FITS_ON, Card
from .deals import DealCode
from .errors import IllegalAction
from .game import Canfield
from .solver import shorten, solve

#: The honest model's temperature and habit weight, fitted by maximum likelihood to the choices of
#: the simulated honest players at their forks (benchmarks/clairvoyance.py, docs/fair-play.md,
#: "The figures": the forks of about a thousand honest wins; the habit weight is the highest
#: tried, the simulated players keeping to their habits as no person does).
TEMPERATURE: Final = 0.5
HABIT: Final = 3.0
#: The part of the honest model that chooses among the legal moves at random: a person is no
#: simulated player, and no fork may count for more than choosing blindly would explain.
BLIND: Final = 0.1
#: The clairvoyant model's slip: its chance of choosing as the honest model does.
SLIP: Final = 0.02
#: How many actions more than the player's own line a won line's other moves may take and still
#: keep the win.
SLACK: Final = 0
#: The other moves that "looked as good" on the review page: those the honest model gave at least
#: this part of its chance of the move made (display only: the evidence weighs every legal move).
LOOKED_EQUAL: Final = 0.5


@dataclass(frozen=True, slots=True)
class Budget:
    """What judging one attempt may cost, and the models' parameters (:data:`TEMPERATURE`,
    :data:`HABIT`, :data:`SLIP`: the service's are the defaults)."""

    #: Deals sampled at a fork for the honest model's shares.
    samples: int = 4
    #: Positions the solver may search after one move on the true deck (deciding a fork: first
    #: :attr:`positions`, then this many for a move that search leaves open), and on a sampled
    #: deal (a share).
    truth: int = 5000
    positions: int = 1000
    #: Forks weighed: the first ones along the line; the judgement ends at the last of them.
    forks: int = 40
    #: Positions searched in all, deciding forks and sampling; past it the judgement stops
    #: (``complete`` false), with the evidence of the forks weighed so far.
    total: int = 3_000_000
    #: Actions a won line's other moves may take beyond the player's own line.
    slack: int = SLACK
    temperature: float = TEMPERATURE
    habit: float = HABIT
    slip: float = SLIP

    def __post_init__(self) -> None:
        if min(self.samples, self.truth, self.positions, self.forks, self.total) < 1:
            raise ValueError("a budget's counts are positive")
        if self.slack < 0 or not self.temperature > 0 or self.habit < 0:
            raise ValueError(
                "the slack and the habit weight are 0 or more, the temperature positive"
            )
        if not 0 < self.slip < 1:
            raise ValueError("the slip is between 0 and 1")


@dataclass(frozen=True, slots=True)
class MoveShare:
    """One legal move at a fork: its share of the sampled deals in which a win follows it, its
    habit (:func:`habit`), the honest model's chance of it, and whether it keeps the win on the
    true deck."""

    move: str
    share: float
    habit: int
    chance: float
    wins: bool


@dataclass(frozen=True, slots=True)
class Fork:
    """A fork the line passed: the action's number in the log (1 = the first action, undos
    included), the move made, every legal move with its share and what the true deck decided,
    the honest model's chance of a winning move there, and the evidence it adds."""

    ply: int
    played: str
    moves: tuple[MoveShare, ...]
    honest: float
    evidence: float

    @property
    def looked_equal(self) -> tuple[str, ...]:
        """The other moves that looked as good from what the player had seen: the honest model
        gave each at least :data:`LOOKED_EQUAL` of its chance of the move made."""
        mine = next(m.chance for m in self.moves if m.move == self.played)
        return tuple(
            m.move for m in self.moves if m.move != self.played and m.chance >= LOOKED_EQUAL * mine
        )

    @property
    def winning(self) -> tuple[str, ...]:
        """The moves the true deck kept winning."""
        return tuple(m.move for m in self.moves if m.wins)

    @property
    def losing(self) -> tuple[str, ...]:
        """The moves after which the true deck kept no win (as short as the fork asked)."""
        return tuple(m.move for m in self.moves if not m.wins)


@dataclass(frozen=True, slots=True)
class Judgement:
    """What :func:`judge` found: the evidence (a natural log of the likelihood ratio), the forks
    weighed, the decisions looked at (positions with a choice and two unseen hidden cards or
    more), the solver's positions, and whether the judgement ended within the budget (false:
    the position budget ran out before the line's end or its :attr:`Budget.forks` forks)."""

    evidence: float
    forks: tuple[Fork, ...]
    decisions: int
    positions: int
    complete: bool


def in_effect(tokens: Sequence[str]) -> list[tuple[int, str]]:
    """The log's actions still in effect at its end (every undone one taken out), each with its
    number in the log (1 = the first action)."""
    live: list[tuple[int, str]] = []
    for number, token in enumerate(tokens, start=1):
        if token == UNDO.token():
            live.pop()
        else:
            live.append((number, token))
    return live


def _mask(cards: Iterable[int]) -> int:
    bits = 0
    for c in cards:
        bits |= 1 << c
    return bits


def hidden(game: Canfield) -> int:
    """The cards in hidden places now (the reserve below its top, the stock), as a bit mask."""
    return _mask(game.piles[RESERVE][:-1]) | _mask(game.stock)


class Sight:
    """What a player has seen of a deal, following its log: a card once face up — on a column,
    a foundation, the waste, the reserve's top — is known from then on, wherever it goes (an
    undo that puts it back under the reserve's top, or a recycle that turns it into the stock,
    moves it where the player watched it go). :attr:`unseen` is the mask of the cards never
    seen."""

    def __init__(self, game: Canfield) -> None:
        self.unseen = hidden(game)

    def look(self, game: Canfield) -> None:
        self.unseen &= hidden(game)

    @property
    def seen(self) -> int:
        """How many of the 52 cards have been seen."""
        return 52 - self.unseen.bit_count()


@dataclass(frozen=True, slots=True)
class Shown:
    """What a log showed its player: the cards seen (of 52, undone actions' included), the most
    cards the foundations held at any time, and the moves made besides draws, recycles and
    undos (undone ones included)."""

    seen: int
    best: int
    moves: int


def shown(code: DealCode | str, tokens: Iterable[str]) -> Shown:
    """What the log ``tokens`` of deal ``code`` showed its player (:class:`Shown`); raises the
    engine's errors for a log that does not replay."""
    game = Canfield(code)
    sight = Sight(game)
    best = game.foundation_cards
    moves = 0
    for action in game.replaying(tokens):
        sight.look(game)
        best = max(best, game.foundation_cards)
        moves += action.kind == "move"
    return Shown(seen=sight.seen, best=best, moves=moves)


def _bare(game: Canfield) -> Canfield:
    """``game``'s position without its past: copies of it cost nothing to make."""
    return Canfield.restore(game.code, replace(game.snapshot(), undoable=()))


def _visible_key(game: Canfield, unseen: int) -> str:
    """The position as the player knows it: every pile, with the cards never seen blanked out.
    Two deals that differ only in the order of the cards never seen have the same key, and so
    the same samples."""
    piles = [*game.piles, game.stock]
    text = "|".join(" ".join("?" if unseen >> c & 1 else str(c) for c in pile) for pile in piles)
    return f"{game.code.mode}|{game.base_rank}|{game.foundation_suits}|{text}"


def sample(game: Canfield, unseen: int, rng: random.Random) -> Canfield:
    """A deal consistent with what the player has seen: ``game``'s position with the cards of
    ``unseen`` that lie in hidden places shuffled among those places (every card seen stays where
    it is)."""
    deal = _bare(game)
    reserve, stock = deal.piles[RESERVE], deal.stock
    places: list[tuple[list[int], int]] = [
        (reserve, k) for k in range(len(reserve) - 1) if unseen >> reserve[k] & 1
    ]
    places += [(stock, k) for k in range(len(stock)) if unseen >> stock[k] & 1]
    cards = [pile[k] for pile, k in places]
    rng.shuffle(cards)
    for (pile, k), c in zip(places, cards, strict=True):
        pile[k] = c
    return deal


class _Solver:
    """The solver's answers within one judgement — "does a win within so many actions follow
    this move?" — kept by position and bound, and the positions spent."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.answers: dict[tuple[str, int | None, int], bool] = {}
        self.positions = 0

    def spent(self) -> bool:
        return self.positions >= self.budget.total

    def wins_after(self, game: Canfield, move: Action, within: int | None, positions: int) -> bool:
        """Whether the solver finds, within ``positions`` positions, a win after ``move`` in at
        most ``within`` actions (``None``: of any length); a line found longer is shortened with
        what is left of the positions. A search on :attr:`Budget.positions` is tried first: most
        moves are settled by it, and only those it leaves open get the larger budget."""
        after = game.copy()
        after.push(move)
        if after.is_won():
            return True
        digest = after.position_digest()
        for tier in sorted({min(positions, self.budget.positions), positions}):
            key = (digest, within, tier)
            if key not in self.answers:
                self.answers[key] = self._wins(after, within, tier)
            if self.answers[key]:
                return True  # (a line found is a proof, whatever the budget)
        return False

    def _wins(self, after: Canfield, within: int | None, positions: int) -> bool:
        found = solve(after, max_positions=positions, shorten=False)
        self.positions += found.positions
        line = found.line
        if found.outcome == "win" and within is not None and len(line) > within:
            left = positions - found.positions
            if left > 0:
                line = shorten(after, line, max_positions=left)
                self.positions += left
        return found.outcome == "win" and (within is None or len(line) <= within)


def _by_the_line(game: Canfield, move: Action, played: Action, rest: Sequence[Action]) -> bool:
    """Whether the player's own line from ``game`` — ``played``, then ``rest``, a win — still
    wins after ``move`` in as many actions, ``move`` taken out of ``rest`` where it first comes
    in it (the same moves in another order): a proof, without a search, that ``move`` keeps the
    win. Most moves a won line passes by are in it a little later."""
    if move not in rest:
        return False
    k = rest.index(move)
    after = game.copy()
    try:
        for action in (move, played, *rest[:k], *rest[k + 1 :]):
            after.push(action)
            if after.is_won():
                return True
    except IllegalAction:
        return False
    return False


def _choices(game: Canfield) -> list[Action]:
    return [a for a in game.generate_legal() if a != UNDO]


def shares(
    game: Canfield, unseen: int, moves: Sequence[Action], budget: Budget, seed: str
) -> list[float]:
    """For each of ``moves``, the share of ``budget.samples`` deals consistent with what the
    player has seen (``unseen``: the cards never seen) in which the solver finds a win after it
    within ``budget.positions`` positions; the deals are drawn from a generator seeded by
    ``seed`` and the position as the player knows it."""
    return _shares(_Solver(budget), game, unseen, moves, seed)


def _shares(
    solver: _Solver, game: Canfield, unseen: int, moves: Sequence[Action], seed: str
) -> list[float]:
    rng = random.Random(f"{seed}|{_visible_key(game, unseen)}")
    wins = [0] * len(moves)
    budget = solver.budget
    for _ in range(budget.samples):
        deal = sample(game, unseen, rng)
        for k, move in enumerate(moves):
            wins[k] += solver.wins_after(deal, move, None, budget.positions)
    return [w / budget.samples for w in wins]


def habit(game: Canfield, move: Action) -> int:
    """Where ``move`` comes among the habits a person plays by (RULES.md, "Tapping a card"; the
    simulated players of ``games.engine.players``), seen from the position alone: 0 to a
    foundation; 1 the reserve's top card to a column, or a whole column onto another while the
    reserve is there to fill the gap; 2 a whole column with the reserve empty, part of a column
    when the card it uncovers serves (a foundation takes it, or the reserve's or the waste's top
    card goes on it), or the waste's card to a column when that serves (the reserve is empty or
    its top card goes on it, or the card it uncovers on the waste's spread goes home); 3 a draw
    or a recycle, or the waste's card to a column when that serves nothing (level with the
    stock: some play it, others draw and keep it for later, as the expert simulated player
    does); 4 a foundation's card back to a column; 5 part of a column moved for nothing (the
    card it uncovers serves none of that: the simulated players never make such a move, and a
    person seldom does: it costs an action and gives nothing to play now) — and one more for a
    move to a column that a tap would not choose (the longest column that accepts the cards,
    ties the leftmost; failing that the leftmost empty one)."""
    if move.kind != "move":
        return 3
    if move.dst in FOUNDATIONS:
        return 0
    source = game.piles[move.src]
    if move.src in FOUNDATIONS:
        rank = 4
    elif move.src == RESERVE:
        rank = 1
    elif move.src == WASTE:
        rank = 2 if _waste_serves(game) else 3
    elif move.count == len(source):
        rank = 1 if game.piles[RESERVE] else 2
    else:
        rank = 2 if _serves(game, source[-move.count - 1]) else 5
    accepting = [
        k
        for k in COLUMNS
        if k != move.src and game.reason(Action("move", move.src, k, move.count)) is None
    ]
    filled = [k for k in accepting if game.piles[k]]
    tapped = max(filled, key=lambda k: (len(game.piles[k]), -k)) if filled else min(accepting)
    return rank + (move.dst != tapped)


def _waste_serves(game: Canfield) -> bool:
    """Whether the waste's top card, played to a column, serves: the reserve is empty or its top
    card goes on it, or the card it uncovers on the spread goes home."""
    reserve, spread = game.piles[RESERVE], game.visible_waste()
    return (
        not reserve
        or FITS_ON[reserve[-1]][spread[-1]]
        or (len(spread) > 1 and game.goes_home(spread[-2]))
    )


def _serves(game: Canfield, under: Card) -> bool:
    """Whether the card ``under``, once uncovered on a column, serves: a foundation takes it, or
    the reserve's or the waste's top card goes on it."""
    tops = [pile[-1] for pile in (game.piles[RESERVE], game.piles[WASTE]) if pile]
    return game.goes_home(under) or any(FITS_ON[top][under] for top in tops)


def honest_chances(
    values: Sequence[float],
    habits: Sequence[int],
    temperature: float = TEMPERATURE,
    weight: float = HABIT,
) -> list[float]:
    """The honest model's chance of each move, whose shares are ``values`` and habits
    ``habits``: the softmax of ``share / temperature - weight × habit``, a :data:`BLIND` part of
    it spread evenly over the moves."""
    scores = [v / temperature - weight * h for v, h in zip(values, habits, strict=True)]
    top = max(scores)
    weights = [math.exp(x - top) for x in scores]
    total = sum(weights)
    return [(1 - BLIND) * w / total + BLIND / len(weights) for w in weights]


def fork_evidence(
    values: Sequence[float],
    habits: Sequence[int],
    wins: Sequence[bool],
    played: int,
    budget: Budget | None = None,
) -> tuple[float, float]:
    """At a fork whose moves have the shares ``values`` and the habits ``habits`` and keep the
    win as ``wins`` say, where the move of index ``played`` was made: the honest model's chance
    of a winning move, and the evidence (the log of the clairvoyant model's chance of the move
    made over the honest one's), with ``budget``'s temperature, habit weight and slip."""
    budget = budget or Budget()
    chances = honest_chances(values, habits, budget.temperature, budget.habit)
    honest = sum(p for p, w in zip(chances, wins, strict=True) if w)
    if not wins[played]:
        return honest, math.log(budget.slip)
    return honest, math.log((1 - budget.slip) / honest + budget.slip)


def _fork(
    solver: _Solver,
    position: Canfield,
    unseen: int,
    played: Action,
    rest: Sequence[Action] | None,
    seed: str,
) -> Fork | None:
    """The fork at ``position`` where ``played`` was chosen, or None when it is none (see
    :func:`fork_at`)."""
    budget = solver.budget
    moves = _choices(position)
    if rest is None:  # (an attempt not won: any win, the move made's too, is the solver's)
        within = None
        wins = [solver.wins_after(position, m, None, budget.truth) for m in moves]
    else:
        within = len(rest) + budget.slack
        wins = [
            m == played
            or _by_the_line(position, m, played, rest)
            or solver.wins_after(position, m, within, budget.truth)
            for m in moves
        ]
    if all(wins) or not any(wins):
        return None  # the hidden cards decide nothing here
    values = _shares(solver, position, unseen, moves, seed)
    habits = [habit(position, m) for m in moves]
    chances = honest_chances(values, habits, budget.temperature, budget.habit)
    honest, evidence = fork_evidence(values, habits, wins, moves.index(played), budget)
    return Fork(
        ply=0,
        played=played.token(),
        moves=tuple(
            MoveShare(m.token(), v, h, p, w)
            for m, v, h, p, w in zip(moves, values, habits, chances, wins, strict=True)
        ),
        honest=honest,
        evidence=evidence,
    )


def fork_at(
    position: Canfield,
    played: str,
    *,
    unseen: int,
    rest: Sequence[str] | None = None,
    seed: str,
    budget: Budget | None = None,
) -> Fork | None:
    """The fork at ``position`` (a game; only read) where the player, who had never seen the
    cards of ``unseen``, chose ``played``; ``rest``: the actions with which the player then won
    (``None``: the attempt was not won). None when the hidden cards decide nothing there (every
    legal move keeps the win, or none does); else the fork with its evidence (``ply`` 0). Raises
    the engine's errors when ``played`` and ``rest`` do not replay (an undo is no choice), and
    ``ValueError`` when they do not win."""
    action = Action.parse(played)
    position = _bare(position)
    position.check(action)
    if action == UNDO:
        raise IllegalAction("an undo is no choice between moves")
    actions = None if rest is None else [Action.parse(token) for token in rest]
    if actions is not None:
        after = position.copy()
        for _ in after.replaying([action, *actions]):
            pass
        if not after.is_won():
            raise ValueError("the rest of the line does not win")
    return _fork(_Solver(budget or Budget()), position, unseen, action, actions, seed)


def _path(digests: Sequence[str], end: str) -> list[int]:
    """The decisions of a line whose positions have ``digests`` (before each decision) and whose
    end is ``end``, loops taken out: from each position, only the last decision taken there."""
    last = {digest: k for k, digest in enumerate(digests)}
    last[end] = len(digests)  # (a line that comes back to its end: nothing after counts)
    path = []
    k = last[digests[0]] if digests else 0
    while k < len(digests):
        path.append(k)
        k = last[digests[k + 1] if k + 1 < len(digests) else end]
    return path


def judge(
    code: DealCode | str, tokens: Sequence[str], *, seed: str, budget: Budget | None = None
) -> Judgement:
    """Judge the attempt at deal ``code`` whose log is ``tokens`` (undos included): see the
    module's description. ``seed`` (the attempt's) seeds the samples. Raises the engine's errors
    for a log that does not replay."""
    budget = budget or Budget()
    numbers = {number for number, _ in in_effect(tokens)}
    # The decisions in effect, each at its position with what the player had seen by then.
    game = Canfield(code)
    sight = Sight(game)
    decisions: list[tuple[int, Action, Canfield, int]] = []
    digests: list[str] = []
    before = _bare(game)
    for number, action in enumerate(game.replaying(tokens), start=1):
        if number in numbers:
            decisions.append((number, action, before, sight.unseen))
            digests.append(before.position_digest())
        sight.look(game)
        if number + 1 in numbers:
            before = _bare(game)
    path = [decisions[k] for k in _path(digests, game.position_digest())]
    line = [action for _, action, _, _ in path]
    won = game.is_won()

    solver = _Solver(budget)
    forks: list[Fork] = []
    looked = 0
    complete = True
    for step, (number, played, position, unseen) in enumerate(path):
        if len(forks) == budget.forks:
            break  # (the evidence is the first forks')
        if len(_choices(position)) < 2 or (unseen & hidden(position)).bit_count() < 2:
            continue  # no choice, or nothing hidden that the player could not work out
        if solver.spent():
            complete = False
            break
        looked += 1
        rest = line[step + 1 :] if won else None
        fork = _fork(solver, position, unseen, played, rest, seed)
        if fork is not None:
            forks.append(replace(fork, ply=number))
    return Judgement(
        evidence=sum(f.evidence for f in forks),
        forks=tuple(forks),
        decisions=looked,
        positions=solver.positions,
        complete=complete,
    )


__all__ = [
    "BLIND",
    "HABIT",
    "LOOKED_EQUAL",
    "SLACK",
    "SLIP",
    "TEMPERATURE",
    "Budget",
    "Fork",
    "Judgement",
    "MoveShare",
    "Shown",
    "Sight",
    "fork_at",
    "fork_evidence",
    "habit",
    "hidden",
    "honest_chances",
    "in_effect",
    "judge",
    "sample",
    "shares",
    "shown",
]
