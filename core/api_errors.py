"""The one error format of the API: HTTP 4xx/5xx with `{"code": ..., "message": ...}`.

- `exception_handler` is DRF's EXCEPTION_HANDLER: every exception a view raises becomes that
  shape (validation errors add "fields", throttling adds "retry_after").
- The apps' services raise domain errors that know no HTTP (`games.errors.GameError`). Each app
  registers, from its `AppConfig.ready`, the HTTP status of each code it refuses with
  (`register_statuses`) and how its error class becomes a body (`register_error`): `STATUS` is
  the one table of statuses, and this module imports no app. With the games app's registration,
      raise GameError("stale_ply", "The game has moved on.", ply=12)
  gives HTTP 409 `{"code": "stale_ply", "message": "The game has moved on.", "ply": 12}`.
- `ApiError(status, code, message)` is for refusals of the HTTP layer itself (accounts).
- `handler400`/`handler403`/`handler404`/`handler500` and `csrf_failure` answer in the same
  shape for paths under /api/ that never reach a DRF view (unknown URL, a crash, a bad Host);
  every other path gets the site's own error page (`frontend/error.html`: its navigation kept).
"""

import logging
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Annotated, Any, NotRequired, TypedDict, TypeVar

from django.core.exceptions import BadRequest, ImproperlyConfigured
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.csrf import csrf_failure as django_csrf_failure
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.schema import serializer_for

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise as StrOrPromise
else:
    StrOrPromise = str

log = logging.getLogger(__name__)

API_PREFIX = "/api/"

#: The HTTP status of each code the apps' domain errors may carry, as the apps registered them.
STATUS: dict[str, int] = {}
#: The apps' domain error classes, each with the function that gives its body (a dict with at
#: least "code" and "message", in the request's language).
_BODIES: dict[type[Exception], Callable[[Any], Mapping[str, Any]]] = {}

E = TypeVar("E", bound=Exception)


def register_statuses(statuses: Mapping[str, int]) -> None:
    """Add an app's codes and their HTTP statuses to :data:`STATUS`. Two apps may register one
    code (``not_found``), with the same status only."""
    for code, status in statuses.items():
        if STATUS.setdefault(code, status) != status:
            raise ImproperlyConfigured(
                f"error code {code!r} is registered with statuses {STATUS[code]} and {status}"
            )


def register_error(error: type[E], body: Callable[[E], Mapping[str, Any]]) -> None:
    """Answer every ``error`` a view raises with ``body(exc)``, at the status its code has in
    :data:`STATUS`."""
    _BODIES[error] = body


class ApiError(exceptions.APIException):
    """A refusal with its own HTTP status and machine-readable code.

    Keyword arguments are added to the JSON body as they are (they must be JSON-serialisable).
    """

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status
        self.code = code
        self.message = message
        self.extra = extra


class ErrorDict(TypedDict):
    """Every error: a stable machine-readable `code` and a `message` for people."""

    code: str
    message: str
    fields: NotRequired[
        Annotated[dict[str, list[str]], "code invalid: the messages of each input field."]
    ]
    retry_after: NotRequired[
        Annotated[
            int,
            "codes throttled, busy, deal_pending and unavailable: seconds to wait before trying "
            "again (also the Retry-After header).",
        ]
    ]
    ply: NotRequired[Annotated[int, "code stale_ply: the game's current position."]]
    reason: NotRequired[
        Annotated[
            str,
            "codes illegal_action, bad_notation, invalid_code: why, as a stable code of the "
            "rules engine (same_colour, not_next_rank, not_an_action, bad_mode, …; every one is "
            "listed in docs/api.md). `message` says it in the request's language.",
        ]
    ]


#: The error body, for the schema: `extend_schema(responses={400: ErrorSerializer})`.
ErrorSerializer = serializer_for(ErrorDict, "Error")


# Codes of DRF's own exceptions, where they differ from DRF's default_code.
_CODES: dict[type[exceptions.APIException], str] = {
    exceptions.ValidationError: "invalid",
    exceptions.ParseError: "malformed",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "not_authenticated",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
}


def _flatten(detail: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """(field path, message) pairs of a ValidationError's detail, nested ones dotted."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            yield from _flatten(value, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(detail, list):
        for index, value in enumerate(detail):
            if isinstance(value, dict | list):
                yield from _flatten(value, f"{prefix}.{index}" if prefix else str(index))
            else:
                yield prefix, str(value)
    else:
        yield prefix, str(detail)


def _validation_body(detail: Any) -> dict[str, Any]:
    fields: dict[str, list[str]] = {}
    general: list[str] = []
    for path, message in _flatten(detail):
        if path in {"", "non_field_errors"}:
            general.append(message)
        else:
            fields.setdefault(path, []).append(message)
    parts = general + [f"{path}: {' '.join(messages)}" for path, messages in fields.items()]
    return {
        "code": "invalid",
        "message": " ".join(parts) or gettext("Invalid input."),
        "fields": fields,
    }


def error_body(exc: exceptions.APIException) -> dict[str, Any]:
    """The JSON body for a DRF exception."""
    if isinstance(exc, ApiError):
        return {**exc.extra, "code": exc.code, "message": exc.message}
    if isinstance(exc, exceptions.ValidationError):
        return _validation_body(exc.detail)
    code = next(
        (code for cls, code in _CODES.items() if isinstance(exc, cls)),
        str(exc.default_code),
    )
    detail = exc.detail
    message = str(detail) if not isinstance(detail, dict | list) else str(exc.default_detail)
    body: dict[str, Any] = {"code": code, "message": message}
    wait: float | None = getattr(exc, "wait", None)  # (Throttled's; its stub leaves it out)
    if isinstance(exc, exceptions.Throttled) and wait is not None:
        body["retry_after"] = int(wait + 0.999)
    return body


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler (headers such as WWW-Authenticate and Retry-After) with our body."""
    body_of = next((body for cls, body in _BODIES.items() if isinstance(exc, cls)), None)
    if body_of is not None:
        body = dict(body_of(exc))
        code, message = body.pop("code"), body.pop("message")
        exc = ApiError(STATUS[code], code, message, **body)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        )
    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        exc.status_code = 401
    response = drf_exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return None  # an unexpected exception: Django's handler500 answers
    response.data = error_body(exc)
    if isinstance(response.data.get("retry_after"), int):
        response["Retry-After"] = str(response.data["retry_after"])
        if response.status_code == 503:
            # A service that asks to be asked again (busy, deal_pending) is working as meant:
            # a warning, not the error Django logs for a 5xx (core.logs leaves that one out).
            log.warning("503 %s: %s", response.data["code"], context["request"].path)
    return response


# --- Django's error views, JSON under /api/ ------------------------------------------------


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def _json(status: int, code: str, message: str, **extra: Any) -> JsonResponse:
    return JsonResponse({"code": code, "message": message, **extra}, status=status)


#: The site's error pages: (title, explanation) by status.
_PAGES: dict[int, tuple[StrOrPromise, StrOrPromise]] = {
    400: (_("Bad request"), _("The server could not understand that request.")),
    403: (_("Not allowed"), _("You do not have permission to see this page.")),
    404: (_("Page not found"), _("There is no such page, or it is not there yet.")),
    500: (_("Something went wrong"), _("The server failed to answer. Please try again soon.")),
    503: (
        _("Back in a moment"),
        _("The service cannot reach its database just now. Nothing you did is lost."),
    ),
}

#: Seconds a client is told to wait while the database is away.
UNAVAILABLE_RETRY = 5
#: The errors of a database that is away, restarting or too busy to answer in time: a 503.
UNAVAILABLE = (OperationalError, InterfaceError)


def error_page(
    request: HttpRequest, status: int, message: str = "", retry_after: int | None = None
) -> HttpResponse:
    """The site's styled error page for `status`, with its navigation (and, with
    ``retry_after``, a ``Retry-After`` header and a page that reloads itself then)."""
    title, explanation = _PAGES[status]
    username = ""
    try:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            username = user.get_username()
    except Exception:  # the database may be what failed: the page stands without the user
        username = ""
    context = {
        "page": "error",
        "username": username,
        "status": status,
        "title": title,
        "explanation": message or explanation,
        "retry_after": retry_after,
    }
    html: str
    try:
        html = render_to_string("frontend/error.html", context, request=request)
    except Exception:  # a page about a failure must not fail itself
        html = f"<h1>{status} {title}</h1>"
    response = HttpResponse(html, status=status)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def handler400(request: HttpRequest, exception: Exception) -> HttpResponse:
    """400: the request's own fault. A ``BadRequest`` raised with a sentence (the NUL guard,
    ``core.security``) says it; anything else is "Bad request."."""
    said = isinstance(exception, BadRequest) and exception.args and str(exception.args[0])
    if _is_api(request):
        return _json(400, "bad_request", said or gettext("Bad request."))
    return error_page(request, 400, said or "")


def handler403(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return _json(403, "permission_denied", gettext("You do not have permission to do this."))
    return error_page(request, 403)


def handler404(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return _json(404, "not_found", gettext("Not found."))
    reason = exception.args[0] if isinstance(exception, Http404) and exception.args else ""
    return error_page(request, 404, reason if isinstance(reason, str) else "")


def handler500(request: HttpRequest) -> HttpResponse:
    """A crash: 500. But a database that is away (refused, restarting, a pool with no connection
    to give within its timeout) or too busy (a lock or statement timeout) is no crash: 503
    ``unavailable`` with ``Retry-After``, for pages as for the API, and the page retries."""
    if isinstance(sys.exc_info()[1], UNAVAILABLE):
        if _is_api(request):
            response = _json(
                503,
                "unavailable",
                gettext("The service is briefly unavailable. Please try again in a few seconds."),
                retry_after=UNAVAILABLE_RETRY,
            )
            response["Retry-After"] = str(UNAVAILABLE_RETRY)
            return response
        return error_page(request, 503, retry_after=UNAVAILABLE_RETRY)
    if _is_api(request):
        return _json(500, "server_error", gettext("Internal server error."))
    return error_page(request, 500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    if _is_api(request):
        return _json(
            403, "permission_denied", gettext("CSRF Failed: %(reason)s") % {"reason": reason}
        )
    return django_csrf_failure(request, reason)
