"""Shared helpers for the engine tests: known games, and deterministic searches for positions.

Positions come from real play only — the first deal number with a wanted property, a prefix of a
game in the corpus, or a seeded random playout — never from editing the engine's lists, except in
:func:`impossible_position`, which exists only for the two defensive messages no game can reach.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from games.engine import Action, Canfield, DealCode, GameRecord, card_str, parse_card
from games.engine.actions import PILE_BY_NAME

CORPUS = Path(__file__).parent / "corpus"
WORKED_CODE = "CF1-D3-AAAAACL"
#: The winning line of the rules' worked example, one token per action.
WON_LINE: list[str] = GameRecord.parse((CORPUS / "won-AAAAACL.txt").read_text()).tokens

Predicate = Callable[[Canfield], bool]


def won_prefix(plies: int) -> Canfield:
    """The worked example's game after the first ``plies`` actions of its winning line."""
    return Canfield.replay(WORKED_CODE, WON_LINE[:plies])


def classic_prefix(plies: int) -> Canfield:
    """The corpus's won classic game (CF1-H3-AAAAAAB) after its first ``plies`` actions."""
    record = GameRecord.parse((CORPUS / "won-classic-AAAAAAB.txt").read_text())
    return Canfield.replay(record.code, record.actions[:plies])


def first_won_ply(predicate: Predicate) -> Canfield:
    """The earliest position of the worked example's winning line where ``predicate`` holds."""
    game = Canfield(WORKED_CODE)
    for token in WON_LINE:
        if predicate(game):
            return game
        game.push(Action.parse(token))
    if predicate(game):
        return game
    raise AssertionError("no position of the winning line has the property")


def first_deal(
    predicate: Predicate, *, draw: int = 3, variant: str = "app", limit: int = 5000
) -> Canfield:
    """The starting position of the lowest deal number whose start satisfies ``predicate``."""
    for number in range(limit):
        game = Canfield(DealCode(number, draw, variant))  # type: ignore[arg-type]
        if predicate(game):
            return game
    raise AssertionError(f"no deal below {limit} has the property")


def find_position(
    predicate: Predicate,
    *,
    draw: int = 3,
    variant: str = "app",
    deals: range = range(300),
    plies: int = 200,
) -> Canfield:
    """The first position, in seeded random playouts (no undo) of the deals in ``deals``, where
    ``predicate`` holds. Deterministic: deal ``n`` is played with ``random.Random(n)``."""
    for number in deals:
        rng = random.Random(number)
        game = Canfield(DealCode(number, draw, variant))  # type: ignore[arg-type]
        for _ in range(plies):
            if predicate(game):
                return game
            legal = [a for a in game.generate_legal() if a.kind != "undo"]
            if not legal:
                break
            game.push(rng.choice(legal))
    raise AssertionError("no playout reached a position with the property")


def legal_tokens(game: Canfield) -> list[str]:
    return [a.token() for a in game.generate_legal()]


def top(game: Canfield, pile: str) -> str:
    """The text of the top card of a pile (R, W, F1..F4, T1..T4), or "" if it is empty."""
    cards = game.piles[PILE_BY_NAME[pile]]
    return card_str(cards[-1]) if cards else ""


def is_red(card: str) -> bool:
    return card[1] in "HD"


def spec_fits(card: str, onto: str) -> bool:
    """RULES.md, written independently of the engine's table: a card goes onto a card of the
    opposite colour exactly one rank higher, and a K onto an A."""
    ranks = "A23456789TJQK"
    one_lower = (ranks.index(card[0]) + 1) % 13 == ranks.index(onto[0])
    return is_red(card) != is_red(onto) and one_lower


def impossible_position(game: Canfield, **piles: list[str]) -> Canfield:
    """Overwrite whole piles (``R``, ``W``, ``F1``..``F4``, ``T1``..``T4``; bottom first) with the
    given cards. Only for the defensive messages that no legal game can reach; the result need
    not even hold 52 distinct cards."""
    for name, cards in piles.items():
        game.piles[PILE_BY_NAME[name]][:] = [parse_card(c) for c in cards]
    return game
