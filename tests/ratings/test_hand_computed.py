"""A day's ratings against the Plackett-Luce update worked by hand, and how a day is cut into
matches.

The update (Weng & Lin 2011, Algorithm 4, with openskill's defaults: mu 25, sigma 25/3,
beta 25/6, tau 25/300, kappa 0.0001), for players i of one match, each a team of one:

    s_i² = sigma_i² + tau²                       (each sigma first grows by tau)
    c    = sqrt(Σ_i (s_i² + beta²))
    S_q  = Σ_{s: rank(s) >= rank(q)} exp(mu_s / c)     (q and those ranked below or level)
    A_q  = |{s: rank(s) = rank(q)}|
    p_iq = exp(mu_i / c) / S_q
    Ω_i  = s_i² / c   · Σ_{q: rank(q) <= rank(i)} ([q = i] − p_iq) / A_q
    Δ_i  = (s_i / c) · s_i² / c² · Σ_{q: rank(q) <= rank(i)} p_iq (1 − p_iq) / A_q
    mu_i'    = mu_i + Ω_i      (players who tie then share the mean of their changes)
    sigma_i' = s_i · sqrt(max(1 − Δ_i, kappa))
"""

from __future__ import annotations

import math

import pytest

from ratings import matches, services
from ratings.matches import Entry
from ratings.models import RatedDay, Rating, RatingPoint
from tests.ratings.helpers import DAY, result, settle

MU, SIGMA, BETA, TAU, KAPPA = 25.0, 25.0 / 3, 25.0 / 6, 25.0 / 300, 0.0001


def by_hand(players: list[tuple[float, float, int]]) -> list[tuple[float, float]]:
    """The formula of the module docstring, written out: (mu, sigma, rank) in, (mu, sigma) out."""
    s2 = [sigma**2 + TAU**2 for _, sigma, _ in players]
    c = math.sqrt(sum(v + BETA**2 for v in s2))
    e = [math.exp(mu / c) for mu, _, _ in players]
    ranks = [rank for _, _, rank in players]
    S = [sum(e[s] for s in range(len(players)) if ranks[s] >= ranks[q]) for q in range(len(e))]
    A = [ranks.count(rank) for rank in ranks]
    out = []
    for i, (mu, _, rank) in enumerate(players):
        omega = delta = 0.0
        for q in range(len(players)):
            if ranks[q] <= rank:
                p = e[i] / S[q]
                omega += ((1.0 if q == i else 0.0) - p) / A[q]
                delta += p * (1 - p) / A[q]
        omega *= s2[i] / c
        delta *= math.sqrt(s2[i]) / c * s2[i] / c**2
        out.append((mu + omega, math.sqrt(s2[i]) * math.sqrt(max(1 - delta, KAPPA))))
    for rank in set(ranks):  # a tie: the players level share the mean change of their mu
        level = [i for i in range(len(players)) if ranks[i] == rank]
        mean = sum(out[i][0] - players[i][0] for i in level) / len(level)
        for i in level:
            out[i] = (players[i][0] + mean, out[i][1])
    return out


def stored(name: str) -> tuple[float, float]:
    rating = Rating.objects.get(player__username=name)
    return rating.mu, rating.sigma


def ratings() -> list[Rating]:
    return list(Rating.objects.order_by("player__username"))


def test_it_rates_a_day_of_three_as_the_formula_does_by_hand():
    result("ann", DAY, cards=52)
    result("bob", DAY, cards=30)
    result("cat", DAY, cards=12)
    settle(DAY)

    assert services.rate_due() == [DAY]

    expected = by_hand([(MU, SIGMA, 1), (MU, SIGMA, 2), (MU, SIGMA, 3)])
    for name, (mu, sigma) in zip(["ann", "bob", "cat"], expected, strict=True):
        assert stored(name) == pytest.approx((mu, sigma), abs=1e-9)
    # The same numbers worked with a calculator (docs/ratings.md): s² = 69.45139,
    # c = sqrt(3 (s² + beta²)) = 16.13808, s²/c = 4.30357, (s/c) s²/c² = 0.137711; all mu equal,
    # so p = 1/3 against the three, 1/2 against the last two. ann: Ω = 4.30357 · 2/3,
    # Δ = 0.137711 · 2/9; bob: Ω = 4.30357 · (1/2 − 1/3), Δ = 0.137711 · (2/9 + 1/4);
    # cat: Ω = 4.30357 · (−1/3 − 1/2), Δ as bob's.
    assert expected[0] == pytest.approx((27.86905, 8.20524), abs=1e-5)
    assert expected[1] == pytest.approx((25.71726, 8.05822), abs=1e-5)
    assert expected[2] == pytest.approx((21.41369, 8.05822), abs=1e-5)
    shown = [(matches.shown(r.ordinal), matches.uncertainty(r.sigma)) for r in ratings()]
    assert shown == [(1130, 328), (1062, 322), (890, 322)]
    ann = Rating.objects.get(player__username="ann")
    assert ann.ordinal == pytest.approx(ann.mu - 3 * ann.sigma, abs=1e-12)
    assert (ann.days, ann.last_day) == (1, DAY)
    assert RatingPoint.objects.filter(day=DAY).count() == 3
    assert RatedDay.objects.values_list("day", "players", "matches").get() == (DAY, 3, 1)


def test_a_tie_moves_neither_of_two_new_players_and_narrows_both():
    result("ann", DAY, cards=20)
    result("bob", DAY, cards=20)
    settle(DAY)

    services.rate_due()

    (mu, sigma), same = by_hand([(MU, SIGMA, 1), (MU, SIGMA, 1)])
    assert same == (mu, sigma)
    assert mu == MU and sigma < SIGMA
    assert stored("ann") == stored("bob") == pytest.approx((mu, sigma), abs=1e-9)


def test_a_second_day_starts_from_the_first_days_ratings():
    result("ann", DAY, cards=52)
    result("bob", DAY, cards=10)
    settle(DAY)
    services.rate_due()
    ann, bob = stored("ann"), stored("bob")
    following = DAY.replace(day=DAY.day + 1)
    result("ann", following, cards=5)
    result("bob", following, cards=40)
    settle(following)

    assert services.rate_due() == [following]

    expected = by_hand([(*bob, 1), (*ann, 2)])
    assert stored("bob") == pytest.approx(expected[0], abs=1e-9)
    assert stored("ann") == pytest.approx(expected[1], abs=1e-9)
    assert Rating.objects.get(player__username="ann").days == 2


def sizes(n: int) -> list[int]:
    return [len(group) for group in matches.groups(range(n))]


def test_a_day_is_cut_into_groups_of_thirty_in_board_order():
    assert sizes(0) == sizes(1) == []
    assert sizes(2) == [2]
    assert sizes(39) == [39]  # a remainder of 9 joins the group before it
    assert sizes(40) == [30, 10]
    assert sizes(65) == [30, 35]
    assert sizes(70) == [30, 30, 10]
    assert sizes(999) == [30] * 32 + [39]
    assert sizes(1000) == [30] * 33 + [10]
    assert [g[0] for g in matches.groups(range(70))] == [0, 30, 60]  # consecutive, in order


def test_ranks_follow_the_board_and_ties_share_one():
    group = [Entry(1, 1.0), Entry(2, 0.5), Entry(3, 0.5), Entry(4, 0.25)]

    assert matches.ranks(group) == [1, 2, 2, 4]


def test_the_number_shown_is_the_conservative_rating_scaled():
    assert matches.shown(matches.ordinal(MU, SIGMA)) == 1000
    assert matches.uncertainty(SIGMA) == 333
    assert matches.shown(matches.ordinal(30.0, 2.0)) == 1000 + 40 * 24
