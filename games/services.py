"""The only code that changes games. Views, websocket consumers, management commands and the
leaderboard all call these functions; nothing else writes a ``Game`` or its log.

Every change checks the action with the rules engine, appends it to the log and refreshes the
cached counters, views and engine state from the engine, all or nothing: an action (:func:`play`,
the hot path) optimistically — the row read without a lock, then written only if it is still at
the ply read, in one statement on PostgreSQL (:func:`_store`) — and every other change, and an
action whose row moved on, in one transaction with the row locked (``select_for_update``; SQLite
serialises writers anyway). The log is the truth; an
action restores the engine from the state stored with the row (``Game.engine_state``, see
:func:`engine_of`) rather than replaying the whole log, so its cost does not grow with the game's
length, and a state that is missing, of an older version or of another ply is rebuilt from the
log. ``manage.py verify_games`` proves that every stored state equals a replay. The signal
``games.signals.standing_changed`` goes out once the change has committed.

Refusals are :class:`games.errors.GameError` with a machine code; the API and the consumers
decide what each code means to their clients.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import Any, TypeAlias, TypedDict

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import IntegrityError, connections, router, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.accounts.models import practice_is_private
from games import pool, pool_jobs, signals
from games.clock import utc_today
from games.engine import (
    Action,
    Canfield,
    Card,
    DealCode,
    FullView,
    GameRecord,
    IllegalAction,
    InvalidCode,
    NotationError,
    PlayerView,
)
from games.engine import state as engine_state
from games.engine.finish import finish_line
from games.engine.solver import Outcome, undo_key
from games.errors import GameError, engine_refusal, not_found
from games.models import VIEWS_VERSION, DealtDeck, Game, GameQuerySet, HintStep, LoggedAction

log = logging.getLogger(__name__)

#: Whoever makes a request: a player, or an anonymous visitor.
Viewer: TypeAlias = User | AnonymousUser
#: A tap: ``{"tap": "T2", "index": 0, "double_click": True}``; index ``None`` (or absent) is the
#: pile's top card, and double_click defaults to true.
Tap: TypeAlias = Mapping[str, Any]


@dataclass(frozen=True)
class PlayResult:
    """What :func:`play` did: ``applied`` is the logged token, or ``None`` for a tap that did
    nothing; ``replayed`` is true when the request repeated the last applied action and was
    answered again without applying it twice. ``engine`` is the engine at the game's position
    once played (``None`` for a replayed request), for the answer's lookups
    (:func:`kept_verdicts`): restoring it again from the state just stored would cost as much
    as the action's own restore."""

    game: Game
    applied: str | None
    replayed: bool = False
    engine: Canfield | None = field(default=None, compare=False, repr=False)


# --- reading ----------------------------------------------------------------------------------


def tokens_of(game: Game) -> list[str]:
    """The game's log as tokens, in order."""
    return list(game.log.order_by("ply").values_list("token", flat=True))


def load_engine(game: Game, tokens: Iterable[str] | None = None) -> Canfield:
    """The engine's game for ``game``, rebuilt from its deal code and its log (``tokens``: the
    logged tokens, when the caller has already read them)."""
    return Canfield.replay(game.deal_code, tokens_of(game) if tokens is None else tokens)


def engine_of(game: Game) -> Canfield:
    """The engine's game for ``game``: restored from its stored state when that state is of the
    current version and at the row's ply, else rebuilt from the log."""
    text = game.engine_state
    if text and engine_state.version_of(text) == engine_state.STATE_VERSION:
        try:
            engine = engine_state.load(game.deal_code, text)
        except engine_state.StateError:
            pass
        else:
            if engine.ply == game.ply:
                return engine
    return load_engine(game)


class GameViews(TypedDict):
    """What ``Game.views`` caches: the engine's views of the game's position."""

    player: PlayerView
    full: FullView


def views_from(engine: Canfield, sees_hidden: bool = False) -> GameViews:
    """``sees_hidden``: the player view's answer about Finish may use the hidden cards — for a
    practice game, never for a daily attempt (PRODUCT.md, "Fair play"; ``games.engine.finish``).
    The stuck notice answers from what the player sees either way."""
    return {"player": engine.player_view(sees_hidden=sees_hidden), "full": engine.full_view()}


def views_for(game: Game, engine: Canfield) -> GameViews:
    """The views of ``engine``'s position as ``game`` shows them (by its kind)."""
    return views_from(engine, sees_hidden=not game.is_daily)


def views_of(game: Game) -> GameViews:
    """The cached views of ``game``'s position; rebuilt from the log (not saved: reads never
    write) when they are of another version than the engine's current one."""
    if game.views_are_current():
        return game.views  # type: ignore[no-any-return]
    return views_for(game, load_engine(game))


def find_game(game_id: int) -> Game | None:
    """Any user's game by id (for the caller's own permission check), or ``None``."""
    return Game.objects.select_related("owner").filter(pk=game_id).first()


def get_game(game_id: int, user: Viewer) -> Game:
    """The user's own game, or ``GameError`` ``not_found``."""
    game = find_game(game_id)
    if game is None or not user.is_authenticated or game.owner_id != user.pk:
        raise not_found()
    return game


def games_of(user: User) -> GameQuerySet:
    """The user's games, newest first."""
    return Game.objects.filter(owner=user).select_related("owner")


def can_view_record(user: Viewer, game: Game) -> bool:
    """Who may read a game's record (its log, its views): its owner, always. Anyone else: a
    practice game once it is over, unless its player keeps their practice games private
    (``core.accounts.models.PlayerSettings``); a daily attempt once its UTC day is over — never
    before, even for a player whose own attempt is over (a second account could end one early and
    read the others'; PRODUCT.md, "Fair play"). Staff may read any (a fair-play review replays
    today's attempts)."""
    if _owner_or_staff(user, game):
        return True
    if not game.is_daily:
        return not game.is_in_progress and not practice_is_private(game.owner_id)
    return game.day_is_over(utc_today())


def can_watch(user: Viewer, game: Game, today: dt.date | None = None) -> bool:
    """Who may watch ``game`` as it is played (its spectators' socket, its page while it is in
    progress, the lists of games being played): its owner and staff; a practice game, anyone,
    unless its player keeps their practice games private; a daily attempt, anyone once its day
    is over, and before, only a player whose own attempt at that day's deal is over (PRODUCT.md,
    "Together": what they could learn from it can no longer help them). A watcher sees what the
    player sees, never a hidden card."""
    if _owner_or_staff(user, game):
        return True
    if not game.is_daily:
        return not practice_is_private(game.owner_id)
    today = today or utc_today()
    if game.day_is_over(today):
        return True
    return user.is_authenticated and own_attempt_is_over(user, game.daily_date, today)


def own_attempt_is_over(user: User | AnonymousUser, day: dt.date | None, today: dt.date) -> bool:
    """Whether ``user``'s own attempt at the daily deal of ``day`` has ended (won, resigned, or
    closed with its day)."""
    if not user.is_authenticated or day is None:
        return False
    own = Game.objects.filter(owner_id=user.pk, kind=Game.Kind.DAILY, daily_date=day).first()
    return own is not None and (not own.is_in_progress or own.day_is_over(today))


def _owner_or_staff(user: Viewer, game: Game) -> bool:
    return user.is_authenticated and (
        game.owner_id == user.pk or bool(getattr(user, "is_staff", False))
    )


def game_record(game: Game, tokens: Iterable[str] | None = None) -> GameRecord:
    """The engine's record of ``game``: code, player, date, result, score and every action
    (``tokens``: the logged tokens, when the caller has already read them)."""
    if tokens is None:
        tokens = tokens_of(game)
    day = game.daily_date or (game.started_at or game.created_at).astimezone(dt.UTC).date()
    return GameRecord(
        code=game.deal_code,
        actions=tuple(Action.parse(token) for token in tokens),
        player=game.owner.get_username(),
        date=day.isoformat(),
        result=game.result,
        score=game.score,
    )


# --- changing ---------------------------------------------------------------------------------


def _announce(game: Game) -> None:
    """Tell listeners (the leaderboard) once the transaction that changed ``game`` commits.
    Robust: the change is committed, so a listener that fails is logged and never turns the
    caller's answer into an error."""
    transaction.on_commit(
        lambda: signals.standing_changed.send(sender=Game, game=game), robust=True
    )


def _sync(game: Game, engine: Canfield) -> None:
    """Copy the engine's counters and views into the cached fields of ``game`` (not saved)."""
    game.score = engine.score
    game.ply = engine.ply
    game.undos = engine.undos
    game.foundation_cards = engine.foundation_cards
    game.views = views_for(game, engine)
    game.views_version = VIEWS_VERSION
    game.engine_state = engine_state.dump(engine)


#: Says whether a deck must not be played as practice: a deck equal, up to the game's
#: symmetries (``games.engine.symmetry``), to the deck of a daily deal that is not public yet
#: (today's, or a day dealt ahead), whatever its draw or rule set — a second account that scouted
#: today's deck must get no help from the server (no practice game, so no hint, no record and no
#: replay of it; PRODUCT.md, "Fair play"). The leaderboard registers one (``guard_decks``, from
#: its ``AppConfig.ready``): games never import it.
DeckGuard: TypeAlias = Callable[[tuple[Card, ...]], bool]
_deck_guards: list[DeckGuard] = []

#: Says whether the server dealt a deck it keeps no :class:`DealtDeck` of: a published daily's
#: (a day that is over). The leaderboard registers one (``known_decks``).
DeckSource: TypeAlias = Callable[[tuple[Card, ...]], bool]
_deck_sources: list[DeckSource] = []


def guard_decks(guard: DeckGuard) -> None:
    """Refuse every practice game whose deck ``guard`` answers true for (``daily_not_public``)."""
    if guard not in _deck_guards:
        _deck_guards.append(guard)


def known_decks(source: DeckSource) -> None:
    """Play as practice, by any code, every deck ``source`` answers true for (see
    :func:`was_dealt`)."""
    if source not in _deck_sources:
        _deck_sources.append(source)


def was_dealt(deal: DealCode) -> bool:
    """Whether the server plays ``deal`` as practice: it plays only decks it dealt — any CF1 deal
    (a random deal is one, and every classic numbered deal), a deck dealt here before
    (:class:`DealtDeck`: a random deal shared in its CF2 form), a published daily's (the
    registered :data:`DeckSource`). Nothing here depends on whether a deck is an unpublished
    daily's: a right guess of today's deck and a wrong one get the same answer."""
    if deal.format == "CF1":
        return True
    deck = deal.deck()
    if DealtDeck.objects.filter(fingerprint=DealtDeck.fingerprint_of(deck)).exists():
        return True
    return any(source(deck) for source in _deck_sources)


def _record_dealt(game: Game) -> None:
    """Record the deck of a practice game dealt from a CF1 code (or at random), in the game's
    transaction, so that its CF2 form plays too."""
    if game.kind == Game.Kind.PRACTICE and game.deal_code.format == "CF1":
        fingerprint = DealtDeck.fingerprint_of(game.deal_code.deck())
        DealtDeck.objects.bulk_create([DealtDeck(fingerprint=fingerprint)], ignore_conflicts=True)


def new_game(
    owner: User,
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
    ``attempt_exists``. A bad code is ``invalid_code``; a practice game of a deck the server did
    not deal, ``unknown_deal`` (:func:`was_dealt`); of a daily deal's deck not public yet (or a
    deck equal to it up to the game's symmetries), ``daily_not_public`` (:data:`DeckGuard`).
    """
    game = dealt_game(owner, code, draw, variant, kind, daily_date)
    try:
        with transaction.atomic():
            game.save()
            _record_dealt(game)
            _announce(game)
    except IntegrityError:
        if kind == Game.Kind.DAILY:
            raise GameError(
                "attempt_exists", _("You already have your ranked attempt at this daily deal.")
            ) from None
        raise
    return game


def dealt_game(
    owner: User,
    code: str | DealCode | None = None,
    draw: int | None = None,
    variant: str | None = None,
    kind: str = Game.Kind.PRACTICE,
    daily_date: dt.date | None = None,
) -> Game:
    """The game :func:`new_game` starts, dealt and checked by the same rules but not saved: a
    page may show a deal before its first action makes it a game (the home page's board)."""
    try:
        if code is None:
            deal = DealCode.random(draw or 3, variant or "app")  # type: ignore[arg-type]
        else:
            deal = code if isinstance(code, DealCode) else DealCode.parse(code)
            if draw is not None or variant is not None:
                deal = replace(
                    deal,
                    draw=draw or deal.draw,  # type: ignore[arg-type]
                    variant=variant or deal.variant,  # type: ignore[arg-type]
                )
    except InvalidCode as exc:
        raise engine_refusal("invalid_code", exc) from None
    if kind == Game.Kind.DAILY:
        if daily_date is None or code is None:
            raise ValueError("a daily game needs its code and its daily_date")
    elif kind == Game.Kind.PRACTICE:
        if daily_date is not None:
            raise ValueError("only a daily game has a daily_date")
        if code is not None and not was_dealt(deal):
            raise GameError(
                "unknown_deal",
                _(
                    "This code is not a deal this server has dealt: start a random deal, a "
                    "numbered deal (a CF1 code), a past day's daily deal, or the code of a game "
                    "someone played here."
                ),
            )
        if any(guard(deal.deck()) for guard in _deck_guards):
            raise GameError(
                "daily_not_public",
                _(
                    "This deck is a daily deal that is not public yet: it can be played as "
                    "practice once its day is over."
                ),
            )
    else:
        raise ValueError(f"unknown kind of game {kind!r}")

    engine = Canfield(deal)
    game = Game(owner=owner, code=str(deal), kind=kind, daily_date=daily_date)
    _sync(game, engine)
    return game


def _locked(game_id: int, user: Viewer | None) -> Game:
    """The game's row, locked until the transaction ends: ``user``'s own (``None``: anyone's)."""
    try:
        game: Game | None = Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        game = None
    if game is None or (
        user is not None and (not user.is_authenticated or game.owner_id != user.pk)
    ):
        raise not_found()
    if isinstance(user, User):
        game.owner = user  # the caller: no query to read the owner's name back
    return game


def _write_day_end(game: Game, today: dt.date) -> bool:
    """Under the row lock: close ``game`` if its day is over, and write it."""
    if not game.apply_day_end(today):
        return False
    game.save(update_fields=Game.DAY_END_FIELDS)
    _announce(game)
    return True


def _parse(token: str) -> Action:
    try:
        return Action.parse(token)
    except NotationError as exc:
        raise engine_refusal("bad_notation", exc) from None


def _resolve(engine: Canfield, action: str | Tap) -> Action | None:
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
        raise engine_refusal("bad_notation", exc) from None


def _game_over(game: Game) -> GameError:
    messages = {
        "won": _("This game is won: it accepts no more actions."),
        "resigned": _("This game was resigned: it accepts no more actions."),
        "closed": _("This game was closed when its day ended: it accepts no more actions."),
    }
    return GameError("game_over", messages[game.result])


def _stale(game: Game, ply: int) -> GameError:
    return GameError(
        "stale_ply",
        _(
            "The action was made in position %(ply)d, but the game is at position %(current)d; "
            "reload the game."
        )
        % {"ply": ply, "current": game.ply},
        ply=game.ply,
    )


@dataclass
class Known:
    """A client's copy of its game's row, kept between its actions (the game's socket keeps one:
    ``games.api.consumers``), so that an action it makes in the position it last saw needs no
    read of the row, nor a restore of the engine. Only :func:`play` sets it, to the game as the
    last action left it, and the engine at that position."""

    game: Game | None = None
    engine: Canfield | None = None

    def forget(self) -> None:
        """Hold nothing (the game is changed otherwise: resigned, finished)."""
        self.game = self.engine = None


def play(
    game_id: int, user: Viewer, ply: int, action: str | Tap, known: Known | None = None
) -> PlayResult:
    """Apply one action — a token (``"R-T2"``, ``"U"`` to undo) or a tap dict — made by ``user``
    in position ``ply`` of game ``game_id``.

    ``ply == game.ply`` applies it. A request that repeats the last applied action
    (``ply == game.ply - 1`` and the same resolved token) is answered again with the current
    state, not applied twice. Any other ply is ``stale_ply``. Errors: ``not_found`` (no such
    game, or not the user's), ``game_over``, ``game_too_long`` (``settings.MAX_GAME_ACTIONS``
    actions are logged already), ``bad_notation``, ``illegal_action`` (with the engine's reason).

    Optimistic: the game is read without a lock and the action played on what was read; the
    write is then made only if the row is still at that ply and in progress (:func:`_store`: on
    PostgreSQL one statement, the row's ``UPDATE … WHERE ply = N`` and the log's ``INSERT``
    together). A row that moved on meanwhile (another tab's action, a resignation, the day's
    end), and a game whose day has ended and is still open, are played again under the row's
    lock, as every other change is: the answer is then what the game has become.

    ``known``: the caller's copy of the row (:class:`Known`), played on without reading it when
    the action is made in its position and is written; anything else — a refusal, a row that
    moved on, a tap that does nothing (no write to confirm the copy) — is answered from the row
    as it is read, as without it. Left holding the game as played, or nothing.
    """
    if isinstance(action, str):
        _parse(action)  # malformed input is refused whatever the game and position
    today = utc_today()
    kept, engine = _take(known, game_id, ply, today)
    if kept is not None:
        try:
            result = _play(kept, ply, action, engine)
        except (GameError, _Moved):
            pass  # (answered from the row as it is)
        else:
            # Written under the row's conditions (_store): the copy was current. A tap that did
            # nothing wrote nothing, so it says nothing of that: the row is read, as over REST.
            if result.applied is not None:
                return _remember(known, result)
    game = _owned(game_id, user)
    if not (game.is_in_progress and game.day_is_over(today)):
        try:
            return _remember(known, _play(game, ply, action))
        except _Moved:
            pass
    with transaction.atomic():
        game = _locked(game_id, user)
        if not _write_day_end(game, today):
            return _remember(known, _play(game, ply, action))
    raise _game_over(game)  # closed just now: the closing is committed, the action refused


def _take(
    known: Known | None, game_id: int, ply: int, today: dt.date
) -> tuple[Game | None, Canfield | None]:
    """The known copy of the game and its engine (if any), taken (``known`` then holds nothing
    until the action is played), if it is of this game, in progress, in its day and at ``ply``."""
    if known is None:
        return None, None
    game, engine = known.game, known.engine
    known.forget()
    if game is None or game.pk != game_id or game.ply != ply or not game.is_in_progress:
        return None, None
    if game.day_is_over(today):
        return None, None
    return game, engine if engine is not None and engine.ply == ply else None


def _remember(known: Known | None, result: PlayResult) -> PlayResult:
    if known is not None:
        known.game, known.engine = result.game, result.engine
    return result


def _owned(game_id: int, user: Viewer) -> Game:
    """``user``'s game, read without a lock (``not_found`` if it is none, or another's)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not user.is_authenticated or game.owner_id != user.pk:
        raise not_found()
    if isinstance(user, User):
        game.owner = user  # the caller: no query to read the owner's name back
    return game


class _Moved(Exception):
    """The game's row was no longer at the ply it was read at when the action was written."""


def _play(game: Game, ply: int, action: str | Tap, engine: Canfield | None = None) -> PlayResult:
    """``engine``: the game's engine at its position, if the caller has it (else restored)."""
    if game.ply > 0 and ply == game.ply - 1:
        return _replay(game, ply, action)
    _check_turn(game, ply)
    if game.ply >= settings.MAX_GAME_ACTIONS:
        raise GameError(
            "game_too_long",
            ngettext(
                "This game has %(count)d action, the most a game may have: resign it, or "
                "start another.",
                "This game has %(count)d actions, the most a game may have: resign it, or "
                "start another.",
                game.ply,
            )
            % {"count": game.ply},
        )

    if engine is None:
        engine = engine_of(game)
    resolved = _resolve(engine, action)
    if resolved is None:
        return PlayResult(game, None, engine=engine)
    _apply(game, engine, [resolved])
    return PlayResult(game, resolved.token(), engine=engine)


def _check_turn(game: Game, ply: int) -> None:
    """Refuse an action on ``game`` that is over (``game_over``) or made in another position
    than the game's (``stale_ply``)."""
    if not game.is_in_progress:
        raise _game_over(game)
    if ply != game.ply:
        raise _stale(game, ply)


def _apply(game: Game, engine: Canfield, actions: list[Action]) -> None:
    """Play ``actions`` in turn on ``engine`` (``game``'s position), log each, and write the
    game: its cached fields, its clock and, at the win, its end (:func:`_store`, if the row is
    still where it was read: else ``_Moved``); announced once committed. Raises
    ``illegal_action`` for one the rules refuse, before anything is written."""
    before = game.ply
    entries = []
    for action in actions:
        ply = engine.ply
        try:
            engine.push(action)
        except IllegalAction as exc:
            raise engine_refusal("illegal_action", exc) from None
        entries.append(
            LoggedAction(game=game, ply=ply, token=action.token(), score_after=engine.score)
        )
    _sync(game, engine)
    now = timezone.now()
    if game.started_at is None:
        game.started_at = now
    game.active_at = now
    if engine.is_won():
        game.status = Game.Status.WON
        game.finished_at = now
    if not _store(game, before, entries):
        raise _Moved
    _announce(game)


def _store(game: Game, ply: int, entries: list[LoggedAction]) -> bool:
    """Write ``game``'s played fields (:data:`_PLAYED`) and log ``entries``, both or neither,
    if its row is still in progress at ``ply``, of the same owner (a guest's games move to the
    account it signs up for) and on or off the board as ``game`` has it (``disqualified``: the
    action's announcement ranks it by that); whether it was. On
    PostgreSQL one statement (no transaction to open and commit around it: four round trips
    fewer than a locked write); on another database the row's conditional ``UPDATE`` then the
    ``INSERT``, in a transaction. Raises ``stale_ply`` for a log that already has an entry at
    a ply being logged (the row lock and the ply condition prevent it)."""
    connection = connections[router.db_for_write(Game)]
    try:
        if connection.vendor == "postgresql":
            return _store_in_one_statement(connection, game, ply, entries)
        with transaction.atomic(using=connection.alias):
            moved = Game.objects.filter(
                pk=game.pk,
                ply=ply,
                status=Game.Status.IN_PROGRESS,
                owner_id=game.owner_id,
                disqualified=game.disqualified,
            ).update(**{name: getattr(game, name) for name in _PLAYED})
            if moved:
                LoggedAction.objects.bulk_create(entries)
            return bool(moved)
    except IntegrityError:
        raise _stale(game, ply) from None


def _store_in_one_statement(
    connection: BaseDatabaseWrapper, game: Game, ply: int, entries: list[LoggedAction]
) -> bool:
    """:func:`_store` on PostgreSQL: ``WITH moved AS (UPDATE … WHERE id, ply, status … RETURNING
    id) INSERT INTO the log SELECT … FROM moved, (VALUES …)`` — the log's rows are inserted only
    if the row was updated, in one atomic statement."""
    quote = connection.ops.quote_name

    def column(field: Any) -> str:
        return str(quote(field.column))

    game_field = {field.name: field for field in Game._meta.concrete_fields}
    game_fields = [game_field[name] for name in _PLAYED]
    assignments = ", ".join(f"{column(field)} = %s" for field in game_fields)
    params: list[Any] = [
        field.get_db_prep_save(getattr(game, field.attname), connection) for field in game_fields
    ]
    where = [game.pk, ply, Game.Status.IN_PROGRESS.value, game.owner_id, game.disqualified]
    params += where  # (the WHERE, then the VALUES)
    log_field = {field.name: field for field in LoggedAction._meta.concrete_fields}
    log_fields = [log_field[name] for name in _LOGGED]
    row = "(" + ", ".join(f"%s::{field.db_type(connection)}" for field in log_fields) + ")"
    now = timezone.now()
    for entry in entries:
        entry.created_at = now
        params += [
            field.get_db_prep_save(getattr(entry, field.attname), connection)
            for field in log_fields
        ]
    columns = [column(field) for field in log_fields]
    key, at, status, owner, off = (
        column(game_field[name]) for name in ("id", "ply", "status", "owner", "disqualified")
    )
    sql = (
        f"WITH moved AS (UPDATE {quote(Game._meta.db_table)} SET {assignments} "
        f"WHERE {key} = %s AND {at} = %s AND {status} = %s AND {owner} = %s AND {off} = %s "
        f"RETURNING {key}) "
        f"INSERT INTO {quote(LoggedAction._meta.db_table)} "
        f"({column(log_field['game'])}, {', '.join(columns)}) "
        f"SELECT moved.{key}, {', '.join(f'v.{c}' for c in columns)} "
        f"FROM moved, (VALUES {', '.join([row] * len(entries))}) AS v ({', '.join(columns)})"
    )
    # (Within a caller's transaction, a savepoint: a statement that fails rolls back alone.)
    outer = nullcontext() if connection.get_autocommit() else transaction.atomic(connection.alias)
    with outer, connection.cursor() as cursor:
        cursor.execute(sql, params)
        return bool(cursor.rowcount > 0)


#: The fields of a log entry :func:`_store_in_one_statement` writes (besides its game).
_LOGGED = ("ply", "token", "score_after", "created_at")


#: The fields an action changes: what :func:`_sync` copies, the clock (``active_at``: when the
#: game was last played, which orders the games being played now) and the status.
_PLAYED = (
    *("score", "ply", "undos", "foundation_cards", "views", "views_version", "engine_state"),
    *("started_at", "status", "finished_at", "active_at"),
)


def _replay(game: Game, ply: int, action: str | Tap) -> PlayResult:
    """``ply`` is the position of the last logged action: the same action again is answered
    with the current state; anything else is stale."""
    last = game.log.get(ply=ply).token
    if isinstance(action, str):
        resolved: Action | None = _parse(action)
    else:
        engine = load_engine(game)
        engine.pop()
        resolved = _resolve(engine, action)
    if resolved is not None and resolved.token() == last:
        return PlayResult(game, last, replayed=True)
    raise _stale(game, ply)


@dataclass(frozen=True)
class FinishResult:
    """What :func:`finish` did: ``applied`` is every token it logged, in order."""

    game: Game
    applied: list[str]


def finish(game_id: int, user: Viewer, ply: int) -> FinishResult:
    """Finish ``user``'s game ``game_id`` from position ``ply``: play, as ordinary actions, the
    line the Finish button offers (``games.engine.finish.finish_line``: every foundation move
    there is, else a draw or a recycle, until the win), when the game's payload says
    ``finishable`` — from the whole position for a practice game, from what the player has seen
    for a daily attempt (PRODUCT.md, "Fair play"). Each action is logged and counted as if it
    had been played alone; all of them in one transaction with the row locked, announced once.

    Errors, with nothing changed: ``not_found``, ``game_over``, ``stale_ply`` (``ply`` is not
    the game's), ``not_finishable``, ``game_too_long`` (the line would take the game past
    ``settings.MAX_GAME_ACTIONS`` actions)."""
    with transaction.atomic():
        game = _locked(game_id, user)
        if not _write_day_end(game, utc_today()):
            return _finish(game, ply)
    raise _game_over(game)  # closed just now: the closing is committed, the finish refused


def _finish(game: Game, ply: int) -> FinishResult:
    _check_turn(game, ply)
    engine = engine_of(game)
    line = finish_line(engine, sees_hidden=not game.is_daily)  # (as ``views_for`` answers)
    if not line:
        raise GameError(
            "not_finishable",
            _(
                "This game cannot be finished by itself from here: it still needs the player's "
                "own moves."
            ),
        )
    if game.ply + len(line) > settings.MAX_GAME_ACTIONS:
        raise GameError(
            "game_too_long",
            _(
                "Finishing would take this game past the most actions a game may have "
                "(%(most)d): resign it, or start another."
            )
            % {"most": settings.MAX_GAME_ACTIONS},
        )
    _apply(game, engine, line)
    return FinishResult(game, [action.token() for action in line])


def resign(game: Game | int, user: Viewer) -> Game:
    """End ``user``'s game as it stands: ``game_over`` if it has already ended."""
    with transaction.atomic():
        game = _locked(game if isinstance(game, int) else game.pk, user)
        if game.is_in_progress and not _write_day_end(game, utc_today()):
            game.status = Game.Status.RESIGNED
            game.finished_at = game.active_at = timezone.now()
            game.save(update_fields=["status", "finished_at", "active_at"])
            _announce(game)
            return game
    raise _game_over(game)


def set_disqualified(game_id: int, disqualified: bool) -> Game:
    """Take a daily attempt off its day's board (``disqualified``), or put it back: the row's
    flag, written under its lock, and announced like any change of a standing (the leaderboard
    then moves it off or back on every board, rank and stat). A practice game is ``not_found``:
    only daily attempts are ranked."""
    with transaction.atomic():
        game = _locked(game_id, None)
        if not game.is_daily:
            raise not_found()
        if game.disqualified != disqualified:
            game.disqualified = disqualified
            game.board_revision += 1
            game.save(update_fields=["disqualified", "board_revision"])
            _announce(game)
    return game


def close_daily_attempts(today: dt.date | None = None) -> dict[dt.date, int]:
    """Write the closing of every daily attempt still open in the database after its day ended
    (the periodic job; reads already show them closed). Returns how many closed, per day."""
    today = today or utc_today()
    closed: dict[dt.date, int] = {}
    expired = Game.objects.open_after_day_end(today).order_by("daily_date", "pk")
    for game_id in expired.values_list("pk", flat=True):
        with transaction.atomic():
            game = _locked(game_id, None)
            if _write_day_end(game, today) and game.daily_date is not None:
                closed[game.daily_date] = closed.get(game.daily_date, 0) + 1
    return closed


# --- hints and verdicts ----------------------------------------------------------------------


@dataclass(frozen=True)
class Undo:
    """Where undo leads back to the last position that can still be won: ``actions`` undos from
    the game's position, after which the game's ply is ``ply`` (each undo is an action)."""

    actions: int
    ply: int


@dataclass(frozen=True)
class Hint:
    """What the solver says of a game's position: ``win``, with the next action of a winning line
    and the line's length; ``no_win``, proved, with where undo leads back to a position that can
    still be won (``undo``, or None: none found); ``unknown``, with the best move the search found
    (``action``, not proved; None only when no action is legal)."""

    outcome: Outcome
    action: str | None = None
    remaining: int | None = None
    undo: Undo | None = None

    @property
    def proved(self) -> bool:
        """Whether the outcome is a proof (``win``, ``no_win``) rather than a guess."""
        return self.outcome != "unknown"


def hint(game_id: int, user: Viewer, before_search: Callable[[], None] | None = None) -> Hint:
    """What the solver says of ``user``'s practice game as it stands (:class:`Hint`): the next
    action of a winning line and the line's length; or that no win exists from here, and how many
    undos lead back to the last position that can still be won; or, when the solver cannot tell
    within ``settings.HINT_SECONDS``, the best move it found. A hint knows the hidden cards: a
    daily attempt gets none (``hints_not_allowed``), a finished game neither (``game_over``).

    A search costs seconds of a worker (``games.pool``: ``busy`` at once when no worker is free
    or due to be soon), so it happens once per line: it keeps a step for every position of the
    winning line it found (and every position it proved lost, and a position it could not
    decide), and a hint from a position already kept is a lookup. Only a search calls
    ``before_search`` (the API's rate limit: following the hints is never limited; a position off
    every kept line costs a new search), and only once a worker is reserved for it: a search
    refused ``busy`` is never counted, and one that ``before_search`` refuses gives its worker
    back unused."""
    return _consult(_hintable(game_id, user), before_search)


def verdict(game_id: int, user: Viewer, before_search: Callable[[], None] | None = None) -> Hint:
    """What the solver says of ``user``'s practice game as it stands, for the game to say
    unasked that it is lost: the same answer as :func:`hint`, with the same refusals, lookups,
    searches and steps kept — its caller shows no action (help the player did not ask for).
    ``before_search`` counts a search (the API's own limit for verdicts)."""
    return _consult(_hintable(game_id, user), before_search)


def kept_verdicts(
    games: Iterable[Game], engines: Mapping[int, Canfield] | None = None
) -> dict[int, Hint]:
    """The kept answers for the positions of ``games`` as they stand, by game id, in one query:
    for each practice game in progress whose position a search has answered (with its way back,
    for a lost one), never a search. A daily attempt is never looked up. ``engines``: the
    engines of some of the games at their positions, by game id, when the caller has them (an
    action's: :class:`PlayResult`); the others are restored from their stored states."""
    wanted: dict[tuple[int, str], tuple[Game, Canfield]] = {}
    for game in games:
        if game.is_daily or not game.is_in_progress:
            continue
        engine = engines.get(game.pk) if engines else None
        if engine is None:
            engine = engine_of(game)
        wanted[(game.pk, engine.position_digest())] = (game, engine)
    if not wanted:
        return {}
    steps = HintStep.objects.filter(
        game_id__in={pk for pk, _ in wanted}, digest__in={digest for _, digest in wanted}
    )
    found: dict[int, Hint] = {}
    for step in steps:
        pair = wanted.get((step.game_id, step.digest))
        if pair is None:
            continue  # (another game's position, of the same digest)
        answer = _answer(pair[0], pair[1], step)
        if answer is not None:
            found[step.game_id] = answer
    return found


def _hintable(game_id: int, user: Viewer) -> Game:
    """``user``'s game, if the solver may answer about it: a practice game in progress."""
    game = get_game(game_id, user)
    game.apply_day_end(utc_today())
    if game.is_daily and game.is_in_progress:
        raise GameError(
            "hints_not_allowed",
            _("No hints for a ranked daily attempt: a hint knows hidden cards."),
        )
    if not game.is_in_progress:
        raise _game_over(game)
    return game


def _answer(game: Game, engine: Canfield, step: HintStep) -> Hint | None:
    """The answer a kept ``step`` gives for ``game``'s position (``engine``); None for a lost
    position kept with the way back of another past (the same position, other positions behind
    it: to be walked back again)."""
    if step.outcome != "no_win":
        return Hint(step.outcome, step.action or None, step.remaining)  # type: ignore[arg-type]
    if step.undo_key != undo_key(engine):
        return None
    return Hint("no_win", undo=_undo(game, step.undo_actions))


def _undo(game: Game, actions: int | None) -> Undo | None:
    return None if actions is None else Undo(actions, game.ply + actions)


#: What a search that found a winning line calls, for the line to be improved afterwards (a hint
#: answers with the first line proved): with the game, the stored state its search started from
#: and the line's actions (registered by ``games.tasks``, which hands it to the worker tier).
LineFound = Callable[[Game, str, tuple[str, ...]], None]
_line_found: list[LineFound] = []


def on_line_found(hook: LineFound) -> None:
    """Call ``hook`` with each winning line a hint's search finds (see :data:`LineFound`)."""
    if hook not in _line_found:
        _line_found.append(hook)


def _kept_elsewhere(game: Game, digest: str) -> HintStep | None:
    """A proved answer for the position ``digest`` found by a search of another game (a cache
    keyed by the position: the same position is never searched twice). A win is kept for
    ``game`` too, as its own step; a lost position's way back is the game's own to walk."""
    other = (
        HintStep.objects.filter(digest=digest, outcome__in=("win", "no_win"))
        .exclude(game=game)
        .order_by("-outcome")  # (a win first: a position is either, but to be sure)
        .first()
    )
    if other is not None and other.outcome == "win":
        _keep(game, [pool_jobs.HintStep(digest, "win", other.action, other.remaining)])
    return other


def _consult(game: Game, before_search: Callable[[], None] | None) -> Hint:
    """The kept answer for ``game``'s position (its own, or one a search of another game found
    for the same position), else a search in the solver pool (counted by ``before_search`` once
    admitted), whose steps are kept, and whose winning line is improved afterwards, in the
    worker tier, with the time the search gave it before (:func:`on_line_found`)."""
    engine = engine_of(game)
    digest = engine.position_digest()
    kept = HintStep.objects.filter(game=game, digest=digest).first()
    if kept is None:
        kept = _kept_elsewhere(game, digest)
    if kept is not None:
        answer = _answer(game, engine, kept)
        if answer is not None:
            return answer
    # A lost position kept with another past is only walked back; any other is solved.
    task = pool_jobs.hint_line if kept is None else pool_jobs.lost_outlook
    seconds = settings.HINT_SECONDS
    with pool.admit(seconds) as admission:
        if before_search is not None:
            before_search()
        state = engine_state.dump(engine)
        future = admission.start(task, game.code, state, seconds)
    found = pool.wait(future, seconds)
    log.info(
        "hint: searched game %s at ply %s: %s, %d steps kept",
        game.pk,
        game.ply,
        found.outcome,
        len(found.steps),
    )
    _keep(game, found.steps)
    if found.outcome == "win" and len(found.steps) > 1:
        line = tuple(step.action or "" for step in found.steps)
        for hook in _line_found:
            hook(game, state, line)
    if not found.steps:
        return Hint(found.outcome)
    first = found.steps[0]
    return Hint(first.outcome, first.action, first.remaining, _undo(game, first.undo))


def keep_better_line(game_id: int, steps: Iterable[pool_jobs.HintStep]) -> int:
    """Keep the steps of a better winning line (``pool_jobs.better_line``) for game ``game_id``:
    each replaces what was kept for its position, so that later hints follow the better line
    (every step kept is still a move on a proved line from its position). Returns how many were
    kept (0: the game is gone)."""
    steps = [step for step in steps if step.outcome == "win"]
    if not steps or not Game.objects.filter(pk=game_id).exists():
        return 0
    with transaction.atomic():
        digests = [step.digest for step in steps]
        HintStep.objects.filter(game_id=game_id, digest__in=digests).delete()
        HintStep.objects.bulk_create(
            [
                HintStep(
                    game_id=game_id,
                    digest=step.digest,
                    outcome="win",
                    action=step.action or "",
                    remaining=step.remaining,
                )
                for step in steps
            ],
            ignore_conflicts=True,
        )
    return len(steps)


def _keep(game: Game, steps: Iterable[pool_jobs.HintStep]) -> None:
    """Keep ``steps`` for ``game``: a proved answer replaces an ``unknown`` one, and a lost
    position's new way back replaces the one kept before; a kept win stays as it is."""
    steps = list(steps)
    proved = [step.digest for step in steps if step.outcome != "unknown"]
    with transaction.atomic():
        if proved:
            HintStep.objects.filter(game=game, digest__in=proved).exclude(outcome="win").delete()
        HintStep.objects.bulk_create(
            [
                HintStep(
                    game=game,
                    digest=step.digest,
                    outcome=step.outcome,
                    action=step.action or "",
                    remaining=step.remaining,
                    undo_actions=step.undo,
                    undo_key=step.undo_key,
                )
                for step in steps
            ],
            ignore_conflicts=True,  # (two requests for one position at once: the same answer)
        )
