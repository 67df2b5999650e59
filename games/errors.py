"""The errors of the game services: what a request asked for and why it was refused.

A :class:`GameError` carries a stable machine ``code`` (``"stale_ply"``), a message for people and
any extra fields a client needs (``ply=12``). It knows nothing of HTTP: the API's exception
handler (``canfield_site.api_errors``) chooses the status for each code, and the websocket
consumers choose their close codes, each from one table.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _


class GameError(Exception):
    """``GameError("stale_ply", "The game has moved on.", ply=12)``."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    def __repr__(self) -> str:
        extra = "".join(f", {key}={value!r}" for key, value in self.extra.items())
        return f"{type(self).__name__}({self.code!r}, {self.message!r}{extra})"


def not_found(message: str | None = None) -> GameError:
    return GameError("not_found", message if message is not None else _("No such game."))
