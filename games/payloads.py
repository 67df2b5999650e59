"""What the games API answers, each shape declared once as a ``TypedDict`` and built by one
function. The API's schema is derived from these declarations (``core.schema``), and a
test validates live responses against that schema: a new field is one edit here.

This module only shapes data: it keeps nothing and writes nothing. A record's JSON is built by
``games.pool_jobs.record_dict`` (it must run in the solver pool, without Django): a game's record is
served by ``games.records``, which decides where it is built and keeps it; a daily deal's solution
is shaped here by the same builder (:func:`line_record_dict`).

What a payload may show is decided here, in one place:
- ``state`` is always the engine's ``player_view()`` — never a stock card, never a reserve card
  below its top;
- ``code`` is ``null`` for a daily deal until its UTC day is over;
- ``full_state`` (the engine's ``full_view()``, every card) appears only once the game is over
  and its code is public; otherwise it is ``null``;
- ``safe_home`` (a card no play can need elsewhere, to go home by itself) reads only the
  player view;
- ``verdict`` (what the solver already said of the position: an outcome and an undo count, no
  move) is looked up only for a practice game in progress — a daily attempt's is always ``null``.

Every builder takes ``today`` (the current UTC date) and shows a daily attempt whose day is over
as closed (``Game.apply_day_end``, in memory: reads never write).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Annotated, Literal, NotRequired, TypedDict, cast

from core.formats import IsoDate, IsoDateTime, iso
from games import pool_jobs, services
from games.engine import Canfield, FullView, PlayerView
from games.engine.auto import safe_home
from games.models import Game

Kind = Literal["practice", "daily"]
Status = Literal["in_progress", "won", "resigned"]
Result = Annotated[
    Literal["in_progress", "won", "resigned", "closed"],
    "'closed': a daily attempt closed as it stood when its day ended.",
]


class UndoDict(TypedDict):
    """Where undo leads back to the last position of the game that the solver proves can still be
    won; every position between is proved lost."""

    actions: Annotated[int, "Undos from this position: 1 to the game's undo depth."]
    ply: Annotated[int, "The game's ply after those undos (each undo is an action)."]


Outcome = Annotated[
    Literal["win", "no_win", "unknown"],
    "'win': a winning line exists (proved); 'no_win': none exists (proved: every reachable "
    "position searched); 'unknown': the solver could not tell in time.",
]


class VerdictDict(TypedDict):
    """What the solver says of a practice game's position, without a move: whether it can still
    be won, and for a lost one where undo leads back to a position that can."""

    outcome: Outcome
    proved: Annotated[bool, "Whether the outcome is a proof: true for win and no_win."]
    undo: Annotated[
        UndoDict | None,
        "With no_win: the last earlier position proved winnable that undo reaches; null when "
        "none was proved within the search's time or the undo history has none.",
    ]


class GameSummary(TypedDict):
    """What a game and its record both say of it."""

    id: int
    kind: Kind
    code: Annotated[str | None, "null for a daily deal until its day is over."]
    draw: Literal[1, 3]
    variant: Literal["app", "classic"]
    status: Status
    result: Result
    player: str
    daily_date: Annotated[IsoDate | None, "The UTC day of a daily attempt."]
    score: int


class GameDict(GameSummary):
    ply: Annotated[int, "Actions logged, undos included: the next action's position."]
    actions: Annotated[int, "Same as ply: every action logged, as the board counts them."]
    undos: int
    foundation_cards: int
    started_at: Annotated[IsoDateTime | None, "Time of the first action."]
    finished_at: IsoDateTime | None
    state: PlayerView
    full_state: Annotated[
        FullView | None, "Every card; only for a finished game whose code is public."
    ]
    verdict: Annotated[
        VerdictDict | None,
        "A practice game in progress: what the solver already said of this position (by a hint "
        "or GET .../verdict/), or null when it has not been asked (or the position is lost and "
        "its way back was found from another past). Always null for a daily attempt.",
    ]
    safe_home: Annotated[
        str | None,
        "A game in progress: the move (a token) of a card safe to send to its foundation — one "
        "no play can need elsewhere (games.engine.auto) — for the page's 'cards home by "
        "themselves' setting to play; null when there is none, and for a finished game.",
    ]


class PlayedGameDict(GameDict):
    applied: Annotated[str | None, "The token logged for this request; null if a tap did nothing."]


class LogEntryDict(TypedDict):
    ply: Annotated[int, "The position it was played in (0 = the deal)."]
    token: str
    score: Annotated[int, "Score after the action."]


class RecordDict(GameSummary):
    moves: Annotated[list[LogEntryDict], "The log: every action, undos included, in order."]
    text: Annotated[str, "The record in text notation (docs/notation.md)."]
    states: NotRequired[
        Annotated[list[PlayerView], "With ?states=1: the player's view at ply 0, 1, … N."]
    ]


class HintDict(TypedDict):
    """A hint: the next action of a winning line and the line's length (``win``); or, when the
    solver could not tell in time, the best move it found (``unknown``, not proved); or none
    (``no_win``, proved), with where undo leads back to a position that can still be won."""

    outcome: Outcome
    action: Annotated[
        str | None,
        "The action to play (a token): with win, the next of a winning line; with unknown, the "
        "best move found, not proved (null only if no action is legal); null with no_win.",
    ]
    remaining: Annotated[
        int | None, "With win: the winning line's length, this action included; else null."
    ]
    proved: Annotated[bool, "Whether the outcome is a proof: true for win and no_win."]
    undo: Annotated[UndoDict | None, "With no_win: as in a verdict (Verdict.undo); else null."]


def _undo_dict(found: services.Hint) -> UndoDict | None:
    if found.undo is None:
        return None
    return {"actions": found.undo.actions, "ply": found.undo.ply}


def hint_dict(found: services.Hint) -> HintDict:
    return {
        "outcome": found.outcome,
        "action": found.action,
        "remaining": found.remaining if found.outcome == "win" else None,
        "proved": found.proved,
        "undo": _undo_dict(found),
    }


def verdict_dict(found: services.Hint) -> VerdictDict:
    """A solver's answer without its move (:func:`hint_dict` less ``action`` and ``remaining``)."""
    return {"outcome": found.outcome, "proved": found.proved, "undo": _undo_dict(found)}


def summary(game: Game, today: dt.date) -> GameSummary:
    """What a game and its record both say of ``game`` as it stands on ``today``."""
    game.apply_day_end(today)
    return {
        "id": game.pk,
        "kind": game.kind,  # type: ignore[typeddict-item]
        "code": game.code if game.code_is_public(today) else None,
        "draw": game.draw,  # type: ignore[typeddict-item]
        "variant": game.variant,  # type: ignore[typeddict-item]
        "status": game.status,  # type: ignore[typeddict-item]
        "result": game.result,  # type: ignore[typeddict-item]
        "player": game.owner.get_username(),
        "daily_date": game.daily_date.isoformat() if game.daily_date else None,
        "score": game.score,
    }


def game_dict(
    game: Game, today: dt.date, verdicts: Mapping[int, services.Hint] | None = None
) -> GameDict:
    """The Game JSON of ``game`` as it stands on ``today`` (the current UTC date). ``verdicts``:
    the kept answers of a page of games (``services.kept_verdicts``: one query for the page),
    when the caller has looked them up; else this game's is looked up (one query, for a practice
    game in progress)."""
    views = services.views_of(game)
    head = summary(game, today)
    if verdicts is None:
        verdicts = services.kept_verdicts([game])
    kept = verdicts.get(game.pk)
    return {
        **head,
        "ply": game.ply,
        "actions": game.ply,
        "undos": game.undos,
        "foundation_cards": game.foundation_cards,
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
        "state": views["player"],
        "full_state": (
            views["full"] if head["code"] is not None and not game.is_in_progress else None
        ),
        "verdict": None if kept is None else verdict_dict(kept),
        "safe_home": safe_home(views["player"]) if game.is_in_progress else None,
    }


def played_game_dict(result: services.PlayResult, today: dt.date) -> PlayedGameDict:
    """The game's payload after an action, with ``applied``; its verdict looked up with the
    action's engine (not restored again)."""
    game = result.game
    engines = None if result.engine is None else {game.pk: result.engine}
    verdicts = services.kept_verdicts([game], engines)
    return {**game_dict(game, today, verdicts), "applied": result.applied}


#: The player a solver's line is recorded as (no account name has parentheses).
SOLVER = "(solver)"


def line_record_dict(
    code: str, tokens: list[str], day: dt.date, states: bool = False
) -> RecordDict:
    """The record of a winning line of ``code`` played on ``day`` by the solver (a daily deal's
    solution, shown once its day is over), in the shape of a game's record, built by the same
    builder (``games.pool_jobs.record_dict``): ``id`` 0, kind ``daily``, player ``(solver)``."""
    engine = Canfield(code)
    log = [
        (ply, action.token(), engine.score) for ply, action in enumerate(engine.replaying(tokens))
    ]
    result: Literal["won", "in_progress"] = "won" if engine.is_won() else "in_progress"
    deal = engine.code
    head: GameSummary = {
        "id": 0,
        "kind": "daily",
        "code": str(deal),
        "draw": deal.draw,
        "variant": deal.variant,
        "status": result,
        "result": result,
        "player": SOLVER,
        "daily_date": day.isoformat(),
        "score": engine.score,
    }
    fields = {
        "code": str(deal),
        "player": SOLVER,
        "date": day.isoformat(),
        "result": result,
        "score": engine.score,
    }
    return cast(RecordDict, pool_jobs.record_dict(head, log, fields, states))
