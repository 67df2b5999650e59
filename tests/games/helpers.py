"""Helpers for the games tests.

Expected payloads are computed here from the rules engine, independently of the code under test:
a test replays the same tokens through ``games.engine.Canfield`` and compares the whole answer.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import tempfile
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.test import override_settings
from rest_framework.test import APIClient

from games import pool, services
from games.engine import Canfield
from games.engine.auto import safe_home
from games.engine.solver import solve
from games.models import Game
from tests.support import hold_until

#: The rules' worked example: a deal that is won by a line starting R-T2 R-F1 T2:2-T4.
CODE = "CF1-D3-AAAAACL"
WORKED_EXAMPLE = ["R-T2", "R-F1", "T2:2-T4"]


def iso(value: dt.datetime | None) -> str | None:
    """A datetime as the API writes it (ISO 8601, UTC as Z)."""
    if value is None:
        return None
    text = value.astimezone(dt.UTC).isoformat()
    return text.removesuffix("+00:00") + "Z"


def engine_after(code: str, tokens: Iterable[str]) -> Canfield:
    return Canfield.replay(code, list(tokens))


def expected_game(game: Game, tokens: list[str], **overrides: Any) -> dict[str, Any]:
    """The whole Game payload of ``game`` after ``tokens``, from the engine; the timestamps come
    from the stored row (the server's clock decides them). ``overrides`` replace keys."""
    game.refresh_from_db()
    engine = engine_after(game.code, tokens)
    in_progress = game.status == "in_progress"
    payload = {
        "id": game.pk,
        "kind": game.kind,
        "code": game.code,
        "draw": engine.code.draw,
        "variant": engine.code.variant,
        "status": "won" if engine.is_won() else "in_progress",
        "result": "won" if engine.is_won() else "in_progress",
        "player": game.owner.username,
        "daily_date": game.daily_date.isoformat() if game.daily_date else None,
        "ply": len(tokens),
        "score": engine.score,
        "actions": len(tokens),
        "undos": engine.undos,
        "foundation_cards": engine.foundation_cards,
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
        "state": engine.player_view(sees_hidden=game.kind == "practice"),
        "full_state": None if in_progress else engine.full_view(),
        "verdict": None,  # (nothing asked of the solver)
        "safe_home": safe_home(engine.player_view()) if in_progress else None,
    }
    payload.update(overrides)
    return payload


def act(client: APIClient, game_id: int, ply: int, **body: Any) -> Any:
    """POST /api/games/<id>/actions/ with ``{"ply": ply, **body}``."""
    return client.post(f"/api/games/{game_id}/actions/", {"ply": ply, **body}, format="json")


def play_tokens(game: Game, tokens: Iterable[str]) -> None:
    """Apply ``tokens`` through the service, as the game's owner."""
    for token in tokens:
        game.refresh_from_db()
        services.play(game.pk, game.owner, game.ply, token)
    game.refresh_from_db()


def winning_line(code: str = CODE) -> list[str]:
    """The solver's winning line of ``code``'s deal, as tokens (a list of the caller's own)."""
    return list(_winning_line(code))


@functools.cache
def _winning_line(code: str) -> tuple[str, ...]:
    """The search behind :func:`winning_line`, once per deal and test process: the solver is
    deterministic, and the search with its shortening costs about half a second, which dozens of
    tests and fixtures ask for."""
    result = solve(code, max_positions=20_000)
    assert result.outcome == "win"
    return tuple(result.tokens())


def not_found() -> dict[str, str]:
    return {"code": "not_found", "message": "No such game."}


def not_authenticated() -> dict[str, str]:
    return {
        "code": "not_authenticated",
        "message": "Authentication credentials were not provided.",
    }


def utc_today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


@contextmanager
def solver_pool(
    workers: int = 1,
    queue: int = 0,
    held: int = 1,
    budget: float | None = 60.0,
    hold: float = 60.0,
) -> Iterator[list[Future[None]]]:
    """A solver pool of ``workers`` and ``queue`` (made anew for the block), with ``held`` tasks
    holding it until the block ends (or for ``hold`` seconds), each declaring ``budget`` (what
    the pool believes: a worker due to be free that much later; ``None``, a short task of no
    declared budget): ``with solver_pool():`` the pool is full, and not due to be free within
    ``SOLVER_WAIT``. Yields the holding tasks' futures."""
    with (
        tempfile.TemporaryDirectory() as folder,
        override_settings(SOLVER_WORKERS=workers, SOLVER_QUEUE=queue),
    ):
        flag = os.path.join(folder, "release")
        pool.shutdown()
        holders = [pool.admit(budget).start(hold_until, flag, hold) for _ in range(held)]
        try:
            yield holders
        finally:
            Path(flag).touch()
            for holder in holders:
                holder.result(timeout=60)
            pool.shutdown()
