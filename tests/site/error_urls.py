"""A URLconf of views that fail in every way, for test_errors.py."""

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.urls import include, path
from rest_framework import serializers
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny

from core.api_errors import ApiError


class Refused(Exception):
    """A domain error of no app, which the site answers only once it is registered."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def failing(exc):
    @api_view(["GET"])
    @permission_classes([AllowAny])
    def view(request):
        raise exc

    return view


class Nested(serializers.Serializer[Any]):
    ply = serializers.IntegerField()


class Outer(serializers.Serializer[Any]):
    action = serializers.CharField()
    moves = Nested(many=True)


@api_view(["POST"])
@permission_classes([AllowAny])
def nested(request):
    Outer(data=request.data).is_valid(raise_exception=True)


urlpatterns = [
    path(
        "api/stale/",
        failing(ApiError(409, "stale_ply", "The game has moved on.", ply=12)),
    ),
    path("api/http404/", failing(Http404("No Game matches the given query."))),
    path("api/denied/", failing(DjangoPermissionDenied())),
    path(
        "api/model-invalid/",
        failing(DjangoValidationError({"code": ["Not a deal code."]})),
    ),
    path("api/crash/", failing(RuntimeError("boom"))),
    path("api/busy/", failing(ApiError(503, "busy", "Busy: ask again.", retry_after=2))),
    path("api/refused/", failing(Refused("over_quota"))),
    path("api/nested/", nested),
    path("", include("canfield_site.urls")),
]

handler400 = "core.api_errors.handler400"
handler403 = "core.api_errors.handler403"
handler404 = "core.api_errors.handler404"
handler500 = "core.api_errors.handler500"
