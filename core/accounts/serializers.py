import re
from typing import Any

from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from core import strict
from core.accounts.guests import is_reserved
from core.accounts.payloads import AuthResultDict, MeDict, PlayerSettingsDict
from core.schema import serializer_for
from core.strict import StrictSerializer

USERNAME_RE = re.compile(r"[A-Za-z0-9_-]{3,30}")
USERNAME_RULES = _("Usernames are 3 to 30 characters: letters, digits, _ and -.")
USERNAME_TAKEN = _("That username is taken.")
USERNAME_RESERVED = _("Usernames starting with “guest-” are kept for guests: choose another.")


def username_taken(username: str) -> bool:
    return User.objects.filter(username__iexact=username).exists()


class SignupSerializer(StrictSerializer):
    """A new account: its username and password."""

    username = strict.CharField(
        # (the pattern, with its lengths, is for the schema; validate_username checks the whole
        # text, which Python's $ does not: it matches before a final newline)
        validators=[RegexValidator(f"^{USERNAME_RE.pattern}$", USERNAME_RULES)],
        help_text=(
            "Usernames are 3 to 30 characters: letters, digits, _ and -. Unique ignoring case."
        ),
    )
    password = strict.CharField(max_length=128, write_only=True)

    def validate_username(self, value: str) -> str:
        if not USERNAME_RE.fullmatch(value):
            raise serializers.ValidationError(USERNAME_RULES)
        if is_reserved(value):
            raise serializers.ValidationError(USERNAME_RESERVED)
        if username_taken(value):
            raise serializers.ValidationError(USERNAME_TAKEN)
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        try:
            password_validation.validate_password(
                attrs["password"], user=User(username=attrs["username"])
            )
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"password": list(exc.messages)}) from None
        return attrs


class LoginSerializer(StrictSerializer):
    """A log-in: the username (any case) and the password."""

    username = strict.CharField(max_length=150, help_text="Any case.")
    password = strict.CharField(max_length=128, write_only=True)


class SettingsChangeSerializer(StrictSerializer):
    """The settings to change, each one left out staying as it is; at least one."""

    practice_private = strict.BooleanField(
        required=False,
        help_text="true: my practice games are listed, replayed and watched by me alone.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs:
            raise serializers.ValidationError(_("Send at least one setting to change."))
        return attrs


AuthResultSerializer = serializer_for(AuthResultDict, "AuthResult")
MeSerializer = serializer_for(MeDict, "Me")
PlayerSettingsSerializer = serializer_for(PlayerSettingsDict, "PlayerSettings")
