"""The engine's errors. All are ``ValueError`` subclasses: catch them broadly or narrowly."""


class EngineError(ValueError):
    """Base class of every error the rules engine raises."""


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
