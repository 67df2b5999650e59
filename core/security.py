"""Two guards of every request:

- :class:`ContentSecurityPolicyMiddleware`: the Content-Security-Policy header
  (settings.CONTENT_SECURITY_POLICY) on every response that does not set its own. Django 5.2 has
  no CSP support of its own.
- :class:`NulByteMiddleware`: a request with a NUL byte in its path, its query, a cookie or a
  header is refused 400 before anything reads it. No name, code, token or key of the service has
  one, and PostgreSQL refuses one in any text it is given: such a request would otherwise reach
  it through a lookup (``/api/players/%00/``, a session cookie) and fail it with a 500. Bodies are
  the serializers' (DRF's and Django's form fields refuse NUL bytes themselves).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponseBase
from django.utils.translation import gettext as _


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
        return response


NUL = "\x00"


def has_nul(request: HttpRequest) -> bool:
    """Whether ``request`` carries a NUL byte in its path, query, cookies or headers."""
    if NUL in request.path or NUL in request.path_info:
        return True
    if any(NUL in key or any(NUL in v for v in values) for key, values in request.GET.lists()):
        return True
    if any(NUL in key or NUL in value for key, value in request.COOKIES.items()):
        return True
    return any(
        NUL in str(value) for name, value in request.META.items() if name.startswith("HTTP_")
    )


class NulByteMiddleware:
    """400 ``bad_request`` for a request with a NUL byte outside its body (module docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if has_nul(request):
            raise BadRequest(_("A request may not contain a NUL byte."))
        return self.get_response(request)
