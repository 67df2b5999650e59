"""A game's position, with what its undo needs, as compact text: store it, restore it later
without replaying the log.

``dump(game)`` writes the game's :class:`~.game.Snapshot` — everything that decides what the game
does next: the piles and the stock, the waste's face-up spread, the counters (ply, moves in
effect, undos, recycles, score) and the entries of the actions an undo can still reach (at most
``UNDO_LIMIT``, each with what taking it back needs). ``load(code, text)`` gives back the game
(:meth:`Canfield.restore`) that plays on exactly as the game it was dumped from would: the same
legal moves, the same views, the same refusals, undos as far back as they reach. Only its past
is shorter: its ``pop`` goes back no further than the moment it was restored, and its
``history`` starts there.

The text is JSON: ``[version, ply, base rank, foundation suits, piles, stock, spread, score,
undos, recycles, moves, depth, [[token, amount, spread, score], ...]]``, every pile a string of
one letter per card (``A``–``Z`` then ``a``–``z``: card 0 to 51), bottom first. A text of another
version is refused (:class:`StateError`): the caller rebuilds the game from its log, and the dump
of a replay is the same text as the dump of the game played action by action (tested).
"""

from __future__ import annotations

import json
import string
from typing import Final

from .actions import Action
from .deals import DealCode
from .errors import EngineError
from .game import Canfield, Entry, Snapshot

#: The shape of the text. Raise it whenever the text, or what the engine needs to play on, changes.
STATE_VERSION: Final = 1

_LETTERS: Final = string.ascii_uppercase + string.ascii_lowercase
_CARD_OF: Final = {letter: card for card, letter in enumerate(_LETTERS)}


class StateError(EngineError):
    """A stored state that cannot be restored (another version, or not a state)."""


def _pile(cards: tuple[int, ...]) -> str:
    return "".join([_LETTERS[c] for c in cards])


def _cards(text: str) -> tuple[int, ...]:
    return tuple(_CARD_OF[letter] for letter in text)


def dump(game: Canfield) -> str:
    """The state of ``game`` as compact text (see the module's docstring)."""
    snap = game.snapshot()
    return json.dumps(
        [
            STATE_VERSION,
            snap.ply,
            game.base_rank,
            "".join(str(s) for s in game.foundation_suits),
            [_pile(p) for p in snap.piles],
            _pile(snap.stock),
            snap.spread,
            snap.score,
            snap.undos,
            snap.recycles,
            snap.moves,
            len(snap.undoable),
            [[e.action.token(), e.amount, e.spread, e.score] for e in snap.undoable],
        ],
        separators=(",", ":"),
    )


def version_of(text: str) -> int | None:
    """The version a stored text says it has (``None``: not a state)."""
    if not text.startswith("[") or "," not in text:
        return None
    head = text[1 : text.index(",")]
    return int(head) if head.isdigit() else None


def load(code: DealCode | str, text: str) -> Canfield:
    """The game ``text`` describes, on the deal ``code`` (:meth:`Canfield.restore`);
    :class:`StateError` for a text of another version or shape, or of another deal."""
    try:
        (version, ply, base_rank, suits, piles, stock, spread, score, undos, recycles, moves,
         depth, entries) = json.loads(text)  # fmt: skip
    except (ValueError, TypeError) as exc:
        raise StateError(f"not a stored game state: {exc}") from None
    if version != STATE_VERSION:
        raise StateError(f"a state of version {version!r}, not {STATE_VERSION}")
    try:
        undoable = tuple(Entry(Action.parse(t), amount, s, sc) for t, amount, s, sc in entries)
        if len(undoable) != depth:
            raise StateError("the state's counters disagree with its entries")
        snapshot = Snapshot(
            ply=ply,
            piles=tuple(_cards(p) for p in piles),
            stock=_cards(stock),
            spread=spread,
            score=score,
            undos=undos,
            recycles=recycles,
            moves=moves,
            undoable=undoable,
        )
        game = Canfield.restore(code, snapshot)
        if (game.base_rank, "".join(str(s) for s in game.foundation_suits)) != (base_rank, suits):
            raise StateError("the state is of another deal")
    except (KeyError, ValueError, TypeError) as exc:
        if isinstance(exc, StateError):
            raise
        raise StateError(f"not a stored game state: {exc}") from None
    return game
