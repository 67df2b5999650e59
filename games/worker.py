"""What runs in the solver pool's worker processes (``games.pool``): pure functions of the rules
engine, with no Django import, so that a worker starts in a fraction of a second and never
touches the database.

Each function takes and returns plain, picklable values:

- :func:`hint_line`: solve a game's position and return the whole winning line, each step with
  the key of the position it is played from, so that the web process can answer every later hint
  along the line with a lookup;
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine import Action, Canfield, DealCode, GameRecord
from games.engine import state as engine_state
from games.engine.certify import Certified, certify
from games.engine.difficulty import Band, Difficulty, measure
from games.engine.solver import Outcome, solve

#: gzip level of stored records: level 6 is within a few per cent of 9 on game records, at a
#: third of its time.
GZIP_LEVEL = 6


@dataclass(frozen=True)
class HintStep:
    """One position of a hinted line: its key, the action to play there, and the line's length
    from there (this action included). For ``no_win`` the one step has no action."""

    digest: str
    action: str | None
    remaining: int | None


@dataclass(frozen=True)
class HintLine:
    outcome: Outcome
    #: For ``win``, a step for every position of the line but the last (the won position); for
    #: ``no_win``, the one position solved; for ``unknown``, nothing.
    steps: tuple[HintStep, ...]
    #: The worker's process id: where the search ran.
    pid: int


def hint_line(code: str, state: str, seconds: float) -> HintLine:
    """Solve the position stored as ``state`` (``games.engine.state.dump``) of a game of
    ``code`` within ``seconds``, and walk the winning line found."""
    engine = engine_state.load(code, state)
    result = solve(engine, seconds=seconds)
    if result.outcome == "no_win":
        return HintLine("no_win", (HintStep(engine.position_digest(), None, None),), os.getpid())
    if result.outcome != "win":
        return HintLine(result.outcome, (), os.getpid())
    steps = []
    length = len(result.line)
    for n, action in enumerate(result.line):
        steps.append(HintStep(engine.position_digest(), action.token(), length - n))
        engine.push(action)
    return HintLine("win", tuple(steps), os.getpid())


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
RECORD_VERSION = 1


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
    answers about what is ahead from the hidden cards too when ``sees_hidden``: a practice game's,
    as its player saw them)."""
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
    the parent (``canfield_site.lifeline``). Not ``PR_SET_PDEATHSIG``: that fires when the parent
    *thread* that started the worker ends (a request's thread), not the process."""
    from canfield_site.lifeline import exit_with_parent  # (standard library only, like this)

    os.nice(nice)
    exit_with_parent()
