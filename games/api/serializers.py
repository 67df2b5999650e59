"""Request and response bodies of the games API.

Responses are built by :func:`game_payload` and :func:`record_payload`; the response serializers
here describe them for the OpenAPI schema (and the tests compare payloads whole).

What a payload may show is decided here, in one place:
- ``state`` is always the engine's ``player_view()`` — never a stock card, never a reserve card
  below its top;
- ``code`` is ``null`` for a daily deal until its UTC day is over;
- ``full_state`` (the engine's ``full_view()``, every card) appears only once the game is over
  and its code is public; otherwise it is ``null``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from rest_framework import serializers

from games.engine.actions import PILE_NAMES
from games.models import Game

TAP_PILES = ("S", *PILE_NAMES)


# --- requests -----------------------------------------------------------------------------------


class NewGameSerializer(serializers.Serializer):
    code = serializers.CharField(
        required=False,
        max_length=32,
        help_text="A game code such as CF1-D3-AAAAACL; a random deal when absent.",
    )
    draw = serializers.ChoiceField(
        choices=[1, 3],
        required=False,
        help_text="1 or 3 (default 3, or the code's). With a code: that layout, drawing this many.",
    )
    variant = serializers.ChoiceField(
        choices=["app", "classic"],
        required=False,
        help_text="'app' (default, or the code's) or 'classic' (Hoyle's rules).",
    )


class ActionSerializer(serializers.Serializer):
    """Either ``action`` (a token) or ``tap`` (a pile, with ``index`` and ``double_click``)."""

    ply = serializers.IntegerField(
        min_value=0, help_text="The position the action was made in: the game's current ply."
    )
    action = serializers.CharField(
        required=False,
        max_length=32,
        trim_whitespace=False,
        help_text="An action token: D, C, U, or a move such as R-T2, W-F3, T2:2-T4.",
    )
    tap = serializers.ChoiceField(
        choices=TAP_PILES, required=False, help_text="The tapped pile: S, R, W, F1-F4, T1-T4."
    )
    index = serializers.IntegerField(
        min_value=0,
        required=False,
        allow_null=True,
        help_text="Tapped card of a column, 0 = bottom card; the top card when absent.",
    )
    double_click = serializers.BooleanField(
        required=False,
        default=True,
        help_text="The 'Double click' setting: also look for a column (default true).",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        has_action = "action" in attrs
        has_tap = "tap" in attrs
        if has_action == has_tap:
            raise serializers.ValidationError("Send exactly one of 'action' and 'tap'.")
        if has_action and attrs.get("index") is not None:
            raise serializers.ValidationError({"index": "Only a tap has an index."})
        return attrs

    def to_play(self) -> str | dict[str, Any]:
        """What :func:`games.services.play` takes: the token, or the tap as a dict."""
        data = self.validated_data
        if "action" in data:
            return data["action"]
        return {
            "tap": data["tap"],
            "index": data.get("index"),
            "double_click": data["double_click"],
        }


class GameListQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Game.Status.values, required=False)
    kind = serializers.ChoiceField(choices=Game.Kind.values, required=False)
    page = serializers.IntegerField(min_value=1, required=False)


class RecordQuerySerializer(serializers.Serializer):
    states = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Also return 'states': the player's view at every ply, for a replay viewer.",
    )


# --- responses (for the schema; payloads are built by the functions below) ----------------------


class ReserveViewSerializer(serializers.Serializer):
    top = serializers.CharField(allow_null=True)
    count = serializers.IntegerField()


class StockViewSerializer(serializers.Serializer):
    count = serializers.IntegerField()


class WasteViewSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    cards = serializers.ListField(
        child=serializers.CharField(), help_text="The face-up spread, bottom first; last playable."
    )


class FoundationViewSerializer(serializers.Serializer):
    suit = serializers.CharField()
    start = serializers.CharField()
    cards = serializers.ListField(child=serializers.CharField())


class PlayerViewSerializer(serializers.Serializer):
    """The engine's ``player_view()``: what the player may see."""

    draw = serializers.IntegerField()
    variant = serializers.CharField()
    reserve = ReserveViewSerializer()
    stock = StockViewSerializer()
    waste = WasteViewSerializer()
    foundations = FoundationViewSerializer(many=True)
    columns = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), help_text="Bottom first."
    )
    score = serializers.IntegerField()
    won = serializers.BooleanField()
    moves = serializers.IntegerField(help_text="Actions in effect (taken and not undone).")
    undos = serializers.IntegerField()
    recycles = serializers.IntegerField(help_text="Recycles in effect (taken and not undone).")
    foundation_cards = serializers.IntegerField()
    can_undo = serializers.BooleanField()
    legal = serializers.ListField(child=serializers.CharField(), help_text="Legal action tokens.")


class FullViewSerializer(serializers.Serializer):
    """The engine's ``full_view()``: every card, shown only for a finished game."""

    code = serializers.CharField()
    draw = serializers.IntegerField()
    variant = serializers.CharField()
    reserve = serializers.ListField(child=serializers.CharField(), help_text="Top first.")
    foundations = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    foundation_suits = serializers.ListField(child=serializers.CharField())
    columns = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    stock = serializers.ListField(child=serializers.CharField(), help_text="Next card first.")
    waste = serializers.ListField(child=serializers.CharField(), help_text="Bottom first.")
    score = serializers.IntegerField()
    won = serializers.BooleanField()
    ply = serializers.IntegerField()
    moves = serializers.IntegerField()
    undos = serializers.IntegerField()
    recycles = serializers.IntegerField()
    foundation_cards = serializers.IntegerField()
    legal = serializers.ListField(child=serializers.CharField())


class GameSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Game.Kind.values)
    code = serializers.CharField(
        allow_null=True, help_text="null for a daily deal until its day is over."
    )
    draw = serializers.IntegerField()
    variant = serializers.ChoiceField(choices=Game.Variant.values)
    status = serializers.ChoiceField(choices=Game.Status.values)
    result = serializers.ChoiceField(
        choices=["in_progress", "won", "resigned", "closed"],
        help_text="'closed': a daily attempt closed as it stood when its day ended.",
    )
    player = serializers.CharField()
    daily_date = serializers.DateField(allow_null=True)
    ply = serializers.IntegerField(help_text="Actions logged, undos included: the next ply.")
    score = serializers.IntegerField()
    actions = serializers.IntegerField(help_text="Same as ply: every action, undos included.")
    undos = serializers.IntegerField()
    foundation_cards = serializers.IntegerField()
    started_at = serializers.DateTimeField(allow_null=True, help_text="Time of the first action.")
    finished_at = serializers.DateTimeField(allow_null=True)
    state = PlayerViewSerializer()
    full_state = FullViewSerializer(
        allow_null=True, help_text="Every card; only for a finished game whose code is public."
    )


class PlayedGameSerializer(GameSerializer):
    applied = serializers.CharField(
        allow_null=True, help_text="The token logged for this request; null if a tap did nothing."
    )


class RecordMoveSerializer(serializers.Serializer):
    ply = serializers.IntegerField(help_text="The position it was played in (0 = the deal).")
    token = serializers.CharField()
    score = serializers.IntegerField(help_text="Score after the action.")


class RecordSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    code = serializers.CharField(allow_null=True)
    draw = serializers.IntegerField()
    variant = serializers.CharField()
    player = serializers.CharField()
    kind = serializers.CharField()
    daily_date = serializers.DateField(allow_null=True)
    status = serializers.CharField()
    result = serializers.CharField(allow_null=True)
    score = serializers.IntegerField()
    moves = RecordMoveSerializer(many=True)
    text = serializers.CharField(help_text="The record in text notation (docs/notation.md).")
    states = PlayerViewSerializer(
        many=True, required=False, help_text="With ?states=1: the view at ply 0, 1, … N."
    )


# --- payloads -----------------------------------------------------------------------------------


def _iso(value: dt.datetime | None) -> str | None:
    return None if value is None else serializers.DateTimeField().to_representation(value)


def game_payload(game: Game, today: dt.date) -> dict[str, Any]:
    """The Game JSON. ``today`` is the current UTC date (it decides whether a daily code shows)."""
    code_public = game.code_is_public(today)
    return {
        "id": game.pk,
        "kind": game.kind,
        "code": game.code if code_public else None,
        "draw": game.draw,
        "variant": game.variant,
        "status": game.status,
        "result": game.result,
        "player": game.owner.get_username(),
        "daily_date": game.daily_date.isoformat() if game.daily_date else None,
        "ply": game.ply,
        "score": game.score,
        "actions": game.actions,
        "undos": game.undos,
        "foundation_cards": game.foundation_cards,
        "started_at": _iso(game.started_at),
        "finished_at": _iso(game.finished_at),
        "state": game.snapshot["player"],
        "full_state": game.snapshot["full"] if code_public and not game.is_in_progress else None,
    }
