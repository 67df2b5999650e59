"""GET /api/health/ (liveness) and GET /api/health/ready/ (readiness), for load balancers.

- Liveness: the process answers. Always 200 while it does — a process that only lost Redis
  must not be restarted, it degrades (no live push, rate limits open, boards from the
  database) — with what it knows about Redis: ``{"status": "degraded", "redis": "down"}``.
- Readiness: 200 when the process can serve, 503 while a required dependency is down. The
  database is required; Redis is not (the service degrades without it) and is only reported.

Neither needs authentication; liveness never touches the database.
"""

from __future__ import annotations

import logging
from typing import Literal, TypedDict

from django.db import DatabaseError, connections
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import redis_bounds
from core.schema import serializer_for

log = logging.getLogger(__name__)

RedisState = Literal["up", "down", "off"]


class HealthDict(TypedDict):
    """The process answers. `degraded`: it serves without Redis (no live updates, no rate
    limits) until Redis is back."""

    status: Literal["ok", "degraded"]
    redis: RedisState


class ReadyDict(TypedDict):
    """Whether the process can serve: `unavailable` (HTTP 503) while the database is down."""

    status: Literal["ready", "unavailable"]
    database: Literal["up", "down"]
    redis: RedisState


def redis_state() -> RedisState:
    """``off`` without REDIS_URL (in-memory layer and cache), else whether Redis answers (within
    ``REDIS_TIMEOUT``; ``down`` at once while it is marked down: ``core.redis_bounds``)."""
    return redis_bounds.state()  # type: ignore[return-value]


def database_state() -> Literal["up", "down"]:
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as exc:
        log.warning("health: the database does not answer (%s)", exc)
        return "down"
    return "up"


class HealthView(APIView):
    """GET /api/health/: the process answers (200), and how Redis is."""

    authentication_classes = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="health",
        summary="Liveness: the process answers (always 200), and whether Redis does",
        responses={200: serializer_for(HealthDict, "Health")},
        tags=["health"],
    )
    def get(self, request: Request) -> Response:
        state = redis_state()
        body: HealthDict = {"status": "degraded" if state == "down" else "ok", "redis": state}
        return Response(body)


class ReadyView(APIView):
    """GET /api/health/ready/: 200 when the process can serve, 503 while the database is down."""

    authentication_classes = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="health_ready",
        summary="Readiness: 503 while a required dependency (the database) is down",
        responses={
            200: serializer_for(ReadyDict, "Ready"),
            503: OpenApiResponse(serializer_for(ReadyDict, "Ready"), description="Not ready."),
        },
        tags=["health"],
    )
    def get(self, request: Request) -> Response:
        database = database_state()
        body: ReadyDict = {
            "status": "ready" if database == "up" else "unavailable",
            "database": database,
            "redis": redis_state(),
        }
        return Response(body, status=200 if database == "up" else 503)
