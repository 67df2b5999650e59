"""The payloads' shared vocabulary: how every app's ``TypedDict`` declarations say that a string
is a date or a time (``IsoDate``, ``IsoDateTime``, read by ``core.schema``) and how a
time is written (:func:`iso`). Standard library only, so that the apps' payload modules import it
without importing the HTTP layer (tests/site/test_layering.py)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Annotated


@dataclass(frozen=True)
class Format:
    """An ``Annotated`` marker: the string's format in the API schema (``date``, ``date-time``)."""

    name: str


IsoDate = Annotated[str, Format("date")]
IsoDateTime = Annotated[str, Format("date-time")]


def iso(value: dt.datetime | None) -> str | None:
    """A time as the API writes it: ISO 8601 in UTC, ``Z`` for the zone."""
    if value is None:
        return None
    return value.astimezone(dt.UTC).isoformat().removesuffix("+00:00") + "Z"
