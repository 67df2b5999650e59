"""Keyed deals: the daily deal, shuffled from a secret-keyed stream over all 52! orders.

A day's deal is not a CF1 deal number (26**7 of them, which nine visible cards pin down by brute
force) but a shuffle driven by HMAC-SHA256 under a secret, so that neither its hidden cards nor
another day's deal can be worked out from what players see. Its code is a CF2 code, which deals
any order exactly.

1. The seed of candidate ``n`` of ``day``: ``HMAC-SHA256(key=secret, msg="daily:YYYY-MM-DD:n")``.
2. The stream: the blocks ``HMAC-SHA256(key=seed, msg=counter)`` for the counter 0, 1, 2, …
   as 8 bytes big-endian, concatenated, read one byte at a time.
3. Fisher–Yates from the top over the cards in index order (AS … KS, AH … KH, AD … KD, AC … KC):
   for ``i`` = 51 down to 1, a uniform ``j`` in 0..i — the next byte ``b`` below
   ``256 - 256 % (i + 1)``, skipping larger ones, then ``j = b % (i + 1)`` — and swap positions
   ``i`` and ``j``. The result is the deck in dealing order, as for CF1.

``docs/deal-format.md`` gives the steps with test vectors. Like the CF1 shuffle, this may never
change: a day's deal must stay the same once a secret has dealt it.
"""

from __future__ import annotations

import datetime as dt
import hmac
from collections.abc import Iterator
from itertools import count

from .actions import DRAW, FOUNDATIONS
from .cards import Card
from .deals import DealCode, DrawMode, Variant
from .errors import InvalidSeed
from .game import Canfield

#: The fewest bytes a deal secret may have: 128 bits, beyond any search.
MIN_SECRET_BYTES = 16
SEED_BYTES = 32


def daily_seed(secret: bytes, day: dt.date, n: int) -> bytes:
    """The 32-byte seed of candidate ``n`` (0, 1, 2, …) for the deal of ``day``:
    HMAC-SHA256 keyed by ``secret`` of ``f"daily:{day.isoformat()}:{n}"``."""
    if not isinstance(secret, bytes):
        raise InvalidSeed(f"a deal secret is bytes, not {type(secret).__name__}")
    if len(secret) < MIN_SECRET_BYTES:
        raise InvalidSeed(f"a deal secret has at least {MIN_SECRET_BYTES} bytes, not {len(secret)}")
    if not isinstance(day, dt.date) or isinstance(day, dt.datetime):
        raise InvalidSeed(f"a day is a datetime.date, not {type(day).__name__}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InvalidSeed(f"the candidate number is an integer from 0, not {n!r}")
    return hmac.digest(secret, f"daily:{day.isoformat()}:{n}".encode("ascii"), "sha256")


def keystream(seed: bytes) -> Iterator[int]:
    """The bytes of the stream keyed by ``seed``: HMAC-SHA256 blocks of a 64-bit counter."""
    if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
        raise InvalidSeed(f"a seed is {SEED_BYTES} bytes, as daily_seed() gives")
    for counter in count():
        yield from hmac.digest(seed, counter.to_bytes(8, "big"), "sha256")


def keyed_deck(seed: bytes) -> tuple[Card, ...]:
    """The 52 cards in dealing order, shuffled by the stream of ``seed``."""
    return shuffle_bytes(keystream(seed))


def shuffle_bytes(stream: Iterator[int]) -> tuple[Card, ...]:
    """Fisher–Yates from the top over the cards in index order, drawing bytes from ``stream``:
    every order is equally likely if the bytes are (rejection sampling, no modulo bias)."""
    deck = list(range(52))
    for i in range(51, 0, -1):
        bound = i + 1
        limit = 256 - 256 % bound  # the largest multiple of bound that one byte covers
        b = next(stream)
        while b >= limit:
            b = next(stream)
        j = b % bound
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def daily_deal_code(
    secret: bytes, day: dt.date, n: int, draw: DrawMode = 3, variant: Variant = "app"
) -> DealCode:
    """The CF2 code of candidate ``n`` for the deal of ``day`` under ``secret``."""
    return DealCode.from_deck(keyed_deck(daily_seed(secret, day, n)), draw, variant)


def is_dead(code: DealCode | str) -> bool:
    """Whether a deal is *dead*: it offers nothing but drawing in the first pass through the
    stock. From the deal, drawing and nothing else until the stock is empty, no position —
    the deal itself, nor the one after any draw — has a legal move of a card from the reserve,
    the waste or a column (to a foundation or a column). Moves from a foundation (the base card
    taken back) do not count. A daily deal is never dead (``docs/deal-format.md``)."""
    game = Canfield(code)
    while True:
        if any(a.kind == "move" and a.src not in FOUNDATIONS for a in game.legal_moves):
            return False
        if not game.stock:
            return True
        game.push(DRAW)
