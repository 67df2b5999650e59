"""Response serializers derived from the payloads' ``TypedDict`` declarations.

Every response body is declared once, as a ``TypedDict`` next to the function that builds it
(``games.engine`` views, ``games.payloads``, ``leaderboard.payloads``). :func:`serializer_for`
turns such a declaration into a DRF serializer class of the same name, which drf-spectacular
documents as a schema component: fields, nesting, ``null``, enums (``Literal``), optional keys
(``NotRequired``), formats (``Annotated[str, Format("date")]``) and descriptions (a string in
``Annotated``, or the ``TypedDict``'s docstring). The serializers describe; the payload functions
build: a test validates live responses against the schema (tests/site/test_contract.py).
"""

from __future__ import annotations

import datetime as dt
import types
import typing
from typing import Any, Literal, NotRequired, Required, Union, get_args, get_origin, is_typeddict

from rest_framework import serializers

from core.formats import Format

_registry: dict[type, type[serializers.Serializer[Any]]] = {}

_BASIC: dict[type, type[serializers.Field[Any, Any, Any, Any]]] = {
    bool: serializers.BooleanField,
    int: serializers.IntegerField,
    float: serializers.FloatField,
    str: serializers.CharField,
}
_FORMATS: dict[str, type[serializers.Field[Any, Any, Any, Any]]] = {
    "date": serializers.DateField,
    "date-time": serializers.DateTimeField,
}


def serializer_for(declaration: type, name: str | None = None) -> type[serializers.Serializer[Any]]:
    """The serializer class describing ``declaration`` (a ``TypedDict``), made once."""
    if declaration not in _registry:
        fields: dict[str, Any] = {}
        hints = typing.get_type_hints(declaration, include_extras=True)
        required = getattr(declaration, "__required_keys__", frozenset(hints))
        for key, hint in hints.items():
            fields[key] = _field(hint, required=key in required)
        fields["__doc__"] = declaration.__doc__ or ""
        fields["__module__"] = declaration.__module__
        name = name or declaration.__name__.removesuffix("Dict")
        cls = type(name, (serializers.Serializer,), fields)
        _registry[declaration] = cls
    return _registry[declaration]


def _field(
    hint: Any, *, required: bool = True, **kwargs: Any
) -> serializers.Field[Any, Any, Any, Any]:
    """A serializer field for one key's type hint."""
    origin = get_origin(hint)
    if origin in (Required, NotRequired):
        return _field(get_args(hint)[0], required=origin is Required, **kwargs)
    if origin is typing.Annotated:
        base, *extras = get_args(hint)
        for extra in extras:
            if isinstance(extra, str):
                kwargs.setdefault("help_text", extra)
            elif isinstance(extra, Format):
                kwargs["_format"] = extra.name
        return _field(base, required=required, **kwargs)
    if origin in (Union, types.UnionType):
        options = [arg for arg in get_args(hint) if arg is not type(None)]
        if len(options) != len(get_args(hint)):
            kwargs["allow_null"] = True
        if len(options) != 1:
            raise TypeError(f"unions other than X | None are not supported: {hint!r}")
        return _field(options[0], required=required, **kwargs)
    kwargs.setdefault("required", required)
    fmt = kwargs.pop("_format", None)
    if origin is Literal:
        return serializers.ChoiceField(choices=list(get_args(hint)), **kwargs)
    if origin is list:
        (item,) = get_args(hint)
        if is_typeddict(item):
            return serializer_for(item)(many=True, **kwargs)
        return serializers.ListField(child=_field(item), **kwargs)
    if origin is dict:
        key, value = get_args(hint)
        if key is not str:
            raise TypeError(f"JSON objects have string keys: {hint!r}")
        return serializers.DictField(child=_field(value), **kwargs)
    if is_typeddict(hint):
        return serializer_for(hint)(**kwargs)
    if fmt is not None:
        return _FORMATS[fmt](**kwargs)
    if hint in (dt.date, dt.datetime):
        raise TypeError("payloads carry dates as ISO strings: use IsoDate or IsoDateTime")
    if hint in _BASIC:
        return _BASIC[hint](**kwargs)
    raise TypeError(f"no serializer field for {hint!r}")


def openapi_31_nullable(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """A drf-spectacular postprocessing hook: OpenAPI 3.0's ``nullable: true`` (which DRF's
    pagination schema still writes) as OpenAPI 3.1 says it, ``type: [T, "null"]``."""

    def fix(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                fix(item)
        elif isinstance(node, dict):
            if node.pop("nullable", False) is True and isinstance(node.get("type"), str):
                node["type"] = [node["type"], "null"]
            for value in node.values():
                fix(value)

    fix(result)
    return result


#: Responses every operation of a kind may give, whatever its view says (postprocessing hook
#: ``common_responses``): status → (which operations, description).
COMMON_RESPONSES: dict[str, str] = {
    "403": "A logged-in session's request without its CSRF token: permission_denied.",
    "413": "The request body is over the size limit (64 KB): too_large, before it is read.",
    "415": "The body is not sent as application/json: unsupported_media_type.",
    "503": "The database is away or too busy to answer in time: unavailable (with retry_after, "
    "and the Retry-After header).",
}


def common_responses(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """A drf-spectacular postprocessing hook: what the site does for every endpoint, in the
    schema, so that it documents every status each endpoint may answer.

    - Request bodies admit no keys but their own (``core.strict.StrictSerializer``):
      every request object component gets ``additionalProperties: false``.
    - Every POST may be answered 413 (``core.limits``); every operation that reads a
      JSON body 415 for another media type; every POST open to a session 403 without CSRF.
    - Every operation but the health checks (which report the database themselves) may be
      answered 503 ``unavailable`` while the database is away
      (``core.api_errors.handler500``).
    """
    for name, component in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request") and component.get("type") == "object":
            component["additionalProperties"] = False
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation["responses"]
            if not path.startswith("/api/health/"):  # (they answer for the database themselves)
                own = responses.setdefault(
                    "503", {"content": error, "description": COMMON_RESPONSES["503"]}
                )
                if "unavailable" not in own.get("description", ""):
                    own["description"] = f"{own['description']} Or: {COMMON_RESPONSES['503']}"
            operation["responses"] = dict(sorted(responses.items()))
            if method != "post":
                continue
            statuses = ["413"]
            if "requestBody" in operation:
                statuses.append("415")
            if any("cookieAuth" in rule for rule in operation.get("security", [])):
                statuses.append("403")
            responses = operation["responses"]
            for status in statuses:
                responses.setdefault(
                    status, {"content": error, "description": COMMON_RESPONSES[status]}
                )
            operation["responses"] = dict(sorted(responses.items()))
    return result
