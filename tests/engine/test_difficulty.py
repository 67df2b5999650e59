"""A deal's difficulty (games.engine.difficulty): the simulated players' results on it, its
label, and the bands of shares a day's deal is picked in."""

from __future__ import annotations

import pytest

from games.engine.difficulty import (
    Band,
    LevelResult,
    game_seed,
    in_band,
    label_of,
    measure,
    play_level,
)
from games.engine.players import CASUAL, LEVELS, play

EASY = "CF1-D3-AAADEAM"  # the casual player wins some games here
HARD = "CF1-D3-AAAHREG"  # and none here


@pytest.mark.parametrize(
    ("share", "label"),
    [(1.0, "gentle"), (0.35, "gentle"), (0.3499, "moderate"), (0.15, "moderate"),
     (0.1499, "hard"), (0.05, "hard"), (0.0499, "fierce"), (0.0, "fierce")],
)  # fmt: skip
def test_a_share_has_the_label_of_its_range(share, label):
    assert label_of(share) == label


def test_a_band_is_read_from_per_cent_and_holds_exact_shares():
    gentle, fierce = Band.parse("35-100"), Band.parse(" 0-5 ")
    assert (gentle.low, gentle.high, str(fierce)) == (35, 100, "0-5")
    # 30 games: 11 wins is 36.7%, 10 is 33.3%; 100 includes every game won.
    assert gentle.holds(11, 30) and not gentle.holds(10, 30) and gentle.holds(30, 30)
    # 1 win of 30 is 3.3%, 2 is 6.7%; the high end is not included below 100.
    assert fierce.holds(0, 30) and fierce.holds(1, 30) and not fierce.holds(2, 30)
    assert Band(5, 15).holds(1, 20) and Band(5, 15).holds(2, 20) and not Band(5, 15).holds(3, 20)
    for text in ("35", "35-", "35-101", "40-30", "5-5", "a-b", "35 - 100"):
        with pytest.raises(ValueError):
            Band.parse(text)


def test_a_band_is_out_of_reach_only_when_no_ending_could_bring_the_share_in():
    gentle = Band(35, 100)
    assert not gentle.out_of_reach(0, 19, 30)  # 11 games left: 11 of 30 is still possible
    assert gentle.out_of_reach(0, 20, 30)  # 10 left: at most 33.3%
    fierce = Band(0, 5)
    assert not fierce.out_of_reach(1, 1, 30)  # 1 of 30 is 3.3%
    assert fierce.out_of_reach(2, 2, 30)  # 2 of 30 is 6.7% already
    assert not Band(0, 100).out_of_reach(30, 30, 30)


def test_a_level_plays_its_seeded_games():
    result = play_level(EASY, CASUAL, 4)
    games = [play(EASY, CASUAL, game_seed(EASY, CASUAL, k)) for k in range(4)]
    assert result == LevelResult(
        "casual", 4, sum(g.won for g in games), sum(g.foundation_cards for g in games)
    )
    assert 0 < result.wins < 4  # (EASY: some games won, not all)
    assert result.share == result.wins / 4 and result.mean_cards == result.cards / 4


@pytest.mark.parametrize("code", [EASY, HARD])
def test_in_band_answers_the_full_games_or_nothing(code):
    full = play_level(code, CASUAL, 4)
    for text in ("0-5", "5-30", "25-50", "50-100", "0-100"):
        band = Band.parse(text)
        assert in_band(code, band, 4) == (full if band.holds(full.wins, 4) else None)


def test_a_measure_is_every_level_with_the_casual_player_first_among_equals():
    difficulty = measure(EASY, 2)
    assert [r.level for r in difficulty.levels] == [level.name for level in LEVELS]
    assert difficulty.middle == play_level(EASY, CASUAL, 2)
    assert difficulty.share == difficulty.middle.share
    assert difficulty.cards == difficulty.middle.mean_cards
    assert difficulty.label == label_of(difficulty.share)
    # Results already known for the same games are kept; another number of games is not.
    fake = LevelResult("expert", 2, 2, 104)
    assert measure(EASY, 2, known=(fake,)).levels[2] == fake
    assert measure(EASY, 2, known=(LevelResult("expert", 1, 1, 52),)) == difficulty
    assert measure(HARD, 1).share == 0.0 and measure(HARD, 1).label == "fierce"
