"""Fixtures of the following tests: the leaderboard's days and clock (people and clients:
tests/conftest.py)."""

from tests.leaderboard.conftest import clock, daily_deal, only_our_days  # noqa: F401
