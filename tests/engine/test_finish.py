"""Finish and the stuck notice (``games.engine.finish``): what Finish answers, checked against
playing the positions out with the engine; the line Finish plays, legal step by step and
winning; and that without the hidden cards both answer only what a player can know — two deals
that differ only in cards the player has not seen get the same answers at every position of the
same play. What "stuck for good" means, on positions built for it: ``test_stuck.py``."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.engine import Action, Canfield, DealCode, GameRecord
from games.engine.actions import FOUNDATIONS, RESERVE, WASTE
from games.engine.finish import finish_line, finishable

from .helpers import (
    CORPUS,
    FRIENDLY,
    OPENING,
    UNFRIENDLY,
    built_deal,
    first_won_ply,
)

OUTLOOK = ("finishable", "stuck")


def play_out_foundations(game: Canfield, rng: random.Random) -> bool:
    """Play foundation moves (a random one of those legal) while there are any, else draw or
    recycle, with the engine, until the game is won or a whole cycle of the stock brought
    nothing; then take every action back. Whether that won."""
    pushed = idle = 0
    while not game.is_won():
        legal = game.generate_legal()
        home = [a for a in legal if a.kind == "move" and a.dst in FOUNDATIONS]
        home = [a for a in home if a.src not in FOUNDATIONS]  # (never a take-back)
        if home:
            game.push(rng.choice(home))
            idle = 0
        else:
            turn = [a for a in legal if a.kind in ("draw", "recycle")]
            if not turn or idle > 2 * (len(game.stock) + len(game.piles[WASTE]) + 1):
                break
            game.push(turn[0])
            idle += 1
        pushed += 1
    won = game.is_won()
    for _ in range(pushed):
        game.pop()
    return won


def random_position(rng: random.Random) -> Canfield:
    code = DealCode(rng.randrange(26**7), rng.choice([1, 3]), rng.choice(["app", "classic"]))
    game = Canfield(code)
    for _ in range(rng.randrange(400)):
        legal = game.generate_legal()
        if not legal:
            break
        home = [a for a in legal if a.kind == "move" and a.dst in FOUNDATIONS]
        game.push(rng.choice(home) if home and rng.random() < 0.6 else rng.choice(legal))
    return game


def test_finish_answers_what_playing_the_position_out_gives() -> None:
    rng = random.Random(2024)
    seen = 0
    for _ in range(300):
        game = random_position(rng)
        done = finishable(game, sees_hidden=True)
        assert done == play_out_foundations(game, rng), game.history
        # Without the hidden cards: never a yes where the whole position says no.
        assert finishable(game, sees_hidden=False) <= done
        seen += done
    assert 5 <= seen < 300, seen  # both answers were tried


@pytest.mark.parametrize(
    "name", ["won-AAAAACL.txt", "won-d1-AAAAAAA.txt", "won-classic-AAAAAAB.txt"]
)
def test_a_won_game_is_finishable_before_its_stock_is_empty(name: str) -> None:
    """Along the corpus's won games, Finish comes while cards are still in the stock or the
    waste (the line has draws left in it), and from then on it stays, to the end."""
    record = GameRecord.parse((CORPUS / name).read_text())
    game = Canfield(record.code)
    first = None
    for ply, action in enumerate(record.actions):
        if finishable(game, sees_hidden=True) and first is None:
            first = ply
            assert game.stock or game.piles[WASTE]
            assert play_out_foundations(game, random.Random(ply))
        game.push(action)
    assert first is not None and first < len(record.actions) - 1
    assert not finishable(game, sees_hidden=True)  # won: nothing to finish
    assert game.player_view()["finishable"] is False


def test_a_position_with_every_card_in_sight_gets_the_same_answers_either_way() -> None:
    game = first_won_ply(lambda g: not g.stock and not g.piles[WASTE] and not g.piles[RESERVE])
    assert game.player_view() == game.player_view(sees_hidden=True)
    assert game.player_view()["finishable"] is True


# -- what a player has not seen ------------------------------------------------------------------


def views(code: str, tokens: list[str], sees_hidden: bool = False) -> dict[str, Any]:
    view: dict[str, Any] = dict(Canfield.replay(code, tokens).player_view(sees_hidden=sees_hidden))
    return view


def test_drawing_three_the_stocks_order_decides_finish_so_a_daily_waits_to_see_it() -> None:
    friendly, unfriendly = built_deal(FRIENDLY, 3), built_deal(UNFRIENDLY, 3)
    for plies in (12, len(OPENING)):  # the reserve down to its last card, then empty
        a, b = views(friendly, OPENING[:plies]), views(unfriendly, OPENING[:plies])
        assert a == b  # the same to the player, answers included
        assert a["finishable"] is False  # the order of an unseen stock decides: not known
        assert views(friendly, OPENING[:plies], sees_hidden=True)["finishable"] is True
        assert views(unfriendly, OPENING[:plies], sees_hidden=True)["finishable"] is False

    # Once the whole stock has been seen, the daily knows what the practice game knew.
    through = [*OPENING, *["D"] * 12]
    assert views(friendly, through)["finishable"] is True  # (its stock: empty; waste: seen)
    through = [*OPENING, *["D"] * 12, "C"]
    assert views(unfriendly, through)["recycles"] == 1
    assert views(unfriendly, through)["finishable"] is False
    assert views(unfriendly, through, sees_hidden=True)["finishable"] is False


def test_drawing_one_the_stocks_order_does_not_matter() -> None:
    friendly, unfriendly = built_deal(FRIENDLY, 1), built_deal(UNFRIENDLY, 1)
    for plies in (12, len(OPENING)):
        a, b = views(friendly, OPENING[:plies]), views(unfriendly, OPENING[:plies])
        assert a == b
        assert a["finishable"] is True
        assert a["stock"]["count"] == 34  # not a card of it seen yet
    assert views(friendly, OPENING[:11])["finishable"] is False  # two cards hidden in the reserve


DEAD = "CF1-D3-LQTCNKR"  # drawing three, no card of this deal can ever move


def test_a_dead_deal_is_stuck_once_the_whole_stock_has_been_seen_in_every_game_kind() -> None:
    for sees_hidden in (False, True):  # (stuck: from what the player sees, either way)
        assert views(DEAD, [], sees_hidden)["stuck"] is False  # not one stock card seen yet
        assert views(DEAD, ["D"] * 11, sees_hidden)["stuck"] is False  # one card still to come
        assert views(DEAD, ["D"] * 12, sees_hidden)["stuck"] is True  # every card seen
        assert views(DEAD, [*["D"] * 12, "C"], sees_hidden)["stuck"] is True
        assert views(DEAD, [*["D"] * 12, "C", "D", "U"], sees_hidden)["stuck"] is True

    # Its twin: the reserve's bottom card (5D, which goes on the 6S of T1) swapped with the
    # stock card that the first draw turns up on top (the third from the stock's end). The same
    # to the player at the start, and the same answers.
    deck = list(DealCode.parse(DEAD).deck())
    deck[0], deck[49] = deck[49], deck[0]
    twin = str(DealCode.from_deck(deck, 3))
    assert views(twin, []) == views(DEAD, [])
    assert views(twin, [], sees_hidden=True) == views(DEAD, [], sees_hidden=True)
    assert views(twin, ["D"])["legal"] == ["W-T1", "D", "U"]


def test_a_daily_that_sees_nothing_hidden_gets_what_the_whole_position_says() -> None:
    game = Canfield.replay(DEAD, ["D"] * 12)
    assert not game.stock
    assert game.player_view() == game.player_view(sees_hidden=True)


# -- the same answers for deals that look the same ------------------------------------------------


def lockstep(a: Canfield, b: Canfield, rng: random.Random, steps: int) -> list[tuple[bool, bool]]:
    """Plays the same random actions in ``a`` and ``b`` while the player sees the same in both;
    at every position the answers must be the same. Returns the answers compared."""
    compared: list[tuple[bool, bool]] = []
    for _ in range(steps):
        va, vb = a.player_view(), b.player_view()
        if {k: v for k, v in va.items() if k not in OUTLOOK} != {
            k: v for k, v in vb.items() if k not in OUTLOOK
        }:
            break  # a hidden card came into sight: the player can tell them apart now
        assert (va["finishable"], va["stuck"]) == (vb["finishable"], vb["stuck"]), a.history
        compared.append((va["finishable"], va["stuck"]))
        legal = a.generate_legal()
        if not legal:
            break
        home = [x for x in legal if x.kind == "move" and x.dst in FOUNDATIONS]
        reserve = [x for x in legal if x.kind == "move" and x.src == RESERVE]
        roll = rng.random()
        if home and roll < 0.5:
            action = rng.choice(home)
        elif reserve and roll < 0.7:
            action = rng.choice(reserve)
        else:
            action = rng.choice([x for x in legal if x != Action.parse("U")] or legal)
        a.push(action)
        b.push(action)
    return compared


def test_deals_that_differ_only_in_unseen_cards_get_the_same_answers() -> None:
    """Random deals and a twin of each with two hidden cards swapped (two in the reserve below
    its top, two in the stock, or one of each), played alike until the player could tell them
    apart: the daily's answers never tell them apart first."""
    rng = random.Random(22)
    compared: list[tuple[bool, bool]] = []
    below_top, stock = list(range(12)), list(range(18, 52))
    for n in range(120):
        code = DealCode(rng.randrange(26**7), rng.choice([1, 3]), rng.choice(["app", "classic"]))
        where = [below_top, stock][n % 2], [below_top, stock][(n // 2) % 2]
        i, j = rng.choice(where[0]), rng.choice(where[1])
        if i == j:
            continue
        deck = list(code.deck())
        deck[i], deck[j] = deck[j], deck[i]
        a, b = Canfield(code), Canfield(DealCode.from_deck(deck, code.draw, code.variant))
        compared += lockstep(a, b, rng, 400)
    assert len(compared) > 5000
    assert any(stuck for _, stuck in compared)  # the answers were not all "no"


# -- the line Finish plays ------------------------------------------------------------------------


def check_line(game: Canfield, sees_hidden: bool) -> list[str]:
    """``finish_line`` from ``game``: empty exactly when the position is not finishable; else
    each action is legal in turn in the engine, each is a foundation move when one is legal (the
    first of the reserve, the waste, then T1 to T4), else a draw, else a recycle, and the last
    wins. ``game`` is left as it was. Returns the line's tokens."""
    before = game.snapshot()
    line = finish_line(game, sees_hidden=sees_hidden)
    assert game.snapshot() == before
    assert bool(line) == finishable(game, sees_hidden=sees_hidden), game.history
    board = game.copy()
    for action in line:
        assert not board.is_won()
        legal = board.generate_legal()
        assert action in legal, (game.history, action)
        home = [a for a in legal if a.kind == "move" and a.dst in FOUNDATIONS]
        home = [a for a in home if a.src not in FOUNDATIONS]
        if home:
            assert action == min(home, key=lambda a: a.src), (game.history, action)
        else:
            assert action.kind == ("draw" if board.stock else "recycle")
        board.push(action)
    assert board.is_won() == bool(line)
    return [action.token() for action in line]


@pytest.mark.parametrize(
    "name", ["won-AAAAACL.txt", "won-d1-AAAAAAA.txt", "won-classic-AAAAAAB.txt"]
)
def test_it_plays_a_legal_winning_line_from_every_finishable_position_of_the_corpus(
    name: str,
) -> None:
    """Every position of the corpus's won games (draw 3, draw 1, classic rules), either way of
    seeing: the line wins wherever Finish is offered, and is empty everywhere else."""
    record = GameRecord.parse((CORPUS / name).read_text())
    game = Canfield(record.code)
    lines = 0
    for action in record.actions:
        for sees_hidden in (True, False):
            lines += bool(check_line(game, sees_hidden))
        game.push(action)
    assert lines >= 7
    assert finish_line(game, sees_hidden=True) == []  # won: nothing left to play


def test_it_plays_a_legal_winning_line_from_random_positions_of_every_kind() -> None:
    """Random positions of both draws and both rule sets, either way of seeing (those with a line
    are mostly drawing one: the next test builds them for every kind)."""
    rng = random.Random(31)
    seen: dict[tuple[int, bool], int] = {}
    for _ in range(400):
        game = random_position(rng)
        for sees_hidden in (True, False):
            if check_line(game, sees_hidden):
                kind = (game.draw, game.classic)
                seen[kind] = seen.get(kind, 0) + 1
    assert {(1, False), (1, True)} <= set(seen) and sum(seen.values()) >= 30, seen


def test_it_plays_a_line_near_the_end_of_each_kind_of_game() -> None:
    """Deals played by a simple player until the line is offered, both draws, both rule sets:
    the line from there wins, and so does the line from every position it passes through."""
    rng = random.Random(7)
    found: set[tuple[int, bool]] = set()
    for n in range(400):
        draw, variant = (1, 3)[n % 2], ("app", "classic")[(n // 2) % 2]
        game = Canfield(DealCode(rng.randrange(26**7), draw, variant))  # type: ignore[arg-type]
        for _ in range(300):
            if finishable(game, sees_hidden=True):
                break
            legal = [a for a in game.generate_legal() if a.kind != "undo"]
            if not legal:
                break
            home = [a for a in legal if a.kind == "move" and a.dst in FOUNDATIONS]
            game.push(rng.choice(home) if home else rng.choice(legal))
        else:
            continue
        tokens = check_line(game, sees_hidden=True)
        if not tokens:
            continue
        found.add((draw, game.classic))
        for played, token in enumerate(tokens[:-1], start=1):
            game.push(Action.parse(token))
            assert check_line(game, sees_hidden=True) == tokens[played:]
        if len(found) == 4:
            break
    assert found == {(1, False), (1, True), (3, False), (3, True)}


def test_it_gives_the_exact_line_drawing_three_and_recycles_when_the_stock_is_through() -> None:
    """A built deal: the reserve and the columns gone home, the stock drawn three at a time turns
    up each next card on top. A daily sees its line only once the stock has been seen (after a
    recycle it plays the waste again from the start); a practice game sees it at once."""
    suits = (
        ["D", "W-F2", "W-F2", "W-F2"] * 4
        + ["D", "W-F3", "W-F3", "W-F3"] * 3
        + ["D", "W-F3", "W-F3", "W-F4"]
        + ["D", "W-F4", "W-F4", "W-F4"] * 3
        + ["D", "W-F4"]
    )
    friendly = built_deal(FRIENDLY, 3)
    game = Canfield.replay(friendly, OPENING)
    assert check_line(game, sees_hidden=True) == suits
    assert check_line(game, sees_hidden=False) == []  # the stock's order is not known yet
    through = Canfield.replay(friendly, [*OPENING, *["D"] * 12])
    assert check_line(through, sees_hidden=False) == ["C", *suits]
    assert check_line(through, sees_hidden=True) == ["C", *suits]
    unfriendly = Canfield.replay(built_deal(UNFRIENDLY, 3), OPENING)
    assert check_line(unfriendly, sees_hidden=True) == []


def test_it_gives_a_daily_no_line_while_the_reserve_hides_cards() -> None:
    """Drawing one, the stock's order does not matter, but two cards hidden in the reserve do:
    no line for a daily until the reserve shows its last card; a practice game has one."""
    friendly = built_deal(FRIENDLY, 1)
    hiding = Canfield.replay(friendly, OPENING[:11])
    assert len(hiding.piles[RESERVE]) == 2
    assert check_line(hiding, sees_hidden=False) == []
    assert len(check_line(hiding, sees_hidden=True)) == 74
    last = Canfield.replay(friendly, OPENING[:12])
    line = check_line(last, sees_hidden=False)
    assert line[:8] == ["R-F2", "T1-F3", "T2-F4", "T3-F3", "T4-F4", "D", "D", "D"]
    assert line == check_line(last, sees_hidden=True)
