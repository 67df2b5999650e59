"""The language menu and the account's language preference.

- ``set_language`` (POST /i18n/setlang/, the menu's form): Django's own view (it sets the
  django_language cookie and redirects back), which also stores the choice as the account's
  preference when someone is logged in.
- At log-in (``user_logged_in``), the account's preference becomes the request's language and
  ``LanguagePreferenceMiddleware`` writes it to the cookie of that response; an account with no
  preference yet takes the language the visitor was using (cookie, else Accept-Language).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponseBase
from django.utils import translation
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from .models import LanguagePreference

#: Where a log-in leaves the language for the middleware: the request's META, the one dict the
#: API's request (DRF's, which the log-in's receivers are given) and Django's share.
_META_KEY = "canfield.preferred_language"


def supported(code: object) -> str | None:
    """``code`` if it is one of settings.LANGUAGES, else None."""
    if isinstance(code, str) and code in dict(settings.LANGUAGES):
        return code
    return None


def remember(user: Any, language: str) -> None:
    """Store ``language`` as ``user``'s preference."""
    LanguagePreference.objects.update_or_create(user=user, defaults={"language": language})


@require_POST
def set_language(request: HttpRequest) -> HttpResponseBase:
    response = django_set_language(request)
    language = supported(request.POST.get("language"))
    if language is not None and request.user.is_authenticated:
        remember(request.user, language)
    return response


@receiver(user_logged_in, dispatch_uid="accounts.apply_language_preference")
def apply_language_preference(
    sender: object, request: HttpRequest | None, user: Any, **_: Any
) -> None:
    if request is None:
        return
    preference = LanguagePreference.objects.filter(user=user).first()
    if preference is not None and supported(preference.language):
        language = preference.language
    else:
        current = supported(translation.get_language_from_request(request))
        language = current or settings.LANGUAGE_CODE
        remember(user, language)
    translation.activate(language)
    request.META[_META_KEY] = language


class LanguagePreferenceMiddleware:
    """Writes the language cookie on the response of a log-in (see the module's docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        language = request.META.get(_META_KEY)
        if language is not None:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                language,
                max_age=settings.LANGUAGE_COOKIE_AGE,
                path=settings.LANGUAGE_COOKIE_PATH,
                domain=settings.LANGUAGE_COOKIE_DOMAIN,
                secure=settings.LANGUAGE_COOKIE_SECURE,
                httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                samesite=settings.LANGUAGE_COOKIE_SAMESITE,  # type: ignore[arg-type]
            )
        return response
