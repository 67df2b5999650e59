"""The Canfield rules engine: pure Python, standard library only.

>>> game = Canfield("CF1-D3-AAAAACL")
>>> for token in ("R-T2", "R-F1", "T2:2-T4"):
...     game.push(Action.parse(token))
>>> game.score
5
"""

from .actions import DRAW, RECYCLE, UNDO, Action, parse_tokens
from .cards import Card, card_name, card_str, parse_card
from .deals import CANONICAL_ORDER, DealCode, Layout, deal
from .errors import EngineError, GameOver, IllegalAction, InvalidCode, InvalidSeed, NotationError
from .game import UNDO_LIMIT, Canfield, FullView, LegalMoves, PlayerView, Snapshot
from .keyed import daily_deal_code, daily_seed, is_dead, keyed_deck
from .reasons import REASON_CODES, Reason, ReasonCode
from .record import GameRecord, Verification, verify_record

__all__ = [
    "CANONICAL_ORDER",
    "DRAW",
    "REASON_CODES",
    "RECYCLE",
    "UNDO",
    "UNDO_LIMIT",
    "GameRecord",
    "Verification",
    "verify_record",
    "Action",
    "Card",
    "DealCode",
    "EngineError",
    "FullView",
    "Canfield",
    "GameOver",
    "IllegalAction",
    "InvalidCode",
    "InvalidSeed",
    "Layout",
    "LegalMoves",
    "NotationError",
    "PlayerView",
    "Reason",
    "ReasonCode",
    "Snapshot",
    "card_name",
    "card_str",
    "daily_deal_code",
    "daily_seed",
    "deal",
    "is_dead",
    "keyed_deck",
    "parse_card",
    "parse_tokens",
]
