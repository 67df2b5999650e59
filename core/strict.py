"""Input read strictly, as the schema says it: the request serializers of the apps' api packages
build on these, so that what the schema calls invalid is refused (400 ``invalid``), and what it
calls valid is read as the schema means it.

- Body fields take only their JSON type: :class:`IntegerField` no ``"3"``, ``3.0`` or ``true``;
  :class:`BooleanField` only ``true``/``false``; :class:`CharField` only strings, untrimmed.
- :class:`StrictSerializer` refuses a body key it does not know (the schema's request components
  have ``additionalProperties: false``) and a body that is not a JSON object.
- :func:`read_query` reads a query string: each known parameter at most once and never empty,
  a page a whole number written in digits, a flag one of ``0``, ``1``, ``true``, ``false``.
  Unknown parameters are ignored (``?format=json``, a cache-buster).
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from django.http import QueryDict
from django.utils.translation import gettext as _
from rest_framework import serializers

#: The highest page number a query may name (a board of a million attempts has 10,000 pages).
MAX_PAGE = 1_000_000
_DIGITS = re.compile(r"[0-9]{1,7}")

S = TypeVar("S", bound=serializers.Serializer[Any])


class IntegerField(serializers.IntegerField):
    """A JSON integer, and nothing else that DRF would read as one."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class BooleanField(serializers.BooleanField):
    """JSON ``true`` or ``false``."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class CharField(serializers.CharField):
    """A JSON string, kept as sent (no trimming)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class IntegerChoiceField(serializers.ChoiceField):
    """One of a few JSON integers (``draw``: 1 or 3), not their text."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class StrictSerializer(serializers.Serializer[Any]):
    """A request body: a JSON object with none but the serializer's keys."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(str(key) for key in data if key not in self.fields)
            if unknown:
                raise serializers.ValidationError({key: [_("Unknown field.")] for key in unknown})
        return super().to_internal_value(data)


# --- query strings --------------------------------------------------------------------------------


class PageField(serializers.IntegerField):
    """A page number in a query string: digits only, 1 to MAX_PAGE."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_PAGE)
        kwargs.setdefault("help_text", "A page number, from 1.")
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, str) or not _DIGITS.fullmatch(data):
            self.fail("invalid")
        return super().to_internal_value(data)


class FlagField(serializers.BooleanField):
    """A yes/no in a query string: ``1`` or ``true``, ``0`` or ``false``."""

    WORDS = {"1": True, "true": True, "0": False, "false": False}

    def to_internal_value(self, data: Any) -> bool:
        if data not in self.WORDS:
            self.fail("invalid", input=data)
        return self.WORDS[data]


def read_query(serializer_class: type[S], params: QueryDict) -> dict[str, Any]:
    """The validated values of ``params`` for ``serializer_class``'s fields, or 400 ``invalid``:
    a parameter given twice or given empty is refused, not read as its last value or as absent."""
    names: list[str] = list(serializer_class().fields.keys())
    errors: dict[str, list[str]] = {}
    data: dict[str, str] = {}
    for name in names:
        values = params.getlist(name)
        if len(values) > 1:
            errors[name] = [_("Give this parameter once.")]
        elif values == [""]:
            errors[name] = [_("This parameter has no value.")]
        elif values:
            data[name] = values[0]
    if errors:
        raise serializers.ValidationError(errors)
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
