"""The only code that changes games. Views, websocket consumers, management commands and the
leaderboard all call these functions; nothing else writes a ``Game`` or a ``Move``.

Every change happens in one transaction with the game's row locked (``select_for_update``; SQLite
serialises writers anyway), checks the action with the rules engine, appends it to the move log and
refreshes the cached counters and snapshot from the engine. The engine is rebuilt from the deal code
and the logged tokens on each action: the engine replays ~100k actions a second, so a game of a few
hundred actions costs a few milliseconds, and the cache can never drift from the log. Signals
(``games.signals``) go out once the transaction has committed.

Errors are :class:`GameError` with a machine code and the HTTP status the API answers with.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from canfield_site.api_errors import ApiError
from games import signals
from games.engine import (
    Action,
    DealCode,
    GameRecord,
    IllegalAction,
    InvalidCode,
    NotationError,
)
from games.engine import Game as Engine
from games.models import Game, Move

User: TypeAlias = AbstractBaseUser | AnonymousUser
#: A tap: ``{"tap": "T2", "index": 0, "double_click": True}``; index ``None`` (or absent) is the
#: pile's top card, and double_click defaults to true.
Tap: TypeAlias = Mapping[str, Any]


class GameError(ApiError):
    """A refused request; the API answers ``status`` with ``{"code", "message", **extra}``.

    ``GameError(409, "stale_ply", "…", ply=12)``. A subclass of the site's ``ApiError``, so any
    view calling a service answers in the API's error format without catching anything.
    """


def not_found() -> GameError:
    return GameError(404, "not_found", "No such game.")


@dataclass(frozen=True)
class PlayResult:
    """What :func:`play` did: ``applied`` is the logged token, or ``None`` for a tap that did
    nothing; ``replayed`` is true when the request repeated the last applied action and was
    answered again without applying it twice."""

    game: Game
    applied: str | None
    replayed: bool = False


# --- time -------------------------------------------------------------------------------------


def utc_today(now: dt.datetime | None = None) -> dt.date:
    return (now or timezone.now()).astimezone(dt.UTC).date()


def day_end(day: dt.date) -> dt.datetime:
    """The instant a UTC day ends: midnight UTC at the start of the next day."""
    return dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC)


# --- reading ----------------------------------------------------------------------------------


def load_engine(game: Game) -> Engine:
    """The engine's game for ``game``, rebuilt from its deal code and its move log."""
    engine = Engine(game.deal_code)
    for token in game.moves.order_by("ply").values_list("token", flat=True):
        engine.push(Action.parse(token))
    return engine


def snapshot_of(engine: Engine) -> dict[str, Any]:
    return {"player": engine.player_view(), "full": engine.full_view()}


def find_game(game_id: int) -> Game | None:
    """Any user's game by id (for the caller's own permission check), or ``None``."""
    return Game.objects.select_related("owner").filter(pk=game_id).first()


def get_game(game_id: int, user: User) -> Game:
    """The user's own game, or ``GameError`` 404; a daily game whose day ended is closed first."""
    game = find_game(game_id)
    if game is None or not user.is_authenticated or game.owner_id != user.pk:
        raise not_found()
    close_expired_daily(game)
    return game


def games_of(user: AbstractBaseUser) -> QuerySet[Game]:
    """The user's games, newest first (their daily games whose day ended are closed first)."""
    close_expired_dailies(owner=user)
    return Game.objects.filter(owner=user).select_related("owner")


def can_view_record(user: User, game: Game) -> bool:
    """Who may read a game's record (its move log): its owner, always. Anyone else: a practice
    game once it is over; a daily game once its day is over; a daily game of today once their
    own ranked attempt at today's deal is over (PRODUCT.md, "Fair play")."""
    if user.is_authenticated and game.owner_id == user.pk:
        return True
    if not game.is_daily:
        return not game.is_in_progress
    if game.day_is_over(utc_today()):
        return True
    return (
        user.is_authenticated
        and Game.objects.filter(owner_id=user.pk, kind=Game.Kind.DAILY, daily_date=game.daily_date)
        .exclude(status=Game.Status.IN_PROGRESS)
        .exists()
    )


def game_record(game: Game, tokens: Iterable[str] | None = None) -> GameRecord:
    """The engine's record of ``game``: code, player, date, result, score and every action
    (``tokens``: the logged tokens, when the caller has already read them)."""
    if tokens is None:
        tokens = game.moves.order_by("ply").values_list("token", flat=True)
    day = game.daily_date or (game.started_at or game.created_at).astimezone(dt.UTC).date()
    return GameRecord(
        code=game.deal_code,
        actions=tuple(Action.parse(token) for token in tokens),
        player=game.owner.get_username(),
        date=day.isoformat(),
        result=game.result,
        score=game.score,
    )


def record(game: Game, today: dt.date | None = None) -> dict[str, Any]:
    """The game's record as the API gives it: JSON fields, the move log, and the text notation.

    A daily deal's code is left out — ``None``, and no ``Code`` header in the text — until its
    day is over.
    """
    moves = list(game.moves.order_by("ply").values_list("ply", "token", "score_after"))
    text = game_record(game, [token for _, token, _ in moves]).text()
    code_public = game.code_is_public(today or utc_today())
    if not code_public:
        text = "".join(line for line in text.splitlines(True) if not line.startswith("[Code "))
    return {
        "id": game.pk,
        "code": game.code if code_public else None,
        "draw": game.draw,
        "variant": game.variant,
        "player": game.owner.get_username(),
        "kind": game.kind,
        "daily_date": game.daily_date.isoformat() if game.daily_date else None,
        "status": game.status,
        "result": game.result,
        "score": game.score,
        "moves": [{"ply": ply, "token": token, "score": score} for ply, token, score in moves],
        "text": text,
    }


def states(game: Game) -> list[dict[str, Any]]:
    """The player's view after each ply, from the deal (index 0) to the last action."""
    engine = Engine(game.deal_code)
    views = [engine.player_view()]
    for token in game.moves.order_by("ply").values_list("token", flat=True):
        engine.push(Action.parse(token))
        views.append(engine.player_view())
    return views


# --- changing ---------------------------------------------------------------------------------


def _on_commit_signals(game: Game, finished: bool) -> None:
    def send() -> None:
        signals.standing_changed.send(sender=Game, game=game)
        if finished:
            signals.game_finished.send(sender=Game, game=game)

    transaction.on_commit(send)


def _sync(game: Game, engine: Engine) -> None:
    """Copy the engine's counters and views into the cached fields of ``game`` (not saved)."""
    game.score = engine.score
    game.ply = game.actions = engine.ply
    game.undos = engine.undos
    game.foundation_cards = engine.foundation_cards
    game.snapshot = snapshot_of(engine)


def new_game(
    owner: AbstractBaseUser,
    code: str | DealCode | None = None,
    draw: int | None = None,
    variant: str | None = None,
    kind: str = Game.Kind.PRACTICE,
    daily_date: dt.date | None = None,
) -> Game:
    """Start a game. Without ``code`` a random deal is dealt (draw 3 and app rules unless
    given). With ``code``, ``draw`` and ``variant`` default to the code's; given explicitly they
    replace them — the same layout played another way, as the deal format allows.

    A daily game needs ``code`` and ``daily_date``; a second one for the same owner and day is
    ``GameError`` 409 ``attempt_exists``. A bad code is 400 ``invalid_code``.
    """
    try:
        if code is None:
            deal = DealCode.random(draw or 3, variant or "app")  # type: ignore[arg-type]
        else:
            deal = code if isinstance(code, DealCode) else DealCode.parse(code)
            if draw is not None or variant is not None:
                deal = DealCode(
                    deal.number,
                    draw or deal.draw,  # type: ignore[arg-type]
                    variant or deal.variant,  # type: ignore[arg-type]
                )
    except InvalidCode as exc:
        raise GameError(400, "invalid_code", str(exc)) from None
    if kind == Game.Kind.DAILY:
        if daily_date is None or code is None:
            raise ValueError("a daily game needs its code and its daily_date")
    elif kind == Game.Kind.PRACTICE:
        if daily_date is not None:
            raise ValueError("only a daily game has a daily_date")
    else:
        raise ValueError(f"unknown kind of game {kind!r}")

    engine = Engine(deal)
    game = Game(
        owner=owner,
        number=deal.number,
        draw=deal.draw,
        variant=deal.variant,
        kind=kind,
        daily_date=daily_date,
    )
    _sync(game, engine)
    try:
        with transaction.atomic():
            game.save()
            _on_commit_signals(game, finished=False)
    except IntegrityError:
        if kind == Game.Kind.DAILY:
            raise GameError(
                409, "attempt_exists", "You already have your ranked attempt at this daily deal."
            ) from None
        raise
    return game


def _locked(game_id: int, user: User) -> Game:
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None or not user.is_authenticated or game.owner_id != user.pk:
        raise not_found()
    return game


def _parse(token: str) -> Action:
    try:
        return Action.parse(token)
    except NotationError as exc:
        raise GameError(400, "bad_notation", str(exc)) from None


def _resolve(engine: Engine, action: str | Tap) -> Action | None:
    """The action a request names: a token, or a tap resolved by the engine (``None``: the tap
    does nothing). Raises ``GameError`` ``bad_notation`` for text that is not an action."""
    if isinstance(action, str):
        return _parse(action)
    try:
        return engine.tap(
            action["tap"],
            index=action.get("index"),
            double_click=bool(action.get("double_click", True)),
        )
    except NotationError as exc:
        raise GameError(400, "bad_notation", str(exc)) from None


def _game_over(game: Game) -> GameError:
    how = {"won": "is won", "resigned": "was resigned", "closed": "was closed when its day ended"}
    return GameError(409, "game_over", f"This game {how[game.result]}: it accepts no more actions.")


def _stale(game: Game, ply: int) -> GameError:
    return GameError(
        409,
        "stale_ply",
        f"The action was made in position {ply}, but the game is at position {game.ply}; "
        "reload the game.",
        ply=game.ply,
    )


def play(game_id: int, user: User, ply: int, action: str | Tap) -> PlayResult:
    """Apply one action — a token (``"R-T2"``, ``"U"`` to undo) or a tap dict — made by ``user``
    in position ``ply`` of game ``game_id``.

    ``ply == game.ply`` applies it. A request that repeats the last applied action
    (``ply == game.ply - 1`` and the same resolved token) is answered again with the current
    state, not applied twice. Any other ply is 409 ``stale_ply``. Errors: 404 ``not_found``
    (no such game, or not the user's), 409 ``game_over``, 400 ``bad_notation``,
    400 ``illegal_action`` (with the engine's reason).
    """
    if isinstance(action, str):
        _parse(action)  # malformed input is 400 whatever the game and position
    with transaction.atomic():
        game = _locked(game_id, user)
        if not close_expired_daily(game):
            return _play(game, ply, action)
    raise _game_over(game)  # closed just now: the closing is committed, the action refused


def _play(game: Game, ply: int, action: str | Tap) -> PlayResult:
    if game.ply > 0 and ply == game.ply - 1:
        return _replay(game, ply, action)
    if not game.is_in_progress:
        raise _game_over(game)
    if ply != game.ply:
        raise _stale(game, ply)

    engine = load_engine(game)
    resolved = _resolve(engine, action)
    if resolved is None:
        return PlayResult(game, None)
    try:
        engine.push(resolved)
    except IllegalAction as exc:
        raise GameError(400, "illegal_action", str(exc)) from None

    token = resolved.token()
    try:  # (no savepoint: on an error the whole transaction rolls back)
        Move.objects.create(game=game, ply=ply, token=token, score_after=engine.score)
    except IntegrityError:  # a concurrent writer got there first (the row lock prevents it)
        raise _stale(game, ply) from None
    _sync(game, engine)
    now = timezone.now()
    if game.started_at is None:
        game.started_at = now
    finished = engine.is_won()
    if finished:
        game.status = Game.Status.WON
        game.finished_at = now
    game.save()
    _on_commit_signals(game, finished)
    return PlayResult(game, token)


def _replay(game: Game, ply: int, action: str | Tap) -> PlayResult:
    """``ply`` is the position of the last logged action: the same action again is answered
    with the current state; anything else is stale."""
    last = game.moves.get(ply=ply).token
    if isinstance(action, str):
        resolved: Action | None = _parse(action)
    else:
        engine = load_engine(game)
        engine.pop()
        resolved = _resolve(engine, action)
    if resolved is not None and resolved.token() == last:
        return PlayResult(game, last, replayed=True)
    raise _stale(game, ply)


def resign(game: Game | int, user: User) -> Game:
    """End ``user``'s game as it stands: 409 ``game_over`` if it has already ended."""
    with transaction.atomic():
        game = _locked(game if isinstance(game, int) else game.pk, user)
        if game.is_in_progress and not close_expired_daily(game):
            game.status = Game.Status.RESIGNED
            game.finished_at = timezone.now()
            game.save(update_fields=["status", "finished_at"])
            _on_commit_signals(game, finished=True)
            return game
    raise _game_over(game)


def close_expired_daily(game: Game, today: dt.date | None = None) -> bool:
    """Close a daily attempt still in progress when its UTC day has ended: it stands as it is,
    with status ``resigned``, ``day_over`` set and ``finished_at`` at the day's end (so its time
    runs to the end of the day, whenever the closing happens). Returns whether it closed it.

    Safe without a lock: the update applies only while the row is still in progress.
    """
    if not game.is_in_progress or not game.day_is_over(today or utc_today()):
        return False
    assert game.daily_date is not None
    finished_at = day_end(game.daily_date)
    closed = Game.objects.filter(pk=game.pk, status=Game.Status.IN_PROGRESS).update(
        status=Game.Status.RESIGNED, day_over=True, finished_at=finished_at
    )
    if not closed:
        game.refresh_from_db()
        return False
    game.status = Game.Status.RESIGNED
    game.day_over = True
    game.finished_at = finished_at
    _on_commit_signals(game, finished=True)
    return True


def close_expired_dailies(
    today: dt.date | None = None, owner: AbstractBaseUser | None = None
) -> int:
    """Close every daily attempt (of ``owner``, if given) whose day has ended; returns how many.
    For a periodic job or a board read; the game endpoints also close lazily, one by one."""
    today = today or utc_today()
    expired = Game.objects.filter(
        kind=Game.Kind.DAILY, status=Game.Status.IN_PROGRESS, daily_date__lt=today
    )
    if owner is not None:
        expired = expired.filter(owner=owner)
    return sum(close_expired_daily(game, today) for game in expired.select_related("owner"))
