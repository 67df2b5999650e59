"""Simulated players (games.engine.players): they see only what a player sees, play legal
actions by the app's habits, and are the same game after game for the same seed."""

from __future__ import annotations

import random

import pytest

from games.engine import Action, Canfield, DealCode, PlayerView, card_str
from games.engine.players import CASUAL, EXPERT, LEVELS, NOVICE, Level, SimulatedPlayer, play

#: Deals on which the levels' games are known to end differently (found by playing them).
WON_BY_SOME = "CF1-D3-AAADEAM"
HARD = "CF1-D3-AAAHREG"


def swapped(code: str, first: int, second: int) -> DealCode:
    """``code``'s deck with the cards dealt ``first`` and ``second`` (0-based) swapped."""
    deck = list(DealCode.parse(code).deck())
    deck[first], deck[second] = deck[second], deck[first]
    return DealCode.from_deck(deck)


def visible(view: PlayerView) -> set[str]:
    """Every card a view shows."""
    cards = set(view["waste"]["cards"]) | {c for column in view["columns"] for c in column}
    cards |= {c for foundation in view["foundations"] for c in foundation["cards"]}
    return cards | ({view["reserve"]["top"]} if view["reserve"]["top"] else set())


def lockstep(one: DealCode, two: DealCode, level: Level, seed: str) -> tuple[int, set[str]]:
    """Play ``one`` and ``two`` side by side with a player of ``level`` and ``seed`` each, while
    both players see the same view: every action must be the same. Returns how many actions
    were played so, and the cards that told the views apart (none if they never differed)."""
    games = [Canfield(one), Canfield(two)]
    players = [SimulatedPlayer(level, random.Random(seed)) for _ in games]
    while True:
        views = [game.player_view() for game in games]
        if views[0] != views[1]:
            return games[0].ply, visible(views[0]) ^ visible(views[1])
        tokens = [player.choose(view) for player, view in zip(players, views, strict=True)]
        assert tokens[0] == tokens[1], f"action {games[0].ply + 1}: the same view, another action"
        if tokens[0] is None:
            return games[0].ply, set()
        for game in games:
            game.push(Action.parse(tokens[0]))


@pytest.mark.parametrize("level", LEVELS, ids=lambda level: level.name)
def test_a_hidden_card_changes_nothing_until_it_is_seen(level):
    """Two deals that differ only in two hidden cards — the bottom two of the reserve, or two
    cards deep in the stock — are played alike, action for action, until a view shows one of
    them; then the views differ by those cards only."""
    deck = DealCode.parse(WON_BY_SOME).deck()
    told = 0
    for first, second in ((0, 1), (18, 19)):
        one, two = DealCode.from_deck(deck), swapped(WON_BY_SOME, first, second)
        assert [k for k in range(52) if one.deck()[k] != two.deck()[k]] == [first, second]
        for seed in ("a", "b", "c"):
            actions, told_apart = lockstep(one, two, level, seed)
            assert actions >= 12  # the first pass through the stock at least: twelve draws
            assert told_apart <= {card_str(deck[first]), card_str(deck[second])}
            told += bool(told_apart)
    assert told  # (the swapped cards did come into view: the lockstep was not vacuous)


def test_a_player_sees_no_hidden_card_in_what_it_is_given():
    """Every view a player is given in a whole game shows no stock card and no reserve card
    under the top."""
    game = Canfield(HARD)
    player = SimulatedPlayer(CASUAL, random.Random("watch"))
    views = 0
    while True:
        view = game.player_view()
        full = game.full_view()
        assert not visible(view) & (set(full["stock"]) | set(full["reserve"][1:]))
        token = player.choose(view)
        if token is None:
            break
        game.push(Action.parse(token))
        views += 1
    assert views > 12


@pytest.mark.parametrize("level", LEVELS, ids=lambda level: level.name)
def test_a_game_is_the_same_for_the_same_seed_and_replays_as_played(level):
    one = play(HARD, level, "seed 1")
    again = play(HARD, level, "seed 1")
    assert one == again
    replayed = Canfield.replay(HARD, one.tokens)  # every action was legal
    assert (replayed.is_won(), replayed.foundation_cards) == (one.won, one.foundation_cards)
    assert one.actions == len(one.tokens) > 12


def test_seeds_make_different_games():
    games = {play(HARD, CASUAL, f"seed {i}").tokens for i in range(4)}
    assert len(games) > 1


def test_stuck_players_undo_as_far_as_their_level_allows():
    games = {level: [play(HARD, level, f"stuck {i}") for i in range(3)] for level in LEVELS}
    undos = {level: [game.tokens.count("U") for game in games[level]] for level in LEVELS}
    assert undos[NOVICE] == [0, 0, 0]
    assert max(undos[CASUAL]) > 0 and max(undos[CASUAL]) <= CASUAL.undos
    assert max(undos[EXPERT]) <= EXPERT.undos


def test_a_won_game_is_won_and_stops():
    won = [play(WON_BY_SOME, EXPERT, f"w{i}") for i in range(3)]
    assert any(game.won for game in won)
    for game in won:
        final = Canfield.replay(WON_BY_SOME, game.tokens)
        assert final.is_won() == game.won
        if game.won:
            assert game.foundation_cards == 52 and not list(final.legal_moves)


def test_the_levels_place_more_cards_as_they_grow():
    """Over a few deals, each level places more cards on the foundations than the one below."""
    codes = [WON_BY_SOME, HARD, "CF1-D3-AAAENEF", "CF1-D3-AAAIOPK"]
    means = [
        sum(play(code, level, f"m{i}").foundation_cards for code in codes for i in range(4))
        for level in LEVELS
    ]
    assert means[0] < means[1] < means[2]
