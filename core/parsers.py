"""What the API reads and how it describes itself on OPTIONS.

- :class:`JSONParser` is DRF's, with a limit on nesting: a body nested deeper than
  :data:`MAX_DEPTH` levels is refused as 400 ``malformed`` (no request body of the API nests more
  than three), before anything recursive (validation, error messages) walks it. Python's own
  decoder gives up with a RecursionError around 1,000 levels, which was a 500.
- :class:`Metadata` answers ``OPTIONS`` on every endpoint with the view's name and the media types
  it renders and parses, without introspecting serializers: the views build their answers from
  the payloads' declarations, and the schema (``/api/schema/``) is what describes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.metadata import BaseMetadata

if TYPE_CHECKING:  # (DRF imports this module while it sets up rest_framework.views)
    from rest_framework.request import Request
    from rest_framework.views import APIView

#: The deepest nesting of arrays and objects a JSON body may have.
MAX_DEPTH = 32


def depth(value: Any) -> int:
    """How deeply ``value`` (parsed JSON) nests arrays and objects: 0 for a scalar."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: list[Any] = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        too_deep = f"JSON parse error - nested deeper than {MAX_DEPTH} levels."
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(too_deep) from None
        if depth(data) > MAX_DEPTH:
            raise ParseError(too_deep)
        return data


class Metadata(BaseMetadata):
    def determine_metadata(self, request: Request, view: APIView) -> dict[str, Any]:
        return {
            "name": view.get_view_name(),
            "renders": [renderer.media_type for renderer in view.renderer_classes],
            "parses": [parser.media_type for parser in view.parser_classes],
        }
