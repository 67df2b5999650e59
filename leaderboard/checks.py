"""System checks of the daily deal's configuration."""

from __future__ import annotations

from typing import Any

from django.core.checks import Tags, Warning, register

from leaderboard import deals


@register(Tags.security, deploy=True)
def generated_deal_secret(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    """``check --deploy``: the daily deals are keyed by a secret generated into the database
    (``DAILY_DEAL_SECRET`` unset), which lives and dies with that database."""
    if not deals.uses_generated_secret():
        return []
    return [
        Warning(
            "DAILY_DEAL_SECRET is not set: the daily deals are keyed by a secret generated "
            "into the database.",
            hint="Set DAILY_DEAL_SECRET to 128 random bits or more: 32 hexadecimal digits or more, "
            "e.g. `openssl rand -hex 32` or "
            "`python -c 'import secrets; print(secrets.token_hex(32))'`, and keep it with the "
            "deployment's other secrets (a guessable secret is refused at start-up).",
            id="leaderboard.W001",
        )
    ]
