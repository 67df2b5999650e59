"""The keyed daily deal (docs/deal-format.md, "The keyed daily deal").

Its unguessability holds by construction — HMAC-SHA256 under a secret, then an unbiased shuffle —
so these tests check the construction: the documented steps (against a second implementation
written from the document, and its test vectors), that a day's deal depends on the secret, that
the shuffle is unbiased, and that a daily deal is a CF2 code, which CF1 parsing refuses.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import math
from collections.abc import Callable, Iterator, Sequence

import pytest

from games.engine import (
    DRAW,
    Canfield,
    DealCode,
    GameRecord,
    InvalidSeed,
    daily_deal_code,
    daily_seed,
    is_dead,
    keyed_deck,
    verify_record,
)
from games.engine.keyed import keystream, shuffle_bytes

from .deal_doc import DOC, doc_block, doc_code, doc_field, doc_layout, text

SECRET = b"an example secret: never use it!"
OTHER_SECRET = b"another secret, just as private"
DAY = dt.date(2026, 11, 29)


# -- the generator, written from docs/deal-format.md ----------------------------------------------


def doc_stream(seed: bytes) -> Iterator[int]:
    i = 0
    while True:
        yield from hmac.new(seed, i.to_bytes(8, "big"), hashlib.sha256).digest()
        i += 1


def doc_keyed_deck(secret: bytes, day: dt.date, n: int) -> list[int]:
    message = ("daily:" + day.strftime("%Y-%m-%d") + ":" + str(n)).encode()
    stream = doc_stream(hmac.new(secret, message, hashlib.sha256).digest())
    deck = list(range(52))
    for i in range(51, 0, -1):
        limit = 256 - 256 % (i + 1)
        b = next(stream)
        while b >= limit:
            b = next(stream)
        j = b % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_it_derives_the_seed_as_documented() -> None:
    message = b"daily:2026-11-29:0"
    assert daily_seed(SECRET, DAY, 0) == hmac.new(SECRET, message, hashlib.sha256).digest()
    assert daily_seed(SECRET, dt.date(2027, 1, 2), 12) == hmac.digest(
        SECRET, b"daily:2027-01-02:12", "sha256"
    )


def test_it_streams_hmac_blocks_of_a_counter() -> None:
    seed = daily_seed(SECRET, DAY, 0)
    stream = keystream(seed)
    first = bytes(next(stream) for _ in range(100))
    reference = doc_stream(seed)
    assert first == bytes(next(reference) for _ in range(100))
    assert first[32:64] == hmac.digest(seed, (1).to_bytes(8, "big"), "sha256")


def test_it_skips_the_bytes_past_the_largest_multiple() -> None:
    # i = 51 draws below 208 = 4 × 52: 208 and 255 are skipped, 51 is taken (j = 51: no swap);
    # i = 50 draws below 204 = 4 × 51: 204 is skipped, 0 is taken (j = 0: swap 0 and 50).
    stream = iter([208, 255, 51, 204, 0, *[0] * 100])
    deck = shuffle_bytes(stream)
    assert deck[51] == 51 and deck[50] == 0
    # Each j from 0 to i is reached by the same number of bytes.
    for bound in range(2, 53):
        limit = 256 - 256 % bound
        hits = [sum(1 for b in range(limit) if b % bound == j) for j in range(bound)]
        assert len(set(hits)) == 1 and limit > 256 - bound


@pytest.mark.parametrize(
    ("day", "n"),
    [(DAY, 0), (DAY, 1), (dt.date(2026, 11, 30), 0), (dt.date(2000, 2, 29), 7)],
)
def test_it_shuffles_as_the_documented_algorithm_does(day: dt.date, n: int) -> None:
    deck = doc_keyed_deck(SECRET, day, n)
    assert keyed_deck(daily_seed(SECRET, day, n)) == tuple(deck)
    assert str(daily_deal_code(SECRET, day, n)) == doc_code(deck)


def test_it_depends_on_the_secret_over_1000_days() -> None:
    days = [DAY + dt.timedelta(days=k) for k in range(1000)]
    ours = [daily_deal_code(SECRET, day, 0).deck() for day in days]
    theirs = [daily_deal_code(OTHER_SECRET, day, 0).deck() for day in days]
    assert all(a != b for a, b in zip(ours, theirs, strict=True))
    assert len(set(ours + theirs)) == 2000  # and no two days share a deal
    assert daily_deal_code(SECRET, DAY, 1) != daily_deal_code(SECRET, DAY, 0)


def test_it_deals_every_position_uniformly() -> None:
    """A chi-square test of which card lands at which position, over N keyed deals.

    Under a uniform shuffle each of the 52 × 52 (position, card) cells expects N / 52 deals. For
    sums of N random permutation matrices, X = Σ (observed − expected)² / expected tends to
    52/51 × χ² with 51² = 2601 degrees of freedom (every row and every column of the table sums
    to N), so X × 51/52 has mean 2601 and standard deviation 72. The threshold, 3057, is that χ²'s
    1 − 10⁻⁹ quantile (Wilson–Hilferty, z = 6.0): a correct shuffle fails about once in a
    billion runs. The same statistic on the same seeds, with the modulo bias that K3's rejection
    avoids (j = byte mod (i + 1)), comes to about 6000, far past it. N = 40,000 takes about a
    second; each cell expects about 770.
    """
    n_deals = 40_000
    threshold = 2601 * (1 - 2 / (9 * 2601) + 6.0 * math.sqrt(2 / (9 * 2601))) ** 3
    assert round(threshold) == 3057

    def statistic(shuffle: Callable[[Iterator[int]], Sequence[int]]) -> float:
        counts = [[0] * 52 for _ in range(52)]
        for n in range(n_deals):
            stream = keystream(daily_seed(SECRET, DAY, n))
            for position, card in enumerate(shuffle(stream)):
                counts[position][card] += 1
        expected = n_deals / 52
        x = sum((o - expected) ** 2 / expected for row in counts for o in row)
        return x * 51 / 52

    def modulo_biased(stream: Iterator[int]) -> list[int]:
        deck = list(range(52))
        for i in range(51, 0, -1):
            j = next(stream) % (i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        return deck

    assert statistic(shuffle_bytes) < threshold
    assert statistic(modulo_biased) > threshold


def test_the_daily_code_is_cf2() -> None:
    code = daily_deal_code(SECRET, DAY, 0)
    written = str(code)
    assert code.format == "CF2" and written.startswith("CF2-D3-") and len(written) == 48
    assert DealCode.parse(written) == code
    assert str(daily_deal_code(SECRET, DAY, 0, 1, "classic")).startswith("CF2-H1-")
    game = Canfield(written)
    game.push(game.generate_legal()[0])
    record = GameRecord.from_game(game).text()
    assert record.startswith(f'[Code "{written}"]') and verify_record(record).ok


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("a text secret, not bytes!!", DAY, 0), "a deal secret is bytes, not str"),
        ((b"short", DAY, 0), "a deal secret has at least 16 bytes, not 5"),
        ((SECRET, dt.datetime(2026, 11, 29), 0), "a day is a datetime.date, not datetime"),
        ((SECRET, "2026-11-29", 0), "a day is a datetime.date, not str"),
        ((SECRET, DAY, -1), "the candidate number is an integer from 0, not -1"),
        ((SECRET, DAY, True), "the candidate number is an integer from 0, not True"),
    ],
)
def test_it_refuses_a_bad_secret_day_or_candidate(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(InvalidSeed) as caught:
        daily_seed(*args)  # type: ignore[arg-type]
    assert str(caught.value) == message
    assert issubclass(InvalidSeed, ValueError)


@pytest.mark.parametrize("seed", [b"", bytes(31), bytes(33), "x" * 32])
def test_it_refuses_a_seed_that_is_not_32_bytes(seed: bytes) -> None:
    with pytest.raises(InvalidSeed, match="a seed is 32 bytes"):
        keyed_deck(seed)


# -- the document stays true ----------------------------------------------------------------------


@pytest.mark.parametrize(("day", "n"), [(DAY, 0), (DAY, 1), (dt.date(2026, 11, 30), 0)])
def test_it_matches_the_keyed_vectors_in_docs_deal_format(day: dt.date, n: int) -> None:
    block = doc_block(f"### Keyed deal — {day.isoformat()}, n = {n}")
    seed = daily_seed(SECRET, day, n)
    stream = keystream(seed)
    assert doc_field(block, "message") == f"daily:{day.isoformat()}:{n}"
    assert doc_field(block, "seed") == seed.hex()
    assert doc_field(block, "block 0") == bytes(next(stream) for _ in range(32)).hex()
    assert doc_field(block, "block 1") == bytes(next(stream) for _ in range(32)).hex()
    assert doc_field(block, "deck") == text(keyed_deck(seed))
    assert doc_field(block, "code") == str(daily_deal_code(SECRET, day, n))
    assert SECRET.decode() in DOC


def test_it_lays_out_the_first_keyed_vector_as_documented() -> None:
    block = doc_block("### Keyed deal — 2026-11-29, n = 0", which=1)
    assert daily_deal_code(SECRET, DAY, 0).layout() == doc_layout(block)


#: A deal found dead: nothing but draws in the first pass through the stock (draw 3, app rules).
DEAD = "CF2-D3-8HuPwydUf5DucUsnjUKc3aswmGJsFyxEp1pVATqbk"


def test_a_dead_deal_offers_only_draws_in_the_first_pass() -> None:
    game = Canfield(DEAD)
    offered: set[str] = set()
    while True:
        offered.update(a.token() for a in game.legal_moves if a.kind == "move")
        if not game.stock:
            break
        game.push(DRAW)
    # At most the base card back from F1: no card of the reserve, waste or columns can move.
    assert all(token.startswith("F") for token in offered)
    assert is_dead(DEAD)
    assert is_dead(DealCode.parse(DEAD))


def test_a_deal_with_a_move_is_not_dead() -> None:
    assert not is_dead("CF1-D3-AAAAACL")  # R-T2 at once
    assert not is_dead(daily_deal_code(SECRET, DAY, 0))


def test_a_move_offered_late_in_the_first_pass_makes_a_deal_live() -> None:
    # A deal whose first move comes only after 8 draws or more: the whole pass counts.
    for n in range(3000):
        code = daily_deal_code(SECRET, DAY, n)
        game = Canfield(code)
        draws = 0
        while game.stock and not any(
            a.kind == "move" and not a.src_name.startswith("F") for a in game.legal_moves
        ):
            game.push(DRAW)
            draws += 1
        if draws >= 8 and any(
            a.kind == "move" and not a.src_name.startswith("F") for a in game.legal_moves
        ):
            assert not is_dead(code)
            return
    pytest.fail("no deal with a late first move among 3000 candidates")
