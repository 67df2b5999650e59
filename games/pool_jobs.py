"""What runs in the solver pool's worker processes (``games.pool``): pure functions of the rules
engine, with no Django import, so that a worker starts in a fraction of a second and never
touches the database.

Each function takes and returns plain, picklable values:

- :func:`hint_line`: solve a game's position and return the whole winning line, each step with
  the key of the position it is played from, so that the web process can answer every later hint
  along the line with a lookup; or the best move found when it cannot tell; or, for a position
  proved lost, the walk back to the last position undo reaches that can still be won;
- :func:`lost_outlook`: that walk back alone, for a position already known to be lost;
- :func:`better_line`: a winning line shorter than the one a hint found first (a hint answers
  with the first line proved, and the worker tier improves it afterwards: ``games.tasks``);
- :func:`prove_deal`: whether a random deal can be won, for the pool of winnable deals
  (``games.winnable``);
- :func:`certify_day`: find a day's certified deal (``games.engine.certify``), in the day's band
  of difficulty;
- :func:`measure_deal`: the difficulty of a deal (``games.engine.difficulty``);
- :func:`record_dict`: a game's record — the one builder of the record's shape, for a game
  (:func:`build_record`) and for a daily deal's solution (``games.payloads.line_record_dict``);
- :func:`build_record`: a game's record as it is served and kept: compressed JSON, its ETag, and
  the version of its shape (:data:`RECORD_VERSION`).

Every one of them ends by a deadline of its own (the solver's budget, the length of a game), so a
worker is never held longer than its task's budget.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine import UNDO, Action, Canfield, DealCode, GameRecord
from games.engine import state as engine_state
from games.engine.certify import Certified, certify
from games.engine.difficulty import Band, Difficulty, measure
from games.engine.solver import Outcome, SolveResult, last_winnable, shorten, solve, undo_key

#: gzip level of stored records: level 6 is within a few per cent of 9 on game records, at a
#: third of its time.
GZIP_LEVEL = 6


@dataclass(frozen=True)
class HintStep:
    """What the solver found for one position (by its key, ``Canfield.position_digest``): for
    ``win``, the action a winning line plays there and the line's length from there (this action
    included); for ``unknown``, the best move the search found (not proved), or none; for
    ``no_win``, no action, and how many undos back the last position that can still be won lies
    (``undo``, or None: none found) for the way back of key ``undo_key``
    (``games.engine.solver.undo_key``)."""

    digest: str
    outcome: Outcome
    action: str | None
    remaining: int | None
    undo: int | None = None
    undo_key: str = ""


@dataclass(frozen=True)
class HintLine:
    #: The outcome of the position asked about.
    outcome: Outcome
    #: The position asked about first. For ``win``, a step for every position of the line but the
    #: last (the won position); for ``unknown``, the one position; for ``no_win``, the position
    #: and every position walked back from it (:func:`lost_outlook`).
    steps: tuple[HintStep, ...]
    #: The worker's process id: where the search ran.
    pid: int


def hint_line(code: str, state: str, seconds: float) -> HintLine:
    """Solve the position stored as ``state`` (``games.engine.state.dump``) of a game of
    ``code``, all within ``seconds``: walk the first winning line found — at once, not shortened
    (:func:`better_line` shortens it afterwards, in the worker tier); or give the best move found
    when the solver cannot tell; or, when the position is proved lost, walk back with the rest of
    the time (:func:`lost_outlook`)."""
    deadline = time.monotonic() + seconds
    engine = engine_state.load(code, state)
    result = solve(engine, seconds=seconds, shorten=False)
    if result.outcome == "no_win":
        steps = _walk_back(engine, deadline - time.monotonic())
    else:
        steps = _steps(engine, result)
    return HintLine(result.outcome, steps, os.getpid())


def better_line(
    code: str, state: str, line: Sequence[str], seconds: float, positions: int | None = None
) -> tuple[HintStep, ...]:
    """The steps of a winning line shorter than ``line`` (tokens, a winning line from the
    position stored as ``state`` of a game of ``code``), searched within ``seconds`` (and
    ``positions``, if given); none when no shorter line turned up
    (``games.engine.solver.shorten``)."""
    engine = engine_state.load(code, state)
    shorter = shorten(engine, line, seconds=seconds, max_positions=positions)
    if len(shorter) >= len(line):
        return ()
    scratch = engine.copy()
    steps = []
    for n, action in enumerate(shorter):
        steps.append(HintStep(scratch.position_digest(), "win", action.token(), len(shorter) - n))
        scratch.push(action)
    return tuple(steps)


def prove_deal(code: str, positions: int) -> tuple[Outcome, tuple[str, ...]]:
    """What the solver proves of deal ``code`` from its start within ``positions`` positions:
    ``win`` as soon as a winning line is found, with the line (not shortened), ``no_win``, or
    ``unknown`` (``games.winnable``)."""
    result = solve(code, max_positions=positions, shorten=False)
    return result.outcome, tuple(result.tokens())


def lost_outlook(code: str, state: str, seconds: float) -> HintLine:
    """For the position stored as ``state`` of a game of ``code``, known to be lost: the last
    position before it that undo reaches and the solver proves winnable, within ``seconds``
    (``games.engine.solver.last_winnable``). Keeps what the walk learns on the way: a step for
    the position, one for each position walked (lost, each with its own way back to the same
    target), and the winning line of the target, or the best move of the position the walk could
    not decide."""
    engine = engine_state.load(code, state)
    return HintLine("no_win", _walk_back(engine, seconds), os.getpid())


def _steps(engine: Canfield, result: SolveResult) -> tuple[HintStep, ...]:
    """The steps of ``result`` (a win, or unknown), found from ``engine``'s position (only read):
    the winning line's positions, or the one position with the best move found."""
    if result.outcome == "unknown":
        best = result.best_action
        token = None if best is None else best.token()
        return (HintStep(engine.position_digest(), "unknown", token, None),)
    scratch = engine.copy()
    steps = []
    length = len(result.line)
    for n, action in enumerate(result.line):
        steps.append(HintStep(scratch.position_digest(), "win", action.token(), length - n))
        scratch.push(action)
    return tuple(steps)


def _walk_back(engine: Canfield, seconds: float) -> tuple[HintStep, ...]:
    """The steps of the lost position of ``engine`` and of the positions walked back from it."""
    walk = last_winnable(engine, seconds=max(seconds, 0.0))
    scratch = engine.copy()
    steps: list[HintStep] = []
    for back in range(len(walk.results) + 1):  # (0: the position itself)
        if back:
            scratch.push(UNDO)
            result = walk.results[back - 1]
            if result.outcome != "no_win":
                steps += _steps(scratch, result)
                break
        undo = None if walk.undos is None else walk.undos - back
        steps.append(
            HintStep(scratch.position_digest(), "no_win", None, None, undo, undo_key(scratch))
        )
    return tuple(steps)


def certify_day(
    secret: bytes,
    day: dt.date,
    positions: int,
    shorten_positions: int,
    candidates: int,
    seconds: float,
    band: Band,
    games: int,
) -> Certified:
    """The certified deal of ``day``, its difficulty in ``band`` measured in ``games`` games per
    level (see ``games.engine.certify.certify``)."""
    return certify(
        secret,
        day,
        positions=positions,
        shorten_positions=shorten_positions,
        candidates=candidates,
        band=band,
        games=games,
        seconds=seconds,
    )


def measure_deal(code: str, games: int) -> Difficulty:
    """The difficulty of deal ``code``: ``games`` simulated games at each level."""
    return measure(code, games)


#: The version of a record's shape: of :func:`record_dict`, of the engine's player view that its
#: ``states`` hold (raised with ``games.models.VIEWS_VERSION``) and of its text notation. Raise it
#: whenever a record's JSON changes: a kept record (``games.models.StoredRecord``) of another
#: version is never served, it is built again and replaced (``games.records``).
RECORD_VERSION = 2


@dataclass(frozen=True)
class BuiltRecord:
    """A record as served: gzip-compressed JSON and a validator of its content."""

    gzipped: bytes
    etag: str
    size: int


def record_dict(
    head: Mapping[str, Any],
    log: Sequence[tuple[int, str, int]],
    record: Mapping[str, Any],
    states: bool,
    sees_hidden: bool = False,
) -> dict[str, Any]:
    """The record of a game in the API's shape (``games.payloads.RecordDict``): ``head`` (the
    fields a game and its record share, as the API shows them), its ``log`` (ply, token, score
    after each action) as ``moves``, the text notation made from ``record`` (``GameRecord``'s
    fields: code, player, date, result, score) and the log's actions — its ``[Code]`` header left
    out when ``head["code"]`` is null — and, with ``states``, the player's view at every ply (their
    answer about Finish from the hidden cards too when ``sees_hidden``: a practice game's, as its
    player saw them)."""
    actions = tuple(Action.parse(token) for _, token, _ in log)
    code = DealCode.parse(record["code"])
    text = GameRecord(**{**record, "code": code, "actions": actions}).text()
    if head["code"] is None:
        text = "".join(line for line in text.splitlines(True) if not line.startswith("[Code "))
    payload: dict[str, Any] = {
        **head,
        "moves": [{"ply": ply, "token": token, "score": score} for ply, token, score in log],
        "text": text,
    }
    if states:
        engine = Canfield(code)
        views = [engine.player_view(sees_hidden=sees_hidden)]
        views += [engine.player_view(sees_hidden=sees_hidden) for _ in engine.replaying(actions)]
        payload["states"] = views
    return payload


def build_record(
    head: Mapping[str, Any],
    log: Sequence[tuple[int, str, int]],
    record: Mapping[str, Any],
    states: bool,
    sees_hidden: bool = False,
) -> BuiltRecord:
    """The record :func:`record_dict` builds, serialised and compressed as it is served and kept
    (of shape :data:`RECORD_VERSION`)."""
    payload = record_dict(head, log, record, states, sees_hidden)
    body = json.dumps(payload, separators=(",", ":")).encode()
    etag = hashlib.sha256(body).hexdigest()[:32]
    return BuiltRecord(gzip.compress(body, GZIP_LEVEL, mtime=0), etag, len(body))


def nothing() -> None:
    """A task that does nothing: it starts the workers."""


def start_worker(nice: int) -> None:
    """The start of a solver pool's worker process (``games.pool``'s initializer): it yields the
    CPU to the web processes (``nice``, ``SOLVER_NICE``), and ends with its web process — even one
    killed with ``kill -9``, which leaves no chance to stop its children: a daemon thread watches
    the parent (``core.lifeline``). Not ``PR_SET_PDEATHSIG``: that fires when the parent
    *thread* that started the worker ends (a request's thread), not the process."""
    from core.lifeline import exit_with_parent  # (standard library only, like this)

    os.nice(nice)
    exit_with_parent()
