"""Shared helpers for the engine tests: known games, and deterministic searches for positions.

Positions come from real play only — the first deal number with a wanted property, a prefix of a
game in the corpus, or a seeded random playout — never from editing the engine's lists, except in
:func:`impossible_position`, which exists only for the two defensive messages no game can reach.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from games.engine import Action, Canfield, DealCode, GameRecord, Reason, card_str, parse_card
from games.engine.actions import PILE_BY_NAME

CORPUS = Path(__file__).parent / "corpus"
WORKED_CODE = "CF1-D3-AAAAACL"
#: The winning line of the rules' worked example, one token per action.
WON_LINE: list[str] = GameRecord.parse((CORPUS / "won-AAAAACL.txt").read_text()).tokens

Predicate = Callable[[Canfield], bool]

#: A reason of every code, with its English: what the engine says, cards and piles in words.
REASONS: list[tuple[Reason, str]] = [
    (Reason("game_won"), "The game is won: it accepts no further action."),
    (Reason("stock_empty"), "The stock is empty: turn the waste over instead."),
    (Reason("stock_and_waste_empty"), "The stock and the waste are both empty."),
    (Reason("stock_not_empty", count=1), "The stock still holds 1 card: draw instead."),
    (Reason("waste_empty"), "Nothing to turn over: the waste is empty."),
    (Reason("undo_limit", count=100), "Only the last 100 actions can be undone."),
    (Reason("nothing_to_undo"), "Nothing to undo."),
    (Reason("pile_empty", pile="R"), "The reserve is empty."),
    (Reason("one_card_from_pile", pile="W"), "Only one card at a time comes from the waste."),
    (Reason("no_run", pile="T1", count=8, run=9), "Column 1 holds 8 cards: it has no run of 9."),
    (Reason("one_card_to_foundation"), "Only one card at a time goes to a foundation."),
    (Reason("foundation_to_foundation"), "A foundation card never goes to another foundation."),
    (
        Reason("wrong_suit", card="QC", pile="F2", suit="S"),
        "The queen of clubs cannot go to foundation 2: it holds spades, not clubs.",
    ),
    (Reason("foundation_complete", pile="F2", suit="S"), "The spades foundation is complete."),
    (
        Reason("not_starting_rank", card="AS", pile="F2", target="7S"),
        "The spades foundation starts with the seven.",
    ),
    (
        Reason("not_next_rank", card="4H", pile="F1", target="AH"),
        "The four of hearts cannot go to foundation 1: it needs the ace of hearts next.",
    ),
    (Reason("not_a_destination", pile="W"), "No card goes to the waste."),
    (Reason("own_column"), "A run cannot move onto its own column."),
    (Reason("classic_no_take_back"), "Classic rules: no card is taken back from a foundation."),
    (
        Reason("classic_whole_column"),
        "Classic rules: cards move between columns only as a whole pile.",
    ),
    (
        Reason("same_colour", card="KD", target="2H"),
        "The king of diamonds cannot go on the two of hearts: they are the same colour.",
    ),
    (
        Reason("not_one_rank_lower", card="7H", target="TS", rank="8"),
        "The seven of hearts cannot go on the ten of spades: a seven goes on an eight.",
    ),
    (
        Reason("empty_needs_reserve", pile="T4"),
        "Column 4 is empty and waits for the reserve.",
    ),
    (
        Reason("classic_empty_column"),
        "Classic rules: an empty column takes only the waste's top card.",
    ),
    (Reason("action_not_text", text="int"), "an action is a text token, not int"),
    (
        Reason("not_an_action", text="'R-T5'"),
        "not an action: 'R-T5' (expected D, C, U or a move such as R-T2, T2:3-T4)",
    ),
    (
        Reason("count_not_from_column", text="'R:2-T1'", pile="R"),
        "'R:2-T1': only a column's run has a card count; R gives one card",
    ),
    (
        Reason("bad_run_count", text="'T1:1-T2'", count=52),
        "'T1:1-T2': a run count is written only for 2 to 52 cards",
    ),
    (Reason("same_pile", text="'T1-T1'"), "'T1-T1': source and destination are the same pile"),
    (
        Reason("no_pile_to_tap", text="'Z'"),
        "no pile 'Z' to tap: use S, R, W, F1-F4 or T1-T4",
    ),
    (Reason("no_card_at_index", pile="T1", text="7"), "T1 has no card at index 7"),
    (Reason("code_not_text", text="int"), "a game code is text, not int"),
    (
        Reason("not_three_parts", text="'nope'"),
        "'nope' is not a game code: expected three parts like CF1-D3-AAAAACL",
    ),
    (
        Reason("unknown_format", text="'CF9-D3-AAAAACL'", part="'CF9'"),
        "'CF9-D3-AAAAACL': unknown deal format 'CF9' (CF1 or CF2)",
    ),
    (
        Reason("bad_mode", text="'CF1-D4-AAAAACL'", part="'D4'"),
        "'CF1-D4-AAAAACL': mode 'D4' must be D3 or D1 (app rules) or H3 or H1 (classic rules)",
    ),
    (
        Reason("bad_letters", text="'CF1-D3-AAAAAC'", count=7),
        "'CF1-D3-AAAAAC': the deal number must be 7 capital letters A-Z",
    ),
    (
        Reason("bad_cf2_characters", text="'CF2-D3-0'", count=41),
        "'CF2-D3-0': a CF2 deal is 41 base58 characters (1-9, A-Z and a-z without O, I and l)",
    ),
    (
        Reason("check_mismatch", text="'CF2-D3-1'"),
        "'CF2-D3-1': the check characters do not match: mistyped code?",
    ),
    (
        Reason("past_last_deck", text="'CF2-D3-z'"),
        "'CF2-D3-z': not a deal: its number is past 52! - 1",
    ),
]


def hidden_cards(game: Canfield) -> set[str]:
    """The cards the player cannot see now: the stock, and the reserve below its top."""
    view = game.full_view()
    return set(view["stock"]) | set(view["reserve"][1:])


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


#: A deal built for the tests of Finish, in dealing order (deck[0:13] the reserve, its top last;
#: deck[13] the base card; deck[14:18] the columns; deck[18:52] the stock, drawn from its end):
#: the reserve is the spades 2 to K over the ace of hearts, the base card the ace of spades, the
#: columns AD AC 2D 2C; the stock holds the other hearts, diamonds and clubs.
RESERVE_CARDS = ["AH", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S", "4S", "3S", "2S"]
COLUMN_CARDS = ["AD", "AC", "2D", "2C"]
STOCK_SET = (
    [f"{r}H" for r in "23456789TJQK"]
    + [f"{r}D" for r in "3456789TJQK"]
    + [f"{r}C" for r in "3456789TJQK"]
)
#: To the foundations: the reserve's spades, its ace of hearts, then the four column cards.
OPENING = ["R-F1"] * 12 + ["R-F2", "T1-F3", "T2-F4", "T3-F3", "T4-F4"]


def built_deal(drawn: list[str], draw: int) -> str:
    """The code of the deal above whose stock turns up ``drawn`` in that order."""
    deck = [*RESERVE_CARDS, "AS", *COLUMN_CARDS, *reversed(drawn)]
    return str(DealCode.from_deck([parse_card(c) for c in deck], draw))  # type: ignore[arg-type]


def in_threes_each_upside_down(cards: list[str]) -> list[str]:
    """Drawn three at a time, each three's last card is the first of them in ``cards``."""
    return [c for i in range(0, len(cards), 3) for c in reversed(cards[i : i + 3])]


#: Drawing three, the next card each foundation needs always comes up on top: Finish wins.
FRIENDLY = in_threes_each_upside_down(STOCK_SET)
#: Drawing three, the cards the foundations need never come up on top: Finish cannot win.
UNFRIENDLY = ["2H", "3D", "4H", "3C", *(c for c in STOCK_SET if c not in {"2H", "3D", "4H", "3C"})]
