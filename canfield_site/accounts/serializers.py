import re
from typing import Any

from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from canfield_site.accounts.payloads import AuthResultDict
from canfield_site.schema import serializer_for

USERNAME_RE = re.compile(r"[A-Za-z0-9_-]{3,30}")
USERNAME_RULES = "Usernames are 3 to 30 characters: letters, digits, _ and -."
USERNAME_TAKEN = "That username is taken."


def username_taken(username: str) -> bool:
    return User.objects.filter(username__iexact=username).exists()


class SignupSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(max_length=30, error_messages={"max_length": USERNAME_RULES})
    password = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)

    def validate_username(self, value: str) -> str:
        if not USERNAME_RE.fullmatch(value):
            raise serializers.ValidationError(USERNAME_RULES)
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


class LoginSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)


AuthResultSerializer = serializer_for(AuthResultDict, "AuthResult")


class MeSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
