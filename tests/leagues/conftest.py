"""Fixtures of the leagues tests: the days, their deals and the clock are the leaderboard tests'
own (the worked example dealt every day from 2030-06-15 on)."""

from __future__ import annotations

from tests.leaderboard.conftest import clock, daily_deal  # noqa: F401 (fixtures)
