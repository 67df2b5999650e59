"""The errors of the game services: what a request asked for and why it was refused.

A :class:`GameError` carries a stable machine ``code`` (``"stale_ply"``), a message for people and
any extra fields a client needs (``ply=12``); a refusal of the rules engine also carries the
engine's :class:`~games.engine.Reason`, rendered in the reader's language only when the error is
answered (:meth:`GameError.to_dict`). It knows nothing of HTTP: the API's exception handler
(``core.api_errors``, to which ``games.api.errors`` gives this app's table) chooses the
status for each code, and the websocket consumers choose their close codes, each from one table;
both answer with :meth:`GameError.to_dict`.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games.engine import EngineError, Reason
from games.sentences import describe, general


class GameError(Exception):
    """``GameError("stale_ply", "The game has moved on.", ply=12)``."""

    def __init__(self, code: str, message: str, *, reason: Reason | None = None, **extra: Any):
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.extra = extra

    def to_dict(self) -> dict[str, Any]:
        """What a client is answered, in the active language: ``code`` and ``message``, the
        engine's ``reason`` (its code) when there is one, and the extra fields."""
        body: dict[str, Any] = {**self.extra, "code": self.code, "message": self.message}
        if self.reason is not None:
            body["message"] = describe(self.reason)
            body["reason"] = self.reason.code
        return body

    def __repr__(self) -> str:
        extra = "".join(f", {key}={value!r}" for key, value in self.extra.items())
        if self.reason is not None:
            extra = f", reason={self.reason!r}{extra}"
        return f"{type(self).__name__}({self.code!r}, {self.message!r}{extra})"


def engine_refusal(code: str, error: EngineError) -> GameError:
    """The service's refusal ``code`` (``illegal_action``, ``bad_notation``, ``invalid_code``)
    for an error of the engine, with its reason."""
    if error.reason is None:
        return GameError(code, general(code))
    return GameError(code, str(error), reason=error.reason)


def not_found(message: str | None = None) -> GameError:
    return GameError("not_found", message if message is not None else _("No such game."))
