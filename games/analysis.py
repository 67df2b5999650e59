"""Where the win slipped away: for a finished game, the last action after which it could no
longer be won, the move that would have kept it winnable there, and how long that line is.

The positions of a game are p0 (the deal) to pn (after its last action); p_i is the position
after the log's i-th action, an undo included (after an undo, p_i is the earlier position). The
*slip* is the largest i such that p_(i-1) is proved winnable and p_i proved lost, by the solver
(``games.engine.solver``: ``win`` gives a line, ``no_win`` is a proof). A won game has none; a
game whose deal was never winnable has none either, and says so; when the solver cannot decide a
position the answer needs, within the budget, the analysis is *undecided*: never a guessed slip.

How few positions that needs (:func:`find_slip`). An action other than an undo leads to a
position reachable from the one before, so along the actions *in effect* at the end (the log
with every undone action taken out: q0 = p0, q1, ... qm = pn) the positions are winnable up to
some point and lost after it. Undos only ever go back along a line, so every position after the
slip is reachable from p_slip — which must be lost — and the slip's action is still in effect at
the end: it is the step from the last winnable q to the first lost one. So the analysis solves
pn (still winnable: no slip), then halves the line between a winnable and a lost position until
they are neighbours: at most 1 + ⌈log2(m + 1)⌉ positions solved however long the game (14 for the
longest, ``MAX_GAME_ACTIONS``), each answer kept by its ``position_digest`` (a line that comes
back to a position asks once). Then the winning line from the last winnable position is
shortened, and its first action is the better move.

Budgets, from the settings (README, "Configuration"): each position solved gets at most
``ANALYSIS_POSITIONS`` positions (a count, not seconds: every worker decides alike), the line
``ANALYSIS_SHORTEN_POSITIONS`` more, and the whole analysis ``ANALYSIS_SECONDS`` (a position
still undecided at the deadline leaves the analysis undecided).

Where it runs: in the worker tier (``games.tasks.analyse_game``), in the worker's own process —
never in a web process nor in the players' solver pool. A practice game's analysis is asked for
when it ends (``games.receivers``), a daily attempt's once its day is over (the periodic
``games.tasks.analyse_past_days``), and anyone's when a reader asks (``GET
/api/games/<id>/analysis/``, ``games.tasks.request_analysis``). A game is analysed only once
it is over and its code public (:func:`analysable`, the record's rule:
``games.records.is_final``), so a daily attempt's analysis only ever solves the deck of a
published daily, and a practice game's deck
is never an unpublished daily's (``services.guard_decks``). A won game needs no solver: it is
stored ``won`` at once. The result is one :class:`~games.models.GameAnalysis` row per game, with
the :data:`ANALYSIS_VERSION` it was computed by: a row of another version is computed again.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from games import records, services
from games.clock import utc_today
from games.engine import UNDO, Action, Canfield, DealCode
from games.engine.solver import Outcome, shorten, solve
from games.models import Game, GameAnalysis

log = logging.getLogger(__name__)

#: The version of the analysis: raise it when the solver or this module changes what an
#: analysis finds; rows of another version are computed again when read or swept.
ANALYSIS_VERSION = 1

#: Task priorities (django-tasks: higher first; the other duties have 0): an analysis goes after
#: the duties waiting, a reader's before those the daily sweep enqueues.
PRIORITY_REQUESTED = -1
PRIORITY_SWEPT = -10

#: How far back the daily sweep looks: the attempts of the last days are analysed ahead of their
#: readers; older ones when someone asks.
SWEEP_DAYS = 7


# --- the finding: pure, over the engine and its solver ----------------------------------------


@dataclass(frozen=True)
class Slip:
    """The action after which no win was left: its number in the log (1 = the first action,
    undos included, as the replay numbers them) and token, the first action of a winning line
    from the position before it, and that line's length."""

    ply: int
    played: str
    better: str
    line: int


@dataclass(frozen=True)
class Finding:
    """What :func:`find_slip` found. ``decided`` false: a position it needed stayed undecided
    (then ``winnable`` and ``slip`` say nothing)."""

    decided: bool
    won: bool = False
    #: Whether the deal could be won from the start (None: not decided).
    winnable: bool | None = None
    slip: Slip | None = None
    #: Positions solved (answers kept by digest count once), and the solver's positions in all.
    solves: int = 0
    positions: int = 0


def actions_in_effect(tokens: Sequence[str]) -> list[tuple[int, str]]:
    """The log's actions still in effect at its end (every undone one taken out), each with its
    number in the log (1 = the first action)."""
    live: list[tuple[int, str]] = []
    for number, token in enumerate(tokens, start=1):
        if Action.parse(token) == UNDO:
            live.pop()
        else:
            live.append((number, token))
    return live


class _Solver:
    """The solver's answers for one analysis, kept by position digest, within its budgets."""

    def __init__(self, positions: int, seconds: float) -> None:
        self.positions = positions
        self.deadline = time.monotonic() + seconds
        self.answers: dict[str, tuple[Outcome, tuple[Action, ...]]] = {}
        self.spent = 0

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def outcome(self, game: Canfield) -> tuple[Outcome, tuple[Action, ...]]:
        digest = game.position_digest()
        if digest not in self.answers:
            left = self.left()
            if left <= 0:
                return "unknown", ()
            found = solve(game, max_positions=self.positions, seconds=left, shorten=False)
            self.spent += found.positions
            self.answers[digest] = (found.outcome, found.line)
        return self.answers[digest]


def find_slip(
    code: DealCode | str,
    tokens: Sequence[str],
    *,
    positions: int,
    seconds: float,
    shorten_positions: int,
) -> Finding:
    """Where the game of deal ``code`` played as ``tokens`` (its log, undos included) slipped
    from winnable to lost for the last time: see the module's description. ``positions`` bounds
    each position solved, ``seconds`` the whole, ``shorten_positions`` the shortening of the line
    from the last winnable position. Raises the engine's errors for a log that does not replay."""
    if Canfield.replay(code, tokens).is_won():
        return Finding(decided=True, won=True, winnable=True)
    live = actions_in_effect(tokens)
    solver = _Solver(positions, seconds)

    def along(j: int) -> Canfield:
        """q_j: the position after the first ``j`` actions in effect."""
        return Canfield.replay(code, [token for _, token in live[:j]])

    def finding(decided: bool, winnable: bool | None = None, slip: Slip | None = None) -> Finding:
        return Finding(decided, False, winnable, slip, len(solver.answers), solver.spent)

    end, _ = solver.outcome(along(len(live)))
    if end == "unknown":
        return finding(False)
    if end == "win":  # still winnable when it ended: nothing slipped
        return finding(True, winnable=True)
    # q[won] is proved winnable (-1: none known yet), q[lost] proved lost.
    won, lost = -1, len(live)
    while lost - won > 1:
        middle = (won + lost) // 2
        outcome, _ = solver.outcome(along(middle))
        if outcome == "unknown":
            return finding(False)
        if outcome == "win":
            won = middle
        else:
            lost = middle
    if won < 0:  # q0, the deal, is lost: it never could be won
        return finding(True, winnable=False)
    before = along(won)
    _, line = solver.outcome(before)
    left = solver.left()
    if shorten_positions > 0 and left > 0:
        line = shorten(before, line, max_positions=shorten_positions, seconds=left)
    ply, played = live[won]
    better = line[0].token()
    if better == played:  # the proofs disagree (a line through a lost position): claim nothing
        log.error("analysis of %s: the line from action %d starts with its lost move", code, ply)
        return finding(False)
    return finding(True, winnable=True, slip=Slip(ply, played, better, len(line)))


# --- the service: who may see it, asking for it, computing and storing it ---------------------


def analysable(game: Game, today: dt.date | None = None) -> bool:
    """Whether ``game`` may be analysed on ``today``: over and its code public — a practice game
    once it has ended, a daily attempt once its day is over (``records.is_final``, with the day's
    end applied). Never before: the analysis knows every card."""
    today = today or utc_today()
    game.apply_day_end(today)
    return records.is_final(game, today)


def is_current(row: GameAnalysis) -> bool:
    """Whether ``row`` is an answer of this version (pending rows never are)."""
    return row.version == ANALYSIS_VERSION and row.status != GameAnalysis.Status.PENDING


def store_won(game: Game) -> GameAnalysis:
    """A won game's analysis, stored at once: nothing slipped, no solver needed."""
    row, _ = GameAnalysis.objects.update_or_create(
        game=game,
        defaults={
            "status": GameAnalysis.Status.READY,
            "version": ANALYSIS_VERSION,
            "won": True,
            "winnable": True,
            **_NO_SLIP,
            "task_id": "",
            "computed_at": timezone.now(),
        },
    )
    return row


_NO_SLIP = {"slip_ply": None, "played": "", "better": "", "line": None}


def analyse(game_id: int, today: dt.date | None = None) -> str:
    """Compute and store the analysis of game ``game_id``, here in the calling process (the
    worker's); returns the row's status — or ``"not_analysable"`` (nothing written) for a game
    that is gone, in progress, or a daily attempt whose day is not over. A current answer is
    kept as it is. A failure is stored ``failed`` (answered as undecided) and raised again, for
    the task's record."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not analysable(game, today):
        return "not_analysable"
    row = GameAnalysis.objects.filter(game=game).first()
    if row is not None and is_current(row):
        return row.status
    if game.status == Game.Status.WON:
        return store_won(game).status
    started = time.monotonic()
    try:
        found = find_slip(
            game.deal_code,
            services.tokens_of(game),
            positions=settings.ANALYSIS_POSITIONS,
            seconds=settings.ANALYSIS_SECONDS,
            shorten_positions=settings.ANALYSIS_SHORTEN_POSITIONS,
        )
    except Exception:
        _store(game, {"status": GameAnalysis.Status.FAILED})
        raise
    status = GameAnalysis.Status.READY if found.decided else GameAnalysis.Status.UNDECIDED
    slip = found.slip
    _store(
        game,
        {
            "status": status,
            "won": found.won,
            "winnable": found.winnable,
            "slip_ply": slip.ply if slip else None,
            "played": slip.played if slip else "",
            "better": slip.better if slip else "",
            "line": slip.line if slip else None,
            "solves": found.solves,
            "positions": found.positions,
        },
    )
    log.info(
        "analysis of game %s: %s, slip %s, %d positions solved (%d searched) in %.1f s",
        game.pk,
        status,
        slip,
        found.solves,
        found.positions,
        time.monotonic() - started,
    )
    return str(status)


def _store(game: Game, values: dict[str, object]) -> None:
    GameAnalysis.objects.update_or_create(
        game=game,
        defaults={
            "won": False,
            "winnable": None,
            **_NO_SLIP,
            **values,
            "version": ANALYSIS_VERSION,
            "task_id": "",
            "computed_at": timezone.now(),
        },
    )
