"""A game's record as it is served: its JSON (``games.payloads.RecordDict``, built by
``games.pool_jobs.record_dict``) compressed, with its ETag (``games.pool_jobs.BuiltRecord``). This
module decides when a record is built, where, and whether it is kept.

- A record that may still change — its game in progress, or a daily attempt whose code is
  hidden until its day is over — is built at every read, in the solver pool (``games.pool``: a
  5,000-action record with every state is 2 MB of JSON, never built on a web process's thread),
  and never kept.
- Once its game is over and its code public (:func:`is_final`) a record can never change: it is
  built once and kept (``StoredRecord``), with and without its states, each with the version of
  its shape (``games.pool_jobs.RECORD_VERSION``). A kept record of another version is never served:
  it is built again and replaces the old row.
- The worker tier builds it (:func:`keep`, the task ``games.tasks.keep_records``) as soon as the
  game is over and its code public — a practice game when it is won or resigned
  (``games.receivers``). A reader who comes before it is kept (or for a daily attempt, whose
  record nobody builds ahead) builds it in the solver pool, readers at once sharing one build,
  and keeps it.

Building is deterministic (the same log gives the same bytes), so whichever process stores a
record first, any other's build is the same record: a second store changes nothing.

A record names the game's current owner. A guest's game may still change owner (a guest who
signs up keeps their games: ``core.accounts.guests.adopt``), so a record naming a guest is never
kept (:func:`_keeps`): it is built at every read, and once the game is an account's, under the
account's name, and kept. (Kept records of a guest's games from before are forgotten when the
guest's games move: ``games.api.accounts.forget_records``.)
"""

from __future__ import annotations

import datetime as dt
from concurrent.futures import Future
from typing import Any

from django.utils import timezone

from core.accounts.guests import is_reserved
from games import pool, pool_jobs
from games.clock import utc_today
from games.models import Game, StoredRecord
from games.payloads import GameSummary, summary

#: The most seconds the pool may take to build one record (the longest game's, with every
#: state, takes under half a second).
RECORD_SECONDS = 30.0


def is_final(game: Game, today: dt.date) -> bool:
    """Can ``game``'s record no longer change on ``today``: is the game over and its code public?
    (A daily attempt still open after its day counts as over once its day's end is applied:
    ``Game.apply_day_end``, the caller's.)"""
    return not game.is_in_progress and game.code_is_public(today)


def record_of(game: Game, today: dt.date, states: bool = False) -> pool_jobs.BuiltRecord:
    """The game's record as served on ``today`` — without its ``[Code]`` while the code is
    hidden, and with ``states`` the player's view at every ply: the kept one, else built in the
    solver pool (and kept, if final)."""
    head = summary(game, today)
    if not _keeps(game, head, today):
        return pool.wait(_build_in_pool(game, head, states), RECORD_SECONDS)
    found = kept(game, states)
    if found is not None:
        return found
    key = ("record", game.pk, states)
    future, started = pool.shared(key, lambda: _kept_or_built(game, head, states))
    if not started:  # (the one who started the build stores it)
        return pool.wait(future, RECORD_SECONDS)
    try:
        built = pool.wait(future, RECORD_SECONDS)
        _store(game, states, built)
    finally:
        pool.forget(key)  # (stored, or failed: from now on a reader reads it, or builds anew)
    return built


def kept(game: Game, states: bool) -> pool_jobs.BuiltRecord | None:
    """The game's kept record of the current version, if there is one."""
    row = StoredRecord.objects.filter(
        game=game, states=states, version=pool_jobs.RECORD_VERSION
    ).first()
    return None if row is None else pool_jobs.BuiltRecord(bytes(row.body), row.etag, row.size)


def keep(game_id: int, today: dt.date | None = None) -> int:
    """Build and keep the records of game ``game_id``, with and without its states, if it is
    final (:func:`is_final`) and they are not kept yet in the current version; returns how many
    were built. Built here, in the calling process — the worker tier's, which is the background —
    not in the solver pool."""
    today = today or utc_today()
    game = Game.objects.select_related("owner").filter(pk=game_id).first()
    if game is None:
        return 0
    head = summary(game, today)
    if not _keeps(game, head, today):
        return 0
    missing = [states for states in (False, True) if kept(game, states) is None]
    if not missing:
        return 0
    log = _log(game)
    for states in missing:
        _store(game, states, pool_jobs.build_record(*_arguments(game, head, log, states)))
    return len(missing)


def _keeps(game: Game, head: GameSummary, today: dt.date) -> bool:
    """Whether ``game``'s record, as ``head`` names its player, is kept: it is final and names
    no guest — a guest's game may become an account's, and its record must then name the account.
    The name is the one read with the game, the one its record is built with: a build that read
    the game before it changed owner is not kept either."""
    return is_final(game, today) and not is_reserved(head["player"])


def _kept_or_built(game: Game, head: GameSummary, states: bool) -> Future[pool_jobs.BuiltRecord]:
    """The kept record (stored by a build that ended since the caller looked), else a build."""
    found = kept(game, states)
    if found is None:
        return _build_in_pool(game, head, states)
    done: Future[pool_jobs.BuiltRecord] = Future()
    done.set_result(found)
    return done


def _build_in_pool(game: Game, head: GameSummary, states: bool) -> Future[pool_jobs.BuiltRecord]:
    """Read the game's log and hand the building of its record to the solver pool."""
    return pool.submit(pool_jobs.build_record, *_arguments(game, head, _log(game), states))


def _log(game: Game) -> list[tuple[int, str, int]]:
    """The game's log: ply, token and score after, in order."""
    return list(game.log.order_by("ply").values_list("ply", "token", "score_after"))


def _arguments(
    game: Game, head: GameSummary, log: list[tuple[int, str, int]], states: bool
) -> tuple[dict[str, Any], list[tuple[int, str, int]], dict[str, Any], bool, bool]:
    """The arguments of ``pool_jobs.build_record`` for ``game`` as ``head`` shows it: plain values
    (the solver pool's processes have no Django, so no model's enumeration may be pickled)."""
    day = game.daily_date or (game.started_at or game.created_at).astimezone(dt.UTC).date()
    fields: dict[str, Any] = {
        "code": game.code,
        "player": head["player"],
        "date": day.isoformat(),
        "result": game.result,
        "score": game.score,
    }
    plain: dict[str, Any] = {k: str(v) if isinstance(v, str) else v for k, v in head.items()}
    return plain, log, fields, states, not game.is_daily


def _store(game: Game, states: bool, built: pool_jobs.BuiltRecord) -> None:
    """Keep ``built``: it replaces a kept record of another version, or is added — unless another
    process added it meanwhile (the same record: building is deterministic)."""
    values = {
        "body": built.gzipped,
        "etag": built.etag,
        "size": built.size,
        "version": pool_jobs.RECORD_VERSION,
    }
    replaced = (
        StoredRecord.objects.filter(game=game, states=states)
        .exclude(version=pool_jobs.RECORD_VERSION)
        .update(**values, created_at=timezone.now())
    )
    if not replaced:
        StoredRecord.objects.bulk_create(
            [StoredRecord(game=game, states=states, **values)], ignore_conflicts=True
        )
