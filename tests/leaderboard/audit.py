"""The players of the fair-play audit (tests/leaderboard/test_fair_play_audit.py).

:class:`SightBot` is the audit's single-account bot: it sees only what a player sees (the views
the API answers) and plays the solver's line on a deck it guesses — the cards it has seen where
it saw them, the others in a seeded order — keeping the line while it still wins on the deck as
now known, and solving again when it does not. Pure engine, no Django.
"""

from __future__ import annotations

import random
from typing import Any

from games.engine import Canfield, DealCode
from games.engine.cards import card_str, parse_card
from games.engine.errors import EngineError
from games.engine.solver import solve

#: Cards dealt to the reserve.
RESERVE = 13


class SightBot:
    def __init__(self, view: dict[str, Any], positions: int = 20_000, tries: int = 5) -> None:
        self.draw, self.variant = view["draw"], view["variant"]
        self.columns = [column[0] for column in view["columns"]]
        self.base = next(f["cards"][0] for f in view["foundations"] if f["cards"])
        self.stock = view["stock"]["count"]
        #: The first pass's stock cards in the order drawn, and how many each action added.
        self.drawn: list[str] = []
        self.added: list[int] = []
        #: The reserve's cards seen, its top first.
        self.revealed = [view["reserve"]["top"]]
        self.played: list[str] = []
        self.line: list[str] = []
        self.positions, self.tries = positions, tries

    def guess(self, k: int) -> DealCode:
        """A deck as the bot knows it: the unseen cards in an order of seed ``k``."""
        seen = {*self.drawn, *self.revealed, *self.columns, self.base}
        rest = [card_str(c) for c in range(52) if card_str(c) not in seen]
        random.Random(k).shuffle(rest)
        unseen_stock = self.stock - len(self.drawn)
        drawn = self.drawn + rest[:unseen_stock]
        reserve = list(reversed(self.revealed + rest[unseen_stock:]))
        deck = [*reserve, self.base, *self.columns, *reversed(drawn)]
        return DealCode.from_deck([parse_card(c) for c in deck], self.draw, self.variant)

    def wins(self, line: list[str]) -> bool:
        try:
            return Canfield.replay(self.guess(0), self.played + line).is_won()
        except EngineError:
            return False

    def choose(self) -> str:
        if not self.line:
            for k in range(self.tries):
                found = solve(
                    Canfield.replay(self.guess(k), self.played), max_positions=self.positions
                )
                if found.outcome == "win":
                    self.line = found.tokens()
                    break
            else:
                return "U" if self.played else "D"
        return self.line.pop(0)

    def saw(self, token: str, view: dict[str, Any]) -> None:
        """``token`` was played and ``view`` is the position now."""
        if token == "U":
            self.played.pop()
            added = self.added.pop()
            if added:
                del self.drawn[-added:]
        else:
            self.played.append(token)
            added = 0
            if token == "D" and view["recycles"] == 0 and len(self.drawn) < self.stock:
                added = min(self.draw, self.stock - len(self.drawn))
                self.drawn += view["waste"]["cards"][-added:]
            self.added.append(added)
        top = view["reserve"]["top"]
        if top is not None and RESERVE - view["reserve"]["count"] >= len(self.revealed):
            self.revealed.append(top)
        if not self.wins(self.line):
            self.line = []
