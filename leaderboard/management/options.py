"""What the leaderboard's management commands read from their command lines, checked the same way
by each: a bad value stops the command with a :class:`CommandError` that names the option."""

from __future__ import annotations

from django.core.management.base import CommandError


def day_count(text: str, maximum: int) -> int:
    """``--days``: a whole number of days from 1 to ``maximum``."""
    try:
        value = int(text)
    except ValueError:
        raise CommandError(f"--days: expected a whole number of days, got {text!r}") from None
    if not 1 <= value <= maximum:
        raise CommandError(f"--days: expected 1 to {maximum} days, got {value}")
    return value
