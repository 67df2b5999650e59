"""What the ratings do when the leaderboard announces a settled day (``leaderboard.signals``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ratings import services


def day_settled(sender: Any, day: dt.date, again: bool, **kwargs: Any) -> None:
    """A day whose final ranks were written again (``again``: a staff decision) is rated again,
    with every day after it, by the worker's next run (``services.ask_rerate``). A day settled
    the first time needs nothing here: the worker's periodic duty finds it."""
    if again:
        services.ask_rerate(day)
