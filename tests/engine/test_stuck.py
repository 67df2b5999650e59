"""Stuck for good (``games.engine.progress``, asked by ``finish.stuck``): no line of moves that
uses only the cards the player sees and has seen brings a new card into sight or a card more onto
the foundations. Positions built for it, under both rule sets and both draw modes; the search
checked against an unpruned one that uses nothing but the engine; and the answer never told apart
by a hidden card."""

from __future__ import annotations

import dataclasses
import random
from typing import Required, TypedDict

import pytest

from games.engine import Action, Canfield, DealCode, card_str
from games.engine.actions import COLUMNS, FOUNDATIONS, RESERVE
from games.engine.finish import sight, stock_is_known, stuck
from games.engine.players import CASUAL, EXPERT
from games.engine.players import play as play_out
from games.engine.progress import Sight, look_ahead

from .brute import TooBig, position
from .helpers import WON_LINE, WORKED_CODE

RULES = [(variant, draw) for variant in ("app", "classic") for draw in (1, 3)]


def code(variant: str, draw: int) -> str:
    """A deal whose base card is the ace of spades: the foundations F1-F4 are spades, hearts,
    diamonds and clubs, each from the ace."""
    deck = list(range(52))
    deck[0], deck[13] = deck[13], deck[0]
    return str(DealCode.from_deck(deck, draw, variant))  # type: ignore[arg-type]


class Piles(TypedDict, total=False):
    """``brute.position``'s arguments: the cards on each foundation, the other piles as text."""

    foundations: Required[tuple[int, int, int, int]]
    reserve: str
    waste: str
    stock: str
    columns: tuple[str, str, str, str]


def built(variant: str, draw: int, piles: Piles, *, seen: bool = True) -> Canfield:
    """The position ``piles`` of the deal above; ``seen``: the player has gone through the stock
    once (a recycle in effect), so its order is known."""
    game = position(code(variant, draw), **piles)
    game.recycles = 1 if seen else 0
    return game


def progressive(game: Canfield, action: Action, root_cards: int, unseen_stock: bool) -> bool:
    """Whether ``action`` in ``game`` is progress for a search that started at a position with
    ``root_cards`` on the foundations: it turns a card up (the reserve's top card leaving a
    reserve of more than one, by itself or to fill a column; a draw from a stock not yet seen in
    order), or places a card so that the foundations hold more than they did."""
    piles = game.piles
    if action.kind == "draw":
        return unseen_stock
    if action.kind != "move":
        return False
    if len(piles[RESERVE]) > 1 and (
        action.src == RESERVE or (action.src in COLUMNS and action.count == len(piles[action.src]))
    ):
        return True
    return action.dst in FOUNDATIONS and game.foundation_cards + 1 > root_cards


def progress_by_engine(game: Canfield, limit: int = 20_000) -> bool:
    """Whether some line of the engine's own actions reaches a progressive one: depth first over
    every position (piles in order, the stock), draws and recycles as actions of their own, no
    pruning; ``game`` is restored after. Raises :class:`TooBig` past ``limit`` positions."""
    root_cards = game.foundation_cards
    unseen = not stock_is_known(game)
    seen = {game.position_key()}
    stack = [[a for a in game.generate_legal() if a.kind != "undo"]]
    pushed = 0
    try:
        while stack:
            todo = stack[-1]
            if not todo:
                stack.pop()
                if pushed:
                    game.pop()
                    pushed -= 1
                continue
            action = todo.pop()
            if progressive(game, action, root_cards, unseen):
                return True
            game.push(action)
            key = game.position_key()
            if key in seen:
                game.pop()
                continue
            seen.add(key)
            if len(seen) > limit:
                game.pop()
                raise TooBig(f"more than {limit} positions")
            pushed += 1
            stack.append([a for a in game.generate_legal() if a.kind != "undo"])
        return False
    finally:
        for _ in range(pushed):
            game.pop()


def at_hand(game: Canfield, cards: int | None = None) -> list[str]:
    """The progressive actions legal now, for a search from a position with ``cards`` on the
    foundations (this one's when omitted)."""
    cards = game.foundation_cards if cards is None else cards
    unseen = not stock_is_known(game)
    return [a.token() for a in game.generate_legal() if progressive(game, a, cards, unseen)]


def play(game: Canfield, tokens: list[str]) -> Canfield:
    for token in tokens:
        game.push(Action.parse(token))
    return game


# -- positions built for it ------------------------------------------------------------------------

#: Every foundation up to its nine; the four tens (all the foundations want) lie in the reserve
#: under its top card, the king of hearts, which goes nowhere (the aces are on the foundations).
#: The jack of hearts can go back and forth between the black queens (the app's rules), the
#: jack of diamonds from the waste onto the queen of clubs; the other waste cards go nowhere.
STUCK: Piles = {
    "foundations": (9, 9, 9, 9),
    "reserve": "TS TH TD TC QH QD KH",
    "waste": "JS JC KD JD",
    "columns": ("QS JH", "QC", "KS", "KC"),
}


@pytest.mark.parametrize(("variant", "draw"), RULES)
def test_stuck_for_good_while_moves_and_the_stock_still_go_round(variant: str, draw: int) -> None:
    game = built(variant, draw, STUCK)
    legal = [a.token() for a in game.generate_legal()]
    # The old notice ("no move is legal but drawing, recycling and undoing") said no here.
    assert legal == (["W-T2", "T1-T2", "C"] if variant == "app" else ["W-T2", "C"])
    assert stuck(game) is True
    assert game.player_view()["stuck"] is game.player_view(sees_hidden=True)["stuck"] is True
    assert progress_by_engine(game) is False

    # Back and forth, round the stock: still nothing to be had.
    tokens = ["T1-T2", "T2-T1", "W-T2"] if variant == "app" else ["W-T2"]
    play(game, [*tokens, "C", *["D"] * (3 // draw)])
    assert stuck(game) is True


@pytest.mark.parametrize(("variant", "draw"), RULES)
def test_a_stock_the_player_has_not_seen_is_a_way_forward(variant: str, draw: int) -> None:
    piles: Piles = {**STUCK, "waste": "JS JC", "stock": "KD JD"}
    assert stuck(built(variant, draw, piles, seen=False)) is False  # a draw shows new cards
    assert stuck(built(variant, draw, piles, seen=True)) is True  # the same, all seen before


#: The waste (all of it face up, bottom first: KD 8D QS KS) holds the eight of diamonds that the
#: diamonds want, out of reach drawing three; the other three waste cards go nowhere but to an
#: empty column, and the reserve is used up. The ten of diamonds (T3) goes onto the jack of
#: spades, the column empties; a recycle and a draw bring the queen up, it goes to the empty
#: column, and the eight of diamonds under it is on top.
WASTE_LINE: Piles = {
    "foundations": (9, 13, 7, 13),
    "waste": "KD 8D QS KS",
    "columns": ("TS 9D", "QD JS", "TD", "JD"),
}


@pytest.mark.parametrize("variant", ["app", "classic"])
def test_a_column_move_lets_a_waste_card_go_and_a_draw_cycle_brings_one_home(variant: str) -> None:
    game = built(variant, 3, WASTE_LINE)
    assert at_hand(game) == []
    assert look_ahead(sight(game)).outcome == "progress"
    assert stuck(game) is False
    play(game, ["T3-T2", "C", "D", "W-T3"])
    assert at_hand(game) == ["W-F3"]

    # Drawing one, the eight of diamonds comes to the top by drawing alone.
    game = built(variant, 1, WASTE_LINE)
    assert stuck(game) is False
    assert at_hand(play(game, ["C", "D", "D"])) == ["W-F3"]


#: The jack of diamonds on the waste goes onto the queen of spades (T2); then the ten of clubs,
#: alone in T1, goes onto it, and the reserve's top card fills T1: the card under it comes into
#: sight. Nothing else moves.
RESERVE_LINE: Piles = {
    "foundations": (9, 9, 9, 8),
    "reserve": "TS TH TD 9C JH QH QD JC QC KH",
    "waste": "JS KD JD",
    "columns": ("TC", "QS", "KS", "KC"),
}


@pytest.mark.parametrize(("variant", "draw"), RULES)
def test_a_run_that_empties_its_column_lets_the_reserve_top_go(variant: str, draw: int) -> None:
    game = built(variant, draw, RESERVE_LINE)
    assert at_hand(game) == []
    assert stuck(game) is False
    play(game, ["W-T2"])
    assert at_hand(game) == ["T1-T2"]
    play(game, ["T1-T2"])
    assert [card_str(c) for c in (game.piles[COLUMNS[0]][0], game.piles[RESERVE][-1])] == [
        "KH",
        "QC",
    ]  # the king fills T1, and the queen of clubs comes into sight


#: The app's take-backs are ordinary steps, and may be the only way on: the nine of spades goes
#: back onto the ten of diamonds (T1), the nine of hearts onto the ten of clubs (T2), the eight
#: of hearts under it onto the nine of spades, and the reserve's top card, the seven of clubs,
#: onto the eight. The classic rules have no take-backs: there the position is stuck for good.
TAKE_BACKS: Piles = {
    "foundations": (9, 9, 6, 5),
    "reserve": "TS TH 7D 6C 8D 9D 8C 9C QH QD 7C",
    "waste": "JS QS JH KH KD QC",
    "columns": ("JC TD", "JD TC", "KS", "KC"),
}


@pytest.mark.parametrize(("variant", "draw"), RULES)
def test_take_backs_can_be_the_way_forward(variant: str, draw: int) -> None:
    game = built(variant, draw, TAKE_BACKS)
    assert at_hand(game) == []
    assert stuck(game) is (variant == "classic")
    assert progress_by_engine(game) is (variant == "app")
    if variant == "app":
        play(game, ["F1-T1", "F2-T2", "F2-T1"])
        assert at_hand(game, cards=29) == ["R-T1"]  # (T1-F2 puts the eight back: no more)


def test_a_won_game_is_not_stuck() -> None:
    game = Canfield.replay(WORKED_CODE, WON_LINE)
    assert game.is_won()
    assert stuck(game) is False
    assert game.player_view()["stuck"] is False


def test_past_its_bound_the_search_claims_nothing() -> None:
    game = built("app", 3, STUCK)
    assert look_ahead(sight(game)) == ("no_progress", 4)
    assert look_ahead(sight(game), limit=3) == ("unknown", 4)  # (the notice: only on a proof)
    assert stuck(game) is True  # (within POSITIONS)


# -- the search against the engine -----------------------------------------------------------------


@pytest.fixture(scope="module")
def played() -> list[Canfield]:
    """Every position of simulated players' games (casual and expert, who get stuck and undo),
    two deals of each rule set and draw mode."""
    rng = random.Random(28)
    positions = []
    for n in range(8):
        variant, draw = RULES[n % 4]
        deal = DealCode(rng.randrange(26**7), draw, variant)  # type: ignore[arg-type]
        for level in (CASUAL, EXPERT):
            game = Canfield(deal)
            for token in play_out(deal, level, f"stuck {n}").tokens:
                game.push(Action.parse(token))
                positions.append(Canfield.restore(deal, game.snapshot()))
    return positions


def test_the_search_finds_what_the_engine_finds(played: list[Canfield]) -> None:
    """Positions of real play that the quick outs do not answer: the pruned search (draws folded
    into waste moves, columns sorted, take-backs in their normal form) answers what a search of
    every line of the engine's own actions answers."""
    searched: dict[Sight, tuple[Canfield, str]] = {}
    for game in played:
        found = look_ahead(sight(game))
        if found.positions and found.outcome != "unknown":
            searched.setdefault(sight(game), (game, found.outcome))
    answers = {True: 0, False: 0}
    for game, outcome in random.Random(1).sample(sorted(searched.values(), key=str), 150):
        try:
            expected = progress_by_engine(game, limit=5000)
        except TooBig:
            continue
        assert (outcome == "progress") is expected, (str(game.code), game.full_view())
        answers[expected] += 1
    assert answers[True] >= 30 and answers[False] >= 30, answers


# -- what the player has not seen ------------------------------------------------------------------


def twin(game: Canfield, rng: random.Random) -> Canfield:
    """The same position with the cards the player has not seen shuffled: the reserve below its
    top, and the stock while its order is not known."""
    snapshot = game.snapshot()
    piles = [list(pile) for pile in snapshot.piles]
    under = piles[RESERVE][:-1]
    rng.shuffle(under)
    piles[RESERVE][:-1] = under
    stock = list(snapshot.stock)
    if not stock_is_known(game):
        rng.shuffle(stock)
    moved = dataclasses.replace(
        snapshot, piles=tuple(tuple(pile) for pile in piles), stock=tuple(stock)
    )
    return Canfield.restore(game.code, moved)


def test_the_cards_the_player_has_not_seen_never_change_the_answer(played: list[Canfield]) -> None:
    """Positions of real play and of random play, each beside twins that differ from it only in
    hidden cards: the same answer, found the same way (the same positions searched). The search
    is given nothing hidden."""
    rng = random.Random(29)
    games = rng.sample(played, 300)
    for n in range(100):
        variant, draw = RULES[n % 4]
        game = Canfield(DealCode(rng.randrange(26**7), draw, variant))  # type: ignore[arg-type]
        for _ in range(rng.randrange(300)):
            legal = [a for a in game.generate_legal() if a.kind != "undo"]
            if not legal:
                break
            game.push(rng.choice(legal))
        games.append(game)
    seen = {True: 0, False: 0}
    for game in games:
        view = sight(game)
        hidden = set(game.piles[RESERVE][:-1])
        if not stock_is_known(game):
            hidden |= set(game.stock)
        assert not hidden & {*view.talon, *b"".join(view.columns), view.reserve_top}
        answer = look_ahead(view)
        for _ in range(3):
            other = twin(game, rng)
            assert look_ahead(sight(other)) == answer
            assert other.player_view() == game.player_view()
        seen[stuck(game)] += 1
    assert seen[True] >= 20 and seen[False] >= 20, seen
