"""Request bodies and query strings of the games API, validated by DRF serializers; the response
bodies are declared in ``games.payloads`` and their serializers derived from those declarations.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from canfield_site.schema import serializer_for
from games.engine.actions import PILE_NAMES
from games.models import Game
from games.payloads import GameDict, PlayedGameDict, RecordDict

TAP_PILES = ("S", *PILE_NAMES)


# --- requests -----------------------------------------------------------------------------------


class NewGameSerializer(serializers.Serializer[Any]):
    code = serializers.CharField(
        required=False,
        max_length=64,
        help_text="A game code (CF1-D3-AAAAACL, or a CF2 code of any layout, such as a past "
        "day's daily deal); a random deal when absent.",
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


class ActionSerializer(serializers.Serializer[Any]):
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
            return str(data["action"])
        return {
            "tap": data["tap"],
            "index": data.get("index"),
            "double_click": data["double_click"],
        }


class GameListQuerySerializer(serializers.Serializer[Any]):
    status = serializers.ChoiceField(choices=Game.Status.values, required=False)
    kind = serializers.ChoiceField(choices=Game.Kind.values, required=False)
    page = serializers.IntegerField(min_value=1, required=False)


class RecordQuerySerializer(serializers.Serializer[Any]):
    states = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Also return 'states': the player's view at every ply, for a replay viewer.",
    )


# --- responses: derived from the payloads' declarations (games.payloads) -------------------------

GameSerializer = serializer_for(GameDict)
PlayedGameSerializer = serializer_for(PlayedGameDict)
RecordSerializer = serializer_for(RecordDict)
