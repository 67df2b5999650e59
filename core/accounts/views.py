"""POST /api/auth/signup/, /api/auth/login/, /api/auth/logout/, GET /api/auth/me/ and
GET/PATCH /api/auth/me/settings/.

Sign-up and log-in open a session (for the pages, CSRF-protected as DRF does for session
authentication) and answer a new API token (for scripts: `Authorization: Token <key>`) with its
expiry: a token works for TOKEN_LIFETIME_DAYS days; each log-in issues one of its own, and a user
may hold several (django-rest-knox's tokens: core.accounts.auth).
A failed log-in is 400 `invalid_credentials`: the request was understood and refused, and a
401 would tell a page it needs to log in, which is what it is doing.
Both hash a password, which never holds a database connection and runs in a bounded number of
slots per process (core.accounts.hashing): when none is free within LOGIN_HASH_WAIT the
answer is 503 `busy` with Retry-After, at once, and nothing is done.
Signing up or logging in from a guest's session keeps the guest's games: they become the
account's, in the same transaction, and the guest is deleted (core.accounts.guests).
"""

from typing import Any

from django.contrib.auth import authenticate, login, logout
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import throttling
from core.accounts import auth, guests, hashing
from core.accounts.models import change_settings, settings_of
from core.accounts.payloads import auth_result, me, settings_dict
from core.accounts.players import player
from core.api_errors import ApiError, ErrorSerializer
from core.throttling import LoginLimits

from .serializers import (
    USERNAME_TAKEN,
    AuthResultSerializer,
    LoginSerializer,
    MeSerializer,
    PlayerSettingsSerializer,
    SettingsChangeSerializer,
    SignupSerializer,
)

_ERRORS: dict[int | str, Any] = {
    400: ErrorSerializer,
    403: ErrorSerializer,
    429: ErrorSerializer,
    503: ErrorSerializer,
}


def busy(exc: hashing.Busy) -> ApiError:
    """503 ``busy``: no slot to hash a password in (``retry_after``, and ``Retry-After``)."""
    return ApiError(503, "busy", exc.message, retry_after=exc.retry_after)


class SignupView(APIView):
    permission_classes = [AllowAny]
    throttle_scope = "signup"

    @extend_schema(
        operation_id="auth_signup",
        request=SignupSerializer,
        responses={201: AuthResultSerializer, **_ERRORS},
        tags=["auth"],
    )
    def post(self, request: Request) -> Response:
        serializer = SignupSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        guest = guests.guest_of(request)
        try:
            encoded = hashing.hash_password(data["password"])  # (no connection held meanwhile)
        except hashing.Busy as exc:
            raise busy(exc) from None
        try:
            with transaction.atomic():
                user = User.objects.create(
                    username=User.normalize_username(data["username"]), password=encoded
                )
                issued = auth.issue(user, request=request)
                if guest is not None:
                    guests.adopt(guest, user)
        except IntegrityError:
            # Someone took the name (in another case) between the check and the insert.
            raise exceptions.ValidationError({"username": [USERNAME_TAKEN]}) from None
        login(request, user, backend=hashing.BACKEND)
        auth.give(request, issued.token)  # (a log-out of this session ends it)
        throttling.remember_network(request, user.username)  # (its owner's network)
        return Response(auth_result(user, issued), status=201)


class LoginView(APIView):
    """Limited per client address (every attempt), per account and network, and per account
    (failed attempts): see ``core.throttling.LoginLimits``; a 429's message says
    which."""

    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="auth_login",
        request=LoginSerializer,
        responses={200: AuthResultSerializer, **_ERRORS},
        tags=["auth"],
    )
    def post(self, request: Request) -> Response:
        raw = request.data.get("username") if isinstance(request.data, dict) else None
        limits = LoginLimits(request, raw if isinstance(raw, str) else "")
        if (refusal := limits.admit()) is not None:  # (counted before any password is hashed)
            raise refusal
        serializer = LoginSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            # Usernames are unique ignoring case: "bob" logs in as "Bob". An unknown name still
            # costs a hash (no timing oracle): hashing.SlotBackend.
            user = authenticate(
                request,
                username=serializer.validated_data["username"],
                password=serializer.validated_data["password"],
            )
        except hashing.Busy as exc:
            limits.not_checked()
            raise busy(exc) from None
        if user is None:
            raise ApiError(400, "invalid_credentials", _("Wrong username or password."))
        limits.succeeded()
        guest = guests.guest_of(request)
        if guest is not None and guest.pk != user.pk:
            with transaction.atomic():
                guests.adopt(guest, user)
        issued = auth.issue(user, request=request)  # a token of this log-in's own
        login(request, user)
        auth.give(request, issued.token)  # (a log-out of this session ends it)
        return Response(auth_result(user, issued))


class LogoutView(APIView):
    """Ends the session, and the token it was given: logging out with a token deletes that token
    (the user's other tokens work on); logging out of a session deletes the token its log-in or
    sign-up answered, if it is still the user's (``core.accounts.auth.end_given``) — a
    session that was given no token leaves the user's tokens to their scripts. The sockets
    opened with the token or the session are closed at once (``core.accounts.sockets``)."""

    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="auth_logout",
        request=None,
        responses={204: None, 403: ErrorSerializer},
        tags=["auth"],
    )
    def post(self, request: Request) -> Response:
        if auth.is_token(request.auth):
            request.auth.delete()
        elif request.user.is_authenticated:
            auth.end_given(request, request.user)
        logout(request)
        return Response(status=204)


@method_decorator(ensure_csrf_cookie, name="dispatch")
class MeView(APIView):
    """Who is logged in, and whether as a guest. Also sets the csrftoken cookie that session
    clients send back."""

    @extend_schema(
        operation_id="auth_me",
        responses={200: MeSerializer, 401: ErrorSerializer},
        tags=["auth"],
    )
    def get(self, request: Request) -> Response:
        return Response(me(player(request)))


def _settings_owner(request: Request) -> User:
    """The player whose settings ``request`` reads or changes: 401 for a visitor, 403
    ``account_required`` for a guest, whose games nobody else ever sees."""
    user = player(request)
    if guests.is_guest(user):
        raise ApiError(
            403,
            "account_required",
            _(
                "Nobody else sees a guest's games. Sign up to keep your games and to choose "
                "who may see them."
            ),
        )
    return user


class MySettingsView(APIView):
    """My choices about what others see of me: ``practice_private`` keeps my practice games to
    myself — listed, replayed and watched by me alone (``games.services.can_view_record`` and
    ``can_watch`` read it). A change takes effect at once, for every list, record and socket
    opened from then on."""

    @extend_schema(
        operation_id="auth_me_settings",
        summary="My settings",
        description=(
            "`practice_private`: true keeps my practice games to myself — listed, replayed and "
            "watched by me alone; false (the default) lets anyone list and replay them once "
            "they are over, and watch them while I play."
        ),
        responses={200: PlayerSettingsSerializer, 401: ErrorSerializer, 403: ErrorSerializer},
        tags=["auth"],
    )
    def get(self, request: Request) -> Response:
        return Response(settings_dict(settings_of(_settings_owner(request).pk)))

    @extend_schema(
        operation_id="auth_me_settings_change",
        summary="Change my settings",
        description=(
            "Send the settings to change (at least one); those left out stay as they are. "
            "Answers every setting as it now stands."
        ),
        request=SettingsChangeSerializer,
        responses={
            200: PlayerSettingsSerializer,
            400: ErrorSerializer,
            401: ErrorSerializer,
            403: ErrorSerializer,
        },
        tags=["auth"],
    )
    def patch(self, request: Request) -> Response:
        user = _settings_owner(request)
        body = SettingsChangeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response(settings_dict(change_settings(user.pk, **body.validated_data)))
