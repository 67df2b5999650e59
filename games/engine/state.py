"""A game's position, with what its undo needs, as compact text: store it, restore it later
without replaying the log.

``dump(game)`` writes everything that decides what the game does next: the piles and the stock,
the waste's face-up spread, the counters (ply, moves in effect, undos, recycles, score) and the
entries of the actions an undo can still reach (at most ``UNDO_LIMIT``, each with what taking it
back needs). ``load(code, text)`` gives back a :class:`Restored` game that plays on exactly as the
game it was dumped from would: the same legal moves, the same views, the same refusals, undos as
far back as they reach. Only its past is shorter: :meth:`Restored.pop` goes back no further than
the moment it was restored, and its :attr:`~Restored.history` starts there.

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

from .actions import FOUNDATIONS, UNDO, Action
from .deals import DealCode
from .errors import EngineError
from .game import Canfield, Entry

#: The shape of the text. Raise it whenever the text, or what the engine needs to play on, changes.
STATE_VERSION: Final = 1

_LETTERS: Final = string.ascii_uppercase + string.ascii_lowercase
_CARD_OF: Final = {letter: card for card, letter in enumerate(_LETTERS)}
#: Stands for an action in effect that an undo can no longer reach: never taken back.
_UNREACHABLE: Final = Entry(UNDO, 0, 0, 0)


class StateError(EngineError):
    """A stored state that cannot be restored (another version, or not a state)."""


class Restored(Canfield):
    """A game restored from :func:`dump`'s text: it plays on as the game it was dumped from.
    Its ``history`` holds the actions taken since it was restored (the earlier ones are in the
    log), and :meth:`pop` goes back no further."""

    __slots__ = ("_ply_base",)

    def __init__(self, code: DealCode | str) -> None:
        super().__init__(code)
        self._ply_base = 0

    @property
    def ply(self) -> int:
        return self._ply_base + len(self._history)

    def pop(self) -> Action:
        if not self._history:
            raise IndexError("a restored game cannot take back what came before it was restored")
        return super().pop()


def _pile(cards: list[int]) -> str:
    return "".join([_LETTERS[c] for c in cards])


def _cards(text: str) -> list[int]:
    return [_CARD_OF[letter] for letter in text]


def dump(game: Canfield) -> str:
    """The state of ``game`` as compact text (see the module's docstring)."""
    depth = game._depth
    reachable = game._live[len(game._live) - depth :] if depth else []
    return json.dumps(
        [
            STATE_VERSION,
            game.ply,
            game.base_rank,
            "".join(str(s) for s in game.foundation_suits),
            [_pile(p) for p in game.piles],
            _pile(game.stock),
            game.spread,
            game.score,
            game.undos,
            game.recycles,
            game.moves,
            depth,
            [[e.action.token(), e.amount, e.spread, e.score] for e in reachable],
        ],
        separators=(",", ":"),
    )


def version_of(text: str) -> int | None:
    """The version a stored text says it has (``None``: not a state)."""
    if not text.startswith("[") or "," not in text:
        return None
    head = text[1 : text.index(",")]
    return int(head) if head.isdigit() else None


def load(code: DealCode | str, text: str) -> Restored:
    """The game ``text`` describes, on the deal ``code``; :class:`StateError` for a text of
    another version or shape."""
    try:
        (version, ply, base_rank, suits, piles, stock, spread, score, undos, recycles, moves,
         depth, entries) = json.loads(text)  # fmt: skip
    except (ValueError, TypeError) as exc:
        raise StateError(f"not a stored game state: {exc}") from None
    if version != STATE_VERSION:
        raise StateError(f"a state of version {version!r}, not {STATE_VERSION}")
    try:
        game = Restored(code)
        game.base_rank = base_rank
        game.foundation_suits = tuple(int(s) for s in suits)
        for i, suit in enumerate(game.foundation_suits):
            game._foundation_of_suit[suit] = FOUNDATIONS[i]
        game.piles = [_cards(p) for p in piles]
        game.stock = _cards(stock)
        game.spread = spread
        game.score = score
        game.undos = undos
        game.recycles = recycles
        live = [Entry(Action.parse(t), amount, s, sc) for t, amount, s, sc in entries]
        if len(live) != depth or depth > moves or len(game.piles) != 10:
            raise StateError("the state's counters disagree with its entries")
        game._live = [_UNREACHABLE] * (moves - depth) + live
        game._depth = depth
        game._history = []
        game._ply_base = ply
    except (KeyError, ValueError, TypeError, EngineError) as exc:
        if isinstance(exc, StateError):
            raise
        raise StateError(f"not a stored game state: {exc}") from None
    return game
