"""The clairvoyance test (games.engine.clairvoyance): its likelihood at forks built for it — one
where what the player sees cannot tell two moves apart and the hidden cards decide, one where
what they see decides —, what a log showed its player, and a padded line judged as the line
itself. The formulas are written out here as docs/fair-play.md gives them, not read from the
module."""

from __future__ import annotations

import math

import pytest

from games.engine import Action, Canfield, DealCode, IllegalAction, Snapshot, parse_card
from games.engine.actions import COLUMNS, RESERVE
from games.engine.cards import RANKS
from games.engine.clairvoyance import (
    BLIND,
    Budget,
    Sight,
    fork_at,
    habit,
    hidden,
    in_effect,
    judge,
    shown,
)
from games.engine.solver import solve
from tests.engine.helpers import WON_LINE, WORKED_CODE

#: A deal whose base card is the ace of spades, under the app's rules: its foundations hold
#: spades, hearts, diamonds and clubs, in that order (F1 to F4).
CODE = DealCode.from_deck(
    [c for c in range(52) if c != parse_card("AS")][:13]
    + [parse_card("AS")]
    + [c for c in range(52) if c != parse_card("AS")][13:],
    3,
    "app",
)


def position(home: str, reserve: list[str], columns: list[list[str]]) -> Canfield:
    """A position of CODE near a game's end: ``home`` the ranks on each foundation ("KKKK": all
    four complete), then the reserve (its top last) and the four columns (bottom first); no
    stock, no waste."""
    foundations = [
        tuple(parse_card(RANKS[r] + suit) for r in range(RANKS.index(top) + 1))
        for top, suit in zip(home, "SHDC", strict=True)
    ]
    piles = (
        tuple(parse_card(c) for c in reserve),
        (),
        *foundations,
        *(tuple(parse_card(c) for c in column) for column in columns),
    )
    snapshot = Snapshot(
        ply=60, piles=piles, stock=(), spread=0, score=0, undos=0, recycles=0, moves=60, undoable=()
    )
    return Canfield.restore(CODE, snapshot)


#: Clubs need the 8, hearts the queen; the queen of clubs tops the reserve over two hidden
#: clubs. Two moves: the reserve's queen onto the king of hearts (R-T2), or the queen of hearts
#: home (T3-F2). Whichever order the hidden jack and 8 lie in, both moves keep a win; which one
#: keeps the shortest depends on that order alone.
BLIND_FORK = {"home": "KJK7", "columns": [["TC"], ["KH"], ["KC", "QH"], ["9C"]]}
#: Spades need the 9, on column 1; a take-back (the jack of hearts onto the queen of spades,
#: F2-T2) is the other move. The 9 home is the shorter win whatever the hidden cards are.
PLAIN_FORK = {
    "home": "8JKK",
    "reserve": ["JS", "QH", "KH"],
    "columns": [["9S"], ["QS"], ["TS"], ["KS"]],
}


def tokens(game: Canfield) -> list[str]:
    return sorted(a.token() for a in game.generate_legal())


def shortest_after(game: Canfield, token: str) -> list[str]:
    after = game.copy()
    after.push(Action.parse(token))
    return solve(after, max_positions=20_000).tokens()


def honest_chance(habits: dict[str, int], move: str, budget: Budget) -> float:
    """The honest model's chance of ``move`` where every move's share is 1 (each keeps a win on
    every deal the player could be facing): the habits alone tell the moves apart."""
    weights = {m: math.exp(1 / budget.temperature - budget.habit * h) for m, h in habits.items()}
    return (1 - BLIND) * weights[move] / sum(weights.values()) + BLIND / len(weights)


def test_where_what_is_seen_cannot_tell_two_moves_apart_the_move_the_hidden_cards_favour_counts():
    truth = position(reserve=["8C", "JC", "QC"], **BLIND_FORK)  # type: ignore[arg-type]
    swapped = position(reserve=["JC", "8C", "QC"], **BLIND_FORK)  # type: ignore[arg-type]
    assert tokens(truth) == tokens(swapped) == ["R-T2", "T3-F2"]
    assert hidden(truth) == hidden(swapped) == (1 << parse_card("8C")) | (1 << parse_card("JC"))
    # The hidden cards decide: the shortest win starts with R-T2 here, with T3-F2 there.
    lines = {token: len(shortest_after(truth, token)) for token in ("R-T2", "T3-F2")}
    there = {token: len(shortest_after(swapped, token)) for token in ("R-T2", "T3-F2")}
    assert lines["R-T2"] < lines["T3-F2"] and there["T3-F2"] < there["R-T2"]

    # Without habits, the honest model cannot prefer either: one chance in two of the move that
    # keeps the win, and the clairvoyant model's ratio is (1 - ε) / (1/2) + ε.
    blind = Budget(habit=0.0)
    rest = shortest_after(truth, "R-T2")
    fork = fork_at(truth, "R-T2", unseen=hidden(truth), rest=rest, seed="s", budget=blind)
    assert fork is not None
    assert [(m.move, m.share, m.wins) for m in fork.moves] == [
        ("R-T2", 1.0, True),
        ("T3-F2", 1.0, False),
    ]
    assert fork.honest == pytest.approx(0.5)
    assert fork.evidence == pytest.approx(math.log(2 * (1 - blind.slip) + blind.slip))
    assert fork.looked_equal == ("T3-F2",) and fork.winning == ("R-T2",)

    # With the fitted habits, the honest player plays the queen of hearts home first: taking
    # the reserve's queen instead, as the hidden cards advise, is stronger evidence.
    budget = Budget()
    habits = {"R-T2": habit(truth, Action.parse("R-T2")), "T3-F2": 0}
    assert habits == {"R-T2": 1, "T3-F2": 0}
    fork = fork_at(truth, "R-T2", unseen=hidden(truth), rest=rest, seed="s", budget=budget)
    assert fork is not None
    chance = honest_chance(habits, "R-T2", budget)
    assert fork.honest == pytest.approx(chance)
    assert fork.evidence == pytest.approx(math.log((1 - budget.slip) / chance + budget.slip))
    assert fork.evidence > math.log(2)
    # The other deal: the habit's move is the one that keeps the win, and counts for less.
    rest = shortest_after(swapped, "T3-F2")
    other = fork_at(swapped, "T3-F2", unseen=hidden(swapped), rest=rest, seed="s", budget=budget)
    assert other is not None and other.winning == ("T3-F2",)
    chance = honest_chance(habits, "T3-F2", budget)
    assert other.evidence == pytest.approx(math.log((1 - budget.slip) / chance + budget.slip))
    assert 0 < other.evidence < fork.evidence
    # An attempt not won: both moves keep a win, of any length — no fork.
    assert fork_at(truth, "R-T2", unseen=hidden(truth), seed="s", budget=budget) is None


def test_where_what_is_seen_decides_a_fork_adds_next_to_nothing():
    game = position(**PLAIN_FORK)  # type: ignore[arg-type]
    assert tokens(game) == ["F2-T2", "T1-F1"]
    budget = Budget()
    rest = shortest_after(game, "T1-F1")
    fork = fork_at(game, "T1-F1", unseen=hidden(game), rest=rest, seed="s", budget=budget)

    assert fork is not None and fork.winning == ("T1-F1",) and fork.looked_equal == ()
    chance = honest_chance({"F2-T2": 4, "T1-F1": 0}, "T1-F1", budget)
    assert fork.honest == pytest.approx(chance) and chance > 0.9
    assert fork.evidence == pytest.approx(math.log((1 - budget.slip) / chance + budget.slip))
    assert fork.evidence < 0.1
    # The take-back, then a win two actions longer: the 9 home keeps a win as long — no fork.
    longer = shortest_after(game, "F2-T2")
    assert len(longer) > len(rest) + 1
    assert fork_at(game, "F2-T2", unseen=hidden(game), rest=longer, seed="s") is None


def test_a_move_not_legal_there_is_refused():
    game = position(reserve=["8C", "JC", "QC"], **BLIND_FORK)  # type: ignore[arg-type]
    with pytest.raises(IllegalAction):
        fork_at(game, "R-T1", unseen=hidden(game), seed="s")
    with pytest.raises(ValueError, match="does not win"):
        fork_at(game, "R-T2", unseen=hidden(game), rest=["T3-F2"], seed="s")
    with pytest.raises(ValueError):
        Budget(samples=0)
    with pytest.raises(ValueError):
        Budget(slip=1.0)


def test_what_a_log_showed_its_player_stays_seen_after_an_undo():
    game = Canfield(WORKED_CODE)
    fresh = Sight(game)
    assert fresh.seen == 52 - 12 - 34  # the reserve's top, the base card, the four columns

    drawn_back = ["D", "U"] * 3 + ["D"] * 12
    assert in_effect(drawn_back) == [(k, "D") for k in range(7, 19)]
    assert shown(WORKED_CODE, ["D", "U"]).seen == fresh.seen + 3  # an undone draw's three cards
    through = shown(WORKED_CODE, ["D"] * 12 + ["U"] * 12)
    assert (through.seen, through.best, through.moves) == (40, 1, 0)
    # The worked example's winning line shows all 52 cards by its 124th action, with 15 home;
    # four undos take four of them back.
    scout = shown(WORKED_CODE, [*WON_LINE[:124], "U", "U", "U", "U"])
    assert (scout.seen, scout.best) == (52, 15)
    assert Canfield.replay(WORKED_CODE, [*WON_LINE[:124], *"UUUU"]).foundation_cards == 11


def pad(code: str, line: list[str]) -> list[str]:
    """``line`` with, wherever one is legal, a move that shows no card — of a column's, the
    waste's or a foundation's cards, never the reserve's — and its undo, or a move between
    columns and its reversal: actions that change nothing."""
    game = Canfield(code)
    out: list[str] = []
    for k, token in enumerate(line):
        for action in game.generate_legal():
            if action.kind != "move" or action.src == RESERVE or action.token() == token:
                continue
            if action.src in COLUMNS and len(game.piles[action.src]) == action.count:
                continue  # (the reserve would fill the column: a card shown)
            back = Action("move", action.dst, action.src, action.count)
            trial = game.copy()
            trial.push(action)
            if k % 2 and action.dst in COLUMNS and trial.reason(back) is None:
                out += [action.token(), back.token()]
                game.push(action)
                game.push(back)
            else:
                out += [action.token(), "U"]
            break
        game.push(Action.parse(token))
        out.append(token)
    return out


def test_padding_with_undone_actions_and_detours_adds_nothing():
    line = WON_LINE
    padded = pad(WORKED_CODE, line)
    assert len(padded) > len(line) * 1.15 and Canfield.replay(WORKED_CODE, padded).is_won()
    budget = Budget(samples=2, truth=400, positions=150, forks=6)

    plain = judge(WORKED_CODE, line, seed="s", budget=budget)
    judged = judge(WORKED_CODE, padded, seed="s", budget=budget)

    assert plain.forks and plain.evidence > 0
    assert judged.evidence == plain.evidence and judged.decisions == plain.decisions
    assert [(f.played, f.moves) for f in judged.forks] == [(f.played, f.moves) for f in plain.forks]
    assert all(padded[f.ply - 1] == f.played for f in judged.forks)  # (numbered in its log)
    assert judged.forks[-1].ply >= plain.forks[-1].ply + 4  # (two pairs among the forks)


def stocked(t1: list[str], waste: tuple[str, ...] = ()) -> Canfield:
    """A position of CODE with a stock to draw from: spades and clubs home to the 5, hearts to
    the 5, diamonds complete; column 1 is ``t1``, then the ten of clubs, the king of hearts and
    the queen of spades; the reserve's top the 7 of clubs (over the 8); ``waste`` face up, its
    top last; the other cards in play in the stock."""
    home = [
        tuple(parse_card(RANKS[r] + suit) for r in range(RANKS.index(top) + 1))
        for top, suit in zip("55K5", "SHDC", strict=True)
    ]
    columns = [t1, ["TC"], ["KH"], ["QS"]]
    placed = {c for column in columns for c in column} | {"7C", "8C", *waste}
    in_play = [RANKS[r] + suit for suit in "SHC" for r in range(5, 13)]
    stock = tuple(parse_card(c) for c in in_play if c not in placed)
    piles = (
        (parse_card("8C"), parse_card("7C")),
        tuple(parse_card(c) for c in waste),
        *home,
        *(tuple(parse_card(c) for c in column) for column in columns),
    )
    snapshot = Snapshot(
        ply=40,
        piles=piles,
        stock=stock,
        spread=len(waste),
        score=0,
        undos=0,
        recycles=0,
        moves=40,
        undoable=(),
    )
    return Canfield.restore(CODE, snapshot)


def test_a_part_of_a_column_moved_for_nothing_comes_after_the_stock_among_the_habits():
    # The 9 of hearts onto the 10 of clubs uncovers the 10 of spades: no foundation takes it,
    # and neither the reserve's top (the 7 of clubs) nor the waste (empty) goes on it. The
    # simulated players never make that move; drawing comes first.
    idle = stocked(["TS", "9H"])
    assert {"T1-T2", "D"} <= set(tokens(idle))
    assert habit(idle, Action.parse("D")) == 3
    assert habit(idle, Action.parse("T1-T2")) == 5
    # The same move uncovering the 6 of spades, which goes home: a run that serves, before the
    # stock.
    serving = stocked(["6S", "9H"])
    assert serving.goes_home(parse_card("6S")) and not serving.goes_home(parse_card("TS"))
    assert habit(serving, Action.parse("T1-T2")) == 2
    # A whole column onto another, the reserve there to fill the gap: with the reserve's top.
    whole = stocked(["9H"])
    assert habit(whole, Action.parse("T1-T2")) == 1


def test_the_wastes_card_to_a_column_that_serves_nothing_is_level_with_the_stock():
    # The 6 of hearts onto the 7 of spades: the reserve's top (the 7 of clubs) cannot follow it,
    # and nothing under it on the waste goes home. Some players play it, others draw (the expert
    # simulated player keeps it for later): level with the stock.
    idle = stocked(["7S"], waste=("6H",))
    assert habit(idle, Action.parse("W-T1")) == habit(idle, Action.parse("D")) == 3
    # The 6 of spades under it on the spread goes home once it is played: before the stock.
    assert habit(stocked(["7S"], waste=("6S", "6H")), Action.parse("W-T1")) == 2
    # The 8 of hearts onto the 9 of spades, and the reserve's 7 of clubs goes on it: before too.
    assert habit(stocked(["9S"], waste=("8H",)), Action.parse("W-T1")) == 2
