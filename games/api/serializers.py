"""Request bodies and query strings of the games API, validated by DRF serializers; the response
bodies are declared in ``games.payloads`` and their serializers derived from those declarations.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from django.utils.translation import gettext as _
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from core import strict
from core.schema import serializer_for
from games.engine.actions import PILE_NAMES
from games.models import Game
from games.payloads import GameDict, HintDict, PlayedGameDict, RecordDict, VerdictDict

TAP_PILES = ("S", *PILE_NAMES)


# --- requests -----------------------------------------------------------------------------------

#: What a game code looks like (the schema's pattern): a CF1 or a CF2 code, docs/deal-format.md.
#: A code of this shape may still be no deal (its check characters): 400 invalid_code.
CODE_PATTERN = r"^(CF1-[DH][13]-[A-Z]{7}|CF2-[DH][13]-[1-9A-HJ-NP-Za-km-z]{41})$"


@extend_schema_field({"type": "string", "pattern": CODE_PATTERN, "maxLength": 64})
class CodeField(strict.CharField):
    """A game code: checked by the engine (400 ``invalid_code``), described by CODE_PATTERN."""


class NewGameSerializer(strict.StrictSerializer):
    """A practice game: a deal by code, or at random; every field may be left out."""

    code = CodeField(
        required=False,
        max_length=64,
        help_text="A game code: a CF1 code (CF1-D3-AAAAACL), or any code of a deck this server "
        "dealt (a random deal someone shared, a past day's daily deal); a random deal when "
        "absent.",
    )
    draw = strict.IntegerChoiceField(
        choices=[1, 3],
        required=False,
        help_text="1 or 3 (default 3, or the code's). With a code: that layout, drawing this many.",
    )
    variant = serializers.ChoiceField(
        choices=["app", "classic"],
        required=False,
        help_text="'app' (default, or the code's) or 'classic' (Hoyle's rules).",
    )
    any_deal = strict.BooleanField(
        required=False,
        default=False,
        help_text="Without a code: true deals any random deal, not checked by the solver; false "
        "(the default) deals one the solver proved winnable (or, when none is ready, a random "
        "one at once, as 'deal' says). Not with a code.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("any_deal") and "code" in attrs:
            raise serializers.ValidationError(
                {"any_deal": _("A game code names its deal: 'any_deal' is for random deals.")}
            )
        return attrs


# The fields of an action, made once each; the request is either a move or a tap.


def _ply() -> strict.IntegerField:
    return strict.IntegerField(
        min_value=0, help_text="The position the action was made in: the game's current ply."
    )


def _action(required: bool) -> strict.CharField:
    return strict.CharField(
        required=required,
        max_length=32,
        help_text="An action token: D, C, U, or a move such as R-T2, W-F3, T2:2-T4.",
    )


def _tap(required: bool) -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=TAP_PILES, required=required, help_text="The tapped pile: S, R, W, F1-F4, T1-T4."
    )


def _index() -> strict.IntegerField:
    return strict.IntegerField(
        min_value=0,
        required=False,
        allow_null=True,
        help_text="Tapped card of a column, 0 = bottom card; the top card when absent.",
    )


def _double_click() -> strict.BooleanField:
    return strict.BooleanField(
        required=False,
        default=True,
        help_text="The 'Double click' setting: also look for a column (default true).",
    )


class ActionMoveSerializer(strict.StrictSerializer):
    """An action token, played in position ``ply``."""

    ply = _ply()
    action = _action(required=True)


class ActionTapSerializer(strict.StrictSerializer):
    """A tap on a pile (a card of a column), resolved by the rules' tap behaviour."""

    ply = _ply()
    tap = _tap(required=True)
    index = _index()
    double_click = _double_click()


#: The request body as the schema gives it: exactly one of a move and a tap.
ActionRequest = PolymorphicProxySerializer(
    component_name="Action",
    serializers=[ActionMoveSerializer, ActionTapSerializer],
    resource_type_field_name=None,
)


class ActionSerializer(strict.StrictSerializer):
    """Reads either body of :data:`ActionRequest`: ``action`` (a token) or ``tap`` (a pile, with
    ``index`` and ``double_click``), never both."""

    ply = _ply()
    action = _action(required=False)
    tap = _tap(required=False)
    index = _index()
    double_click = _double_click()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        has_action = "action" in attrs
        has_tap = "tap" in attrs
        if has_action == has_tap:
            raise serializers.ValidationError(_("Send exactly one of 'action' and 'tap'."))
        if has_action:
            tap_only = sorted({"index", "double_click"} & set(self.initial_data))
            if tap_only:
                raise serializers.ValidationError(
                    {name: _("Only a tap has it.") for name in tap_only}
                )
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


class FinishSerializer(strict.StrictSerializer):
    """Finish the game from position ``ply``."""

    ply = strict.IntegerField(
        min_value=0, help_text="The position Finish was asked in: the game's current ply."
    )


class GameListQuerySerializer(serializers.Serializer[Any]):
    status = serializers.ChoiceField(choices=Game.Status.values, required=False)
    kind = serializers.ChoiceField(choices=Game.Kind.values, required=False)
    page = strict.PageField(required=False)


class RecordQuerySerializer(serializers.Serializer[Any]):
    states = strict.FlagField(
        required=False,
        default=False,
        help_text="1 or true: also return 'states', the player's view at every ply, for a "
        "replay viewer (rate-limited). 0 or false (the default): not.",
    )


# --- responses: derived from the payloads' declarations (games.payloads) -------------------------


class FinishedGameDict(GameDict):
    """The game after Finish, with what it played."""

    applied: Annotated[list[str], "Every action Finish played and logged, in order, as tokens."]


class DealtDict(TypedDict):
    """How a new game's deal was chosen, and what the solver has proved of it."""

    source: Annotated[
        Literal["pool", "random", "any", "code"],
        "pool: a random deal proved winnable before it was dealt; random: none was ready, so a "
        "random deal, dealt at once; any: a random deal, as asked (any_deal); code: the code's.",
    ]
    winnable: Annotated[
        bool | None,
        "true: the solver has proved the deal can be won; false: proved it cannot; null: not "
        "known.",
    ]
    message: Annotated[
        str | None,
        "What to tell the player as the game starts (a deal proved lost, a random deal dealt "
        "because none proved winnable was ready), in the request's language; null: nothing.",
    ]


class NewGameDict(GameDict):
    """A new game, and how its deal was chosen."""

    deal: Annotated[DealtDict, "How the deal was chosen (any_deal, the pool, or the code)."]


GameSerializer = serializer_for(GameDict)
NewGameResponseSerializer = serializer_for(NewGameDict)
PlayedGameSerializer = serializer_for(PlayedGameDict)
FinishedGameSerializer = serializer_for(FinishedGameDict)
RecordSerializer = serializer_for(RecordDict)
HintSerializer = serializer_for(HintDict)
VerdictSerializer = serializer_for(VerdictDict)
