"""What the games API answers, each shape declared once as a ``TypedDict`` and built by one
function. The API's schema is derived from these declarations (``canfield_site.schema``), and a
test validates live responses against that schema: a new field is one edit here.

This module only shapes data: it keeps nothing and writes nothing. A record's JSON is built by
``games.worker.record_dict`` (it must run in the solver pool, without Django): a game's record is
served by ``games.records``, which decides where it is built and keeps it; a daily deal's solution
is shaped here by the same builder (:func:`line_record_dict`).

What a payload may show is decided here, in one place:
- ``state`` is always the engine's ``player_view()`` — never a stock card, never a reserve card
  below its top;
- ``code`` is ``null`` for a daily deal until its UTC day is over;
- ``full_state`` (the engine's ``full_view()``, every card) appears only once the game is over
  and its code is public; otherwise it is ``null``.

Every builder takes ``today`` (the current UTC date) and shows a daily attempt whose day is over
as closed (``Game.apply_day_end``, in memory: reads never write).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal, NotRequired, TypedDict, cast

from canfield_site.formats import IsoDate, IsoDateTime, iso
from games import services, worker
from games.engine import Canfield, FullView, PlayerView
from games.models import Game

Kind = Literal["practice", "daily"]
Status = Literal["in_progress", "won", "resigned"]
Result = Annotated[
    Literal["in_progress", "won", "resigned", "closed"],
    "'closed': a daily attempt closed as it stood when its day ended.",
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
    """The next action of a winning line from the game's position and the line's length
    (``win``); or ``no_win``: no win exists from here (a proof); or ``unknown``: the solver could
    not tell in time."""

    outcome: Literal["win", "no_win", "unknown"]
    action: NotRequired[Annotated[str, "With win: the next action's token."]]
    remaining: NotRequired[
        Annotated[int, "With win: the winning line's length, this action included."]
    ]


def hint_dict(found: services.Hint) -> HintDict:
    if found.outcome == "win" and found.action is not None and found.remaining is not None:
        return {"outcome": "win", "action": found.action, "remaining": found.remaining}
    return {"outcome": found.outcome}


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


def game_dict(game: Game, today: dt.date) -> GameDict:
    """The Game JSON of ``game`` as it stands on ``today`` (the current UTC date)."""
    views = services.views_of(game)
    head = summary(game, today)
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
    }


def played_game_dict(result: services.PlayResult, today: dt.date) -> PlayedGameDict:
    return {**game_dict(result.game, today), "applied": result.applied}


#: The player a solver's line is recorded as (no account name has parentheses).
SOLVER = "(solver)"


def line_record_dict(
    code: str, tokens: list[str], day: dt.date, states: bool = False
) -> RecordDict:
    """The record of a winning line of ``code`` played on ``day`` by the solver (a daily deal's
    solution, shown once its day is over), in the shape of a game's record, built by the same
    builder (``games.worker.record_dict``): ``id`` 0, kind ``daily``, player ``(solver)``."""
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
    return cast(RecordDict, worker.record_dict(head, log, fields, states))
