"""The game state, its action stack, and the rules that decide what may be played.

Piles are numbered as in the notation: 0 reserve, 1 waste, 2–5 foundations F1–F4, 6–9 columns
T1–T4; each pile is a list of cards, bottom first. The stock is a separate list whose last card is
drawn next. Every applied action leaves a small entry on a stack, enough to take it back exactly.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from copy import copy as shallow_copy
from dataclasses import dataclass
from typing import Annotated, Final, Literal, NamedTuple, Self, TypedDict

from .actions import (
    COLUMNS,
    DRAW,
    FIRST_COLUMN,
    FIRST_FOUNDATION,
    FOUNDATIONS,
    MOVES,
    PILE_BY_NAME,
    PILE_NAMES,
    RECYCLE,
    RESERVE,
    UNDO,
    WASTE,
    Action,
)
from .cards import FITS_ON, RANK_OF, RANKS, RED, SUIT_OF, SUITS, Card, card, card_str
from .deals import DealCode
from .errors import EngineError, GameOver, IllegalAction, NotationError
from .finish import Outlook, outlook
from .reasons import Reason

UNDO_LIMIT: Final = 100
#: A view's answers about the future when they are not asked (``player_view(look_ahead=False)``).
_NOT_ASKED: Final = Outlook(finishable=False, stuck=False)
_F1, _F2, _F3, _F4 = FOUNDATIONS  # (named, and as fast as literals in foundation_cards)
POINTS_PER_CARD: Final = 5


# -- the views: one typed definition each, from which the API's schema is derived ------------------
# (``Annotated`` strings are descriptions for the API's documentation.)

CardText = Annotated[str, "A card: rank A23456789TJQK then suit SHDC, e.g. 7H."]


class ReserveView(TypedDict):
    top: Annotated[CardText | None, "The reserve's top card; null when the reserve is empty."]
    count: Annotated[int, "Cards in the reserve, the top one included."]


class StockView(TypedDict):
    count: int


class WasteView(TypedDict):
    count: int
    cards: Annotated[list[CardText], "The face-up spread, bottom first; the last is playable."]


class FoundationView(TypedDict):
    suit: Annotated[str, "S, H, D or C."]
    start: Annotated[str, "The starting rank (the base card's rank)."]
    cards: Annotated[list[CardText], "Bottom first."]


class PlayerView(TypedDict):
    """What the player may see: never a stock card, nor a reserve card below the top."""

    draw: Literal[1, 3]
    variant: Literal["app", "classic"]
    reserve: ReserveView
    stock: StockView
    waste: WasteView
    foundations: list[FoundationView]
    columns: Annotated[list[list[CardText]], "T1 to T4, each bottom first."]
    score: int
    won: bool
    moves: Annotated[int, "Actions in effect (taken and not undone)."]
    undos: int
    recycles: Annotated[int, "Recycles in effect (taken and not undone)."]
    foundation_cards: int
    can_undo: bool
    legal: Annotated[list[str], "Every legal action's token."]
    finishable: Annotated[
        bool,
        "Only foundation moves, draws and recycles are left to win, and they need no decision"
        " (games.engine.finish). For a daily attempt: answered from what the player has seen.",
    ]
    stuck: Annotated[
        bool,
        "Stuck for good: no line of moves that uses only the cards the player sees and has seen"
        " brings a new card into sight or a card more onto the foundations; back-and-forth"
        " moves may be left (games.engine.finish). Answered from what the player sees in every"
        " game kind; false when the bounded search cannot prove it.",
    ]


class FullView(TypedDict):
    """Every card: reserve top first, stock next card first, other piles bottom first."""

    code: str
    draw: Literal[1, 3]
    variant: Literal["app", "classic"]
    reserve: Annotated[list[CardText], "Top first."]
    foundations: list[list[CardText]]
    foundation_suits: list[str]
    columns: list[list[CardText]]
    stock: Annotated[list[CardText], "Next card first."]
    waste: Annotated[list[CardText], "Bottom first."]
    score: int
    won: bool
    ply: int
    moves: int
    undos: int
    recycles: int
    foundation_cards: int
    legal: list[str]


class Entry(NamedTuple):
    """What one applied action changed, so that it can be taken back exactly."""

    action: Action
    #: draw: cards turned; move: 1 if the reserve refilled the emptied source column.
    amount: int
    spread: int
    score: int


class HistoryItem(NamedTuple):
    action: Action  # UNDO for an undo
    entry: Entry  # the action applied, or the one an undo took back
    depth: int  # undo depth before this item


#: Stands for an action in effect that an undo can no longer reach (in a restored game): never
#: taken back.
_UNREACHABLE: Final = Entry(UNDO, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything that decides what a game does next, without its past: the piles and the stock
    (bottom first; the stock's last card is drawn next), the waste's face-up spread, the counters,
    and the entries of the actions an undo can still reach, oldest first (at most
    :data:`UNDO_LIMIT`). :meth:`Canfield.snapshot` takes one, :meth:`Canfield.restore` plays on
    from it."""

    ply: int
    piles: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    spread: int
    score: int
    undos: int
    recycles: int
    #: Actions in effect, reachable by undo or not.
    moves: int
    undoable: tuple[Entry, ...]


class LegalMoves:
    """A lazy view of the legal actions, in the manner of python-chess.

    Iterating generates them; ``action in game.legal_moves`` checks a single action without
    generating the rest; ``count()`` and ``len()`` count them.
    """

    __slots__ = ("_game",)

    def __init__(self, game: Canfield) -> None:
        self._game = game

    def __iter__(self) -> Iterator[Action]:
        return iter(self._game.generate_legal())

    def __contains__(self, action: object) -> bool:
        return isinstance(action, Action) and self._game.reason(action) is None

    def __len__(self) -> int:
        return len(self._game.generate_legal())

    def count(self) -> int:
        return len(self)

    def __bool__(self) -> bool:
        return bool(self._game.generate_legal())

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(a.token() for a in self)})>"


class Canfield:
    """A game of Canfield from its deal code, with ``push``/``pop`` and the player's undo."""

    __slots__ = (
        "code",
        "classic",
        "base_rank",
        "foundation_suits",
        "_foundation_of_suit",
        "piles",
        "stock",
        "spread",
        "score",
        "undos",
        "recycles",
        "_live",
        "_history",
        "_depth",
        "_ply_base",
    )

    def __init__(self, code: DealCode | str) -> None:
        if isinstance(code, str):
            code = DealCode.parse(code)
        self.code: DealCode = code
        self.classic = code.variant == "classic"
        layout = code.layout()
        self.base_rank = RANK_OF[layout.base]
        base_suit = SUIT_OF[layout.base]
        self.foundation_suits: tuple[int, ...] = (base_suit,) + tuple(
            s for s in range(4) if s != base_suit
        )
        self._foundation_of_suit = [0] * 4
        for i, suit in enumerate(self.foundation_suits):
            self._foundation_of_suit[suit] = FOUNDATIONS[i]
        self.piles: list[list[Card]] = [
            list(layout.reserve),
            [],
            [layout.base],
            [],
            [],
            [],
            *(list(col) for col in layout.columns),
        ]
        self.stock: list[Card] = list(layout.stock)
        #: How many cards of the latest draw lie face up, spread on top of the waste.
        self.spread = 0
        self.score = 0
        self.undos = 0
        #: Recycles in effect (taken and not undone).
        self.recycles = 0
        self._live: list[Entry] = []
        self._history: list[HistoryItem] = []
        self._depth = 0
        #: Actions taken before the game was restored (:meth:`restore`); 0 for a game dealt.
        self._ply_base = 0

    @classmethod
    def replay(cls, code: DealCode | str, actions: Iterable[Action | str]) -> Self:
        """The game after ``actions`` (tokens or actions) from the deal; raises at the first bad
        one (see :meth:`replaying`)."""
        game = cls(code)
        for _ in game.replaying(actions):
            pass
        return game

    def replaying(self, actions: Iterable[Action | str]) -> Iterator[Action]:
        """Push ``actions`` (tokens or actions) one at a time, yielding each once it is applied,
        so that the caller reads the game after each: the one replay loop of a log.

        The first one that is not well-formed or not legal raises its error, its message
        prefixed with the action's ply (``"action 5 (R-T1): ..."``), its reason kept."""
        for ply, action in enumerate(actions, start=self.ply + 1):
            try:
                parsed = Action.parse(action) if isinstance(action, str) else action
                self.push(parsed)
            except NotationError as exc:
                raise type(exc)(f"action {ply}: {exc}", reason=exc.reason) from None
            except IllegalAction as exc:
                raise type(exc)(f"action {ply} ({action}): {exc}", reason=exc.reason) from None
            yield parsed

    def copy(self) -> Self:
        """An independent copy: the same position, counters, undos and history. Pushing to
        either never changes the other."""
        game = shallow_copy(self)
        game.piles = [list(pile) for pile in self.piles]
        game.stock = list(self.stock)
        game._foundation_of_suit = list(self._foundation_of_suit)
        game._live = list(self._live)
        game._history = list(self._history)
        return game

    def snapshot(self) -> Snapshot:
        """What :meth:`restore` needs to play on exactly as this game would."""
        depth = self._depth
        return Snapshot(
            ply=self.ply,
            piles=tuple(tuple(pile) for pile in self.piles),
            stock=tuple(self.stock),
            spread=self.spread,
            score=self.score,
            undos=self.undos,
            recycles=self.recycles,
            moves=self.moves,
            undoable=tuple(self._live[len(self._live) - depth :]) if depth else (),
        )

    @classmethod
    def restore(cls, code: DealCode | str, snapshot: Snapshot) -> Self:
        """The game of deal ``code`` at ``snapshot``: it plays on exactly as the game the
        snapshot was taken of — the same legal moves, views and refusals, undos as far back as
        they reach. Only its past is shorter: its :attr:`history` starts here, and :meth:`pop`
        goes back no further. Raises :class:`EngineError` for a snapshot no game of that deal
        can have (cards missing or repeated, counters that disagree)."""
        game = cls(code)
        piles = [list(pile) for pile in snapshot.piles]
        cards = sorted(c for pile in (*piles, snapshot.stock) for c in pile)
        depth = len(snapshot.undoable)
        if len(piles) != len(game.piles) or cards != list(range(52)):
            raise EngineError("a snapshot holds ten piles and the stock: each card once")
        if not 0 <= depth <= min(snapshot.moves, UNDO_LIMIT) or snapshot.ply < snapshot.moves:
            raise EngineError("the snapshot's counters disagree with its entries")
        game.piles = piles
        game.stock = list(snapshot.stock)
        game.spread = snapshot.spread
        game.score = snapshot.score
        game.undos = snapshot.undos
        game.recycles = snapshot.recycles
        game._live = [_UNREACHABLE] * (snapshot.moves - depth) + list(snapshot.undoable)
        game._depth = depth
        game._ply_base = snapshot.ply
        return game

    def __repr__(self) -> str:
        return f"Canfield({str(self.code)!r})  # ply {self.ply}, score {self.score}"

    # -- counters ---------------------------------------------------------------------------

    @property
    def draw(self) -> int:
        return self.code.draw

    @property
    def ply(self) -> int:
        """Every action taken, undos included."""
        return self._ply_base + len(self._history)

    @property
    def moves(self) -> int:
        """Actions in effect: taken and not undone."""
        return len(self._live)

    @property
    def undo_depth(self) -> int:
        """How many undos are available now (at most 100)."""
        return self._depth

    @property
    def foundation_cards(self) -> int:
        p = self.piles
        return len(p[_F1]) + len(p[_F2]) + len(p[_F3]) + len(p[_F4])

    def is_won(self) -> bool:
        return self.foundation_cards == 52

    @property
    def history(self) -> list[Action]:
        """Every action taken, in order, undos included: the game's record (of a restored game,
        the actions taken since it was restored)."""
        return [item.action for item in self._history]

    @property
    def legal_moves(self) -> LegalMoves:
        return LegalMoves(self)

    # -- the rules --------------------------------------------------------------------------

    def _needed(self, pile: int) -> Card:
        """The card foundation ``pile`` accepts next, or -1 when it is complete."""
        cards = self.piles[pile]
        suit = self.foundation_suits[pile - FIRST_FOUNDATION]
        if not cards:
            return card(self.base_rank, suit)
        if len(cards) == 13:
            return -1
        return card((RANK_OF[cards[-1]] + 1) % 13, suit)

    def goes_home(self, c: Card) -> bool:
        """Whether a foundation takes card ``c`` next."""
        return any(self._needed(f) == c for f in FOUNDATIONS)

    def reason(self, action: Action) -> Reason | None:
        """Why ``action`` is illegal now, or ``None`` if it is legal."""
        if self.foundation_cards == 52:
            return Reason("game_won")
        kind = action.kind
        if kind == "draw":
            if self.stock:
                return None
            if self.piles[WASTE]:
                return Reason("stock_empty")
            return Reason("stock_and_waste_empty")
        if kind == "recycle":
            if self.stock:
                return Reason("stock_not_empty", count=len(self.stock))
            if not self.piles[WASTE]:
                return Reason("waste_empty")
            return None
        if kind == "undo":
            if self._depth:
                return None
            if self._live:
                return Reason("undo_limit", count=UNDO_LIMIT)
            return Reason("nothing_to_undo")
        return self._move_reason(action.src, action.dst, action.count)

    def _move_reason(self, src: int, dst: int, n: int) -> Reason | None:
        piles = self.piles
        source = piles[src]
        if not source:
            return Reason("pile_empty", pile=PILE_NAMES[src])
        if src < FIRST_COLUMN and n != 1:
            return Reason("one_card_from_pile", pile=PILE_NAMES[src])
        if n > len(source):
            return Reason("no_run", pile=PILE_NAMES[src], count=len(source), run=n)
        c = source[-n]
        if dst in FOUNDATIONS:
            if n != 1:
                return Reason("one_card_to_foundation")
            if src in FOUNDATIONS:
                return Reason("foundation_to_foundation")
            suit = self.foundation_suits[dst - FIRST_FOUNDATION]
            if SUIT_OF[c] != suit:
                return Reason(
                    "wrong_suit", card=card_str(c), pile=PILE_NAMES[dst], suit=SUITS[suit]
                )
            needed = self._needed(dst)
            if needed == c:
                return None
            if needed < 0:
                return Reason("foundation_complete", pile=PILE_NAMES[dst], suit=SUITS[suit])
            return Reason(
                "not_next_rank" if piles[dst] else "not_starting_rank",
                card=card_str(c),
                pile=PILE_NAMES[dst],
                target=card_str(needed),
            )
        if dst not in COLUMNS:
            return Reason("not_a_destination", pile=PILE_NAMES[dst])
        if src == dst:
            return Reason("own_column")
        if self.classic:
            if src in FOUNDATIONS:
                return Reason("classic_no_take_back")
            if src in COLUMNS and n != len(source):
                return Reason("classic_whole_column")
        target = piles[dst]
        if target:
            t = target[-1]
            if FITS_ON[c][t]:
                return None
            if RED[c] == RED[t]:
                return Reason("same_colour", card=card_str(c), target=card_str(t))
            return Reason(
                "not_one_rank_lower",
                card=card_str(c),
                target=card_str(t),
                rank=RANKS[(RANK_OF[c] + 1) % 13],
            )
        if piles[RESERVE]:  # cannot happen: an emptied column is refilled at once
            return Reason("empty_needs_reserve", pile=PILE_NAMES[dst])
        if self.classic and src != WASTE:
            return Reason("classic_empty_column")
        return None

    def check(self, action: Action) -> None:
        """Raise :class:`IllegalAction` (or :class:`GameOver`) if ``action`` is not legal."""
        why = self.reason(action)
        if why is not None:
            raise (GameOver if self.foundation_cards == 52 else IllegalAction)(why)

    def generate_legal(self) -> list[Action]:
        """Every legal action: moves (sources R, W, F1–F4, T1–T4), then D or C, then U."""
        piles = self.piles
        if self.foundation_cards == 52:
            return []
        out: list[Action] = []
        classic = self.classic
        needed = {self._needed(f): f for f in FOUNDATIONS}
        tops = [piles[k][-1] if piles[k] else -1 for k in COLUMNS]
        open_cols = not piles[RESERVE] and -1 in tops
        fit = FITS_ON
        found_of = self._foundation_of_suit
        singles = (RESERVE, WASTE) if classic else (RESERVE, WASTE, 2, 3, 4, 5)
        for src in singles:
            pile = piles[src]
            if not pile:
                continue
            c = pile[-1]
            moves = MOVES[src]
            if src < FIRST_FOUNDATION and c in needed:
                out.append(moves[found_of[SUIT_OF[c]]][0])
            row = fit[c]
            for k in range(4):
                t = tops[k]
                if t >= 0:
                    if row[t]:
                        out.append(moves[COLUMNS[k]][0])
                elif open_cols and (src == WASTE or not classic):
                    out.append(moves[COLUMNS[k]][0])
        for i in range(4):
            src = COLUMNS[i]
            pile = piles[src]
            size = len(pile)
            if not size:
                continue
            moves = MOVES[src]
            last = pile[-1]
            if last in needed:
                out.append(moves[found_of[SUIT_OF[last]]][0])
            for start in range(1 if classic else size):
                row = fit[pile[start]]
                n = size - start
                for k in range(4):
                    if k == i:
                        continue
                    t = tops[k]
                    if t >= 0:
                        if row[t]:
                            out.append(moves[COLUMNS[k]][n - 1])
                    elif open_cols and not classic:
                        out.append(moves[COLUMNS[k]][n - 1])
        if self.stock:
            out.append(DRAW)
        elif piles[WASTE]:
            out.append(RECYCLE)
        if self._depth:
            out.append(UNDO)
        return out

    # -- applying and taking back ---------------------------------------------------------------

    def push(self, action: Action) -> None:
        """Apply ``action`` (an undo takes back the last action); raises if it is illegal."""
        self.check(action)
        depth = self._depth
        if action.kind == "undo":
            entry = self._live.pop()
            self._unapply(entry)
            self.undos += 1
            self._depth = depth - 1
        else:
            entry = self._apply(action)
            self._live.append(entry)
            self._depth = min(depth + 1, UNDO_LIMIT)
        self._history.append(HistoryItem(action, entry, depth))

    def pop(self) -> Action:
        """Take back the last :meth:`push` exactly, whatever it was (an undo too)."""
        if not self._history:
            raise IndexError("nothing to pop since the game was dealt or restored")
        action, entry, depth = self._history.pop()
        if action.kind == "undo":
            self._live.append(self._apply(entry.action))
            self.undos -= 1
        else:
            self._unapply(self._live.pop())
        self._depth = depth
        return action

    def _apply(self, action: Action) -> Entry:
        piles = self.piles
        spread = self.spread
        score = self.score
        kind = action.kind
        if kind == "move":
            src, dst, n = action.src, action.dst, action.count
            source = piles[src]
            if n == 1:
                piles[dst].append(source.pop())
            else:
                piles[dst].extend(source[-n:])
                del source[-n:]
            if dst < FIRST_COLUMN:
                self.score = score + POINTS_PER_CARD
            if src == WASTE and spread:
                self.spread = spread - 1
            refill = 0
            if not source and src >= FIRST_COLUMN and piles[RESERVE]:
                source.append(piles[RESERVE].pop())
                refill = 1
            return Entry(action, refill, spread, score)
        waste = piles[WASTE]
        if kind == "draw":
            stock = self.stock
            n = min(self.code.draw, len(stock))
            for _ in range(n):
                waste.append(stock.pop())
            self.spread = n
            return Entry(action, n, spread, score)
        # recycle
        self.stock[:] = waste[::-1]
        waste.clear()
        self.spread = 0
        self.recycles += 1
        return Entry(action, 0, spread, score)

    def _unapply(self, entry: Entry) -> None:
        action = entry.action
        piles = self.piles
        kind = action.kind
        if kind == "move":
            src, dst, n = action.src, action.dst, action.count
            source = piles[src]
            if entry.amount:
                piles[RESERVE].append(source.pop())
            target = piles[dst]
            if n == 1:
                source.append(target.pop())
            else:
                source.extend(target[-n:])
                del target[-n:]
        elif kind == "draw":
            waste, stock = piles[WASTE], self.stock
            for _ in range(entry.amount):
                stock.append(waste.pop())
        else:
            piles[WASTE][:] = self.stock[::-1]
            self.stock.clear()
            self.recycles -= 1
        self.spread = entry.spread
        self.score = entry.score

    # -- taps -------------------------------------------------------------------------------------

    def tap(self, pile: str, index: int | None = None, double_click: bool = True) -> Action | None:
        """The action a tap on ``pile`` (at card ``index`` of a column, counted from the bottom,
        0-based; the top card when omitted) resolves to, or ``None`` when the tap does nothing."""
        if self.foundation_cards == 52:
            return None
        if pile == "S":
            if self.stock:
                return DRAW
            return RECYCLE if self.piles[WASTE] else None
        p = PILE_BY_NAME.get(pile) if isinstance(pile, str) else None
        if p is None:
            raise NotationError(Reason("no_pile_to_tap", text=repr(pile)))
        cards = self.piles[p]
        if index is not None and (
            isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(cards)
        ):
            raise NotationError(Reason("no_card_at_index", pile=PILE_NAMES[p], text=repr(index)))
        if p in FOUNDATIONS or not cards:
            return None
        top = len(cards) - 1
        if index is None:
            index = top
        if p < FIRST_COLUMN and index != top:
            return None  # under the top of the reserve or the waste: not playable
        n = len(cards) - index
        if n == 1:
            found = MOVES[p][self._foundation_of_suit[SUIT_OF[cards[-1]]]][0]
            if self.reason(found) is None:
                return found
        if not double_click:
            return None
        best: Action | None = None
        best_size = 0
        for dst in COLUMNS:
            size = len(self.piles[dst])
            if dst != p and size > best_size:
                move = MOVES[p][dst][n - 1]
                if self.reason(move) is None:
                    best, best_size = move, size
        if best is not None:
            return best
        if p >= FIRST_COLUMN and index == 0:
            return None  # never a whole column into an empty one
        for dst in COLUMNS:
            if dst != p and not self.piles[dst]:
                move = MOVES[p][dst][n - 1]
                if self.reason(move) is None:
                    return move
        return None

    # -- views ------------------------------------------------------------------------------------

    def visible_waste(self) -> list[Card]:
        """The face-up spread on the waste, bottom first; its last card is playable."""
        waste = self.piles[WASTE]
        if not waste:
            return []
        return waste[-max(self.spread, 1) :]

    def _foundations_view(self) -> list[FoundationView]:
        return [
            {
                "suit": SUITS[self.foundation_suits[i]],
                "start": RANKS[self.base_rank],
                "cards": [card_str(c) for c in self.piles[FOUNDATIONS[i]]],
            }
            for i in range(4)
        ]

    def player_view(self, *, sees_hidden: bool = False, look_ahead: bool = True) -> PlayerView:
        """What the player may see: never a stock card, nor a reserve card below the top.
        ``finishable`` may use the hidden cards only with ``sees_hidden`` (a practice game), else
        it answers from what the player has seen; ``stuck`` always answers from what the player
        sees (``finish.outlook``). ``look_ahead=False`` leaves both unasked (false), for a
        reader that never looks at them: a simulated player (``players``), whose every action
        would otherwise pay for the search."""
        reserve = self.piles[RESERVE]
        legal = self.generate_legal()
        ahead = outlook(self, sees_hidden=sees_hidden) if look_ahead else _NOT_ASKED
        return {
            "draw": self.code.draw,
            "variant": self.code.variant,
            "reserve": {"top": card_str(reserve[-1]) if reserve else None, "count": len(reserve)},
            "stock": {"count": len(self.stock)},
            "waste": {
                "count": len(self.piles[WASTE]),
                "cards": [card_str(c) for c in self.visible_waste()],
            },
            "foundations": self._foundations_view(),
            "columns": [[card_str(c) for c in self.piles[k]] for k in COLUMNS],
            "score": self.score,
            "won": self.is_won(),
            "moves": self.moves,
            "undos": self.undos,
            "recycles": self.recycles,
            "foundation_cards": self.foundation_cards,
            "can_undo": self._depth > 0 and not self.is_won(),
            "legal": [a.token() for a in legal],
            "finishable": ahead.finishable,
            "stuck": ahead.stuck,
        }

    def full_view(self) -> FullView:
        """Everything: reserve top first, stock next card first, other piles bottom first."""
        return {
            "code": str(self.code),
            "draw": self.code.draw,
            "variant": self.code.variant,
            "reserve": [card_str(c) for c in reversed(self.piles[RESERVE])],
            "foundations": [[card_str(c) for c in self.piles[f]] for f in FOUNDATIONS],
            "foundation_suits": [SUITS[s] for s in self.foundation_suits],
            "columns": [[card_str(c) for c in self.piles[k]] for k in COLUMNS],
            "stock": [card_str(c) for c in reversed(self.stock)],
            "waste": [card_str(c) for c in self.piles[WASTE]],
            "score": self.score,
            "won": self.is_won(),
            "ply": self.ply,
            "moves": self.moves,
            "undos": self.undos,
            "recycles": self.recycles,
            "foundation_cards": self.foundation_cards,
            "legal": [a.token() for a in self.generate_legal()],
        }

    def position_key(self) -> tuple[tuple[Card, ...], ...]:
        """A hashable summary of the position (piles and stock), for searches in one process."""
        return (*(tuple(p) for p in self.piles), tuple(self.stock))

    def position_digest(self) -> str:
        """The position under its rules as a stable key, for caches that several processes or
        machines share: a SHA-256 hex digest of :meth:`position_key` in card text with the draw,
        the rules, the base rank and the foundations' suits. Two games have the same digest
        exactly when the same actions are legal in both and lead to the same positions, however
        each got there; the counters, the undo history and the waste's face-up spread are left
        out, since none of them changes what can be played from here."""
        rules = f"{self.code.mode}|{RANKS[self.base_rank]}|"
        rules += "".join(SUITS[s] for s in self.foundation_suits)
        piles = "|".join(" ".join(card_str(c) for c in pile) for pile in self.position_key())
        return hashlib.sha256(f"{rules}|{piles}".encode("ascii")).hexdigest()
