"""The engine's errors. All are ``ValueError`` subclasses: catch them broadly or narrowly.

An error about an action, a tap or a game code carries its :class:`~.reasons.Reason`: the
refusal as data, which any language can render (``reason`` is ``None`` for the other errors,
such as a malformed record). Its message is the reason's English.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .reasons import Reason


class EngineError(ValueError):
    """Base class of every error the rules engine raises.

    ``EngineError(reason)`` says the reason's English; ``EngineError(message, reason=reason)``
    says ``message`` about it (``"action 5 (R-T1): ..."``) and keeps the reason."""

    reason: Reason | None

    def __init__(self, message: str | Reason, *, reason: Reason | None = None) -> None:
        if isinstance(message, str):
            super().__init__(message)
            self.reason = reason
        else:
            super().__init__(str(message))
            self.reason = message


class NotationError(EngineError):
    """A token, card or record that is not well-formed text."""


class InvalidCode(NotationError):
    """A game code that does not follow the CF1 or CF2 deal format."""


class IllegalAction(EngineError):
    """A well-formed action that the rules do not allow in the current position."""


class GameOver(IllegalAction):
    """Any action on a game that is already won."""


class InvalidSeed(EngineError):
    """A deal secret, day or seed that the keyed generator refuses."""
