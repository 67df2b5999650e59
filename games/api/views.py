"""The games endpoints: thin views over ``games.services`` and ``games.payloads`` (a game's
moves through ``games.api.moves``, which the game's websocket answers with too).

Every refusal is raised by the services as ``GameError`` and answered by the site's exception
handler (``core.api_errors``) as ``{"code", "message"}`` with the code's status.
"""

from __future__ import annotations

import gzip
from typing import Any

from django.http import HttpResponse
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import NotAuthenticated
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import throttling
from core.accounts import guests
from core.accounts.players import player
from core.api_errors import ErrorSerializer
from core.strict import read_query
from games import payloads, pool_jobs, records, services, winnable
from games.api import moves
from games.api.serializers import (
    ActionRequest,
    FinishedGameSerializer,
    FinishSerializer,
    GameListQuerySerializer,
    GameSerializer,
    HintSerializer,
    NewGameResponseSerializer,
    NewGameSerializer,
    PlayedGameSerializer,
    RecordQuerySerializer,
    RecordSerializer,
    VerdictSerializer,
)
from games.clock import utc_today
from games.errors import not_found
from games.models import Game

TAGS = ["games"]


_QUERY_400 = (
    "A query parameter that is not one of its values, given twice, or given empty: invalid."
)

_ERRORS = {
    400: "Malformed input: code invalid (with fields).",
    401: "Not logged in: not_authenticated.",
    404: "No such game, or not yours to see: not_found.",
    403: "Not allowed.",
    409: "The game is over: game_over.",
    429: "Rate-limited: throttled (with retry_after, in seconds).",
    503: "The solver pool is full: busy (with retry_after, and the Retry-After header).",
}


def _errors(*statuses: int, **descriptions: str) -> dict[int, OpenApiResponse]:
    """Error responses for the schema; ``e400="..."`` replaces the default description."""
    return {
        s: OpenApiResponse(ErrorSerializer, description=descriptions.get(f"e{s}", _ERRORS[s]))
        for s in statuses
    }


class GameListView(GenericAPIView[Game]):
    def get_permissions(self) -> list[Any]:
        # A visitor may start a practice game: they become a guest (core.accounts.guests).
        return [AllowAny()] if self.request.method == "POST" else [IsAuthenticated()]

    @extend_schema(
        tags=TAGS,
        summary="My games, newest first",
        parameters=[GameListQuerySerializer],
        responses={
            200: GameSerializer(many=True),
            **_errors(400, 401, 404, e404="A page past the last (not_found).", e400=_QUERY_400),
        },
    )
    def get(self, request: Request) -> Response:
        query = read_query(GameListQuerySerializer, request.query_params)
        today = utc_today()
        games = services.games_of(player(request))
        if "status" in query:
            games = games.with_status(query["status"], today)
        if "kind" in query:
            games = games.filter(kind=query["kind"])
        page = self.paginate_queryset(games) or []
        verdicts = services.kept_verdicts(page)  # (one query for the page)
        return self.get_paginated_response([payloads.game_dict(g, today, verdicts) for g in page])

    @extend_schema(
        tags=TAGS,
        summary="Start a practice game (random deal, or by code)",
        description=(
            "A random deal is one the solver proved winnable before it was dealt (a pool kept "
            "ahead by the worker tier), unless any_deal asks for any deal; when none is ready, "
            "a random deal is dealt at once. The answer's `deal` says which, and whether the "
            "deal is known to be lost (a code of a deal proved lost). "
            "Anyone may start one: a visitor without an account becomes a guest, logged into "
            "the browser's session (the response sets its cookie), whose games are kept when "
            "they sign up or log in. Limited per player (THROTTLE_PRACTICE) and per network "
            "(THROTTLE_PRACTICE_NETWORK; for guests also THROTTLE_GUESTS and "
            "THROTTLE_GUEST_GAMES)."
        ),
        request=NewGameSerializer,
        responses={
            201: NewGameResponseSerializer,
            **_errors(
                400,
                403,
                429,
                e400="Malformed input (invalid), a bad game code (invalid_code), or the code "
                "of a deck this server never dealt (unknown_deal: only random deals and their "
                "shared codes, CF1 deals and published daily deals play).",
                e403="The deck of a daily deal not public yet, or a deck equal to it up to the "
                "game's symmetries (daily_not_public), or a session request without its CSRF "
                "header (permission_denied).",
                e429="Too many new games from this player or network, or new guests from this "
                "network: throttled (retry_after).",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            # A visitor becomes a guest logged into this browser's session: a page of another
            # site must not do that for them (a log-in CSRF), so the CSRF check of a session
            # applies before there is one.
            SessionAuthentication().enforce_csrf(request)
        body = NewGameSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        with guests.practice_player(request) as owner:
            game, dealt = winnable.start(owner, **body.validated_data)
        answer = {**payloads.game_dict(game, utc_today()), "deal": dealt.as_dict()}
        return Response(answer, status=status.HTTP_201_CREATED)


class GameDetailView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="One of my games",
        responses={200: GameSerializer, **_errors(401, 404)},
    )
    def get(self, request: Request, pk: int) -> Response:
        game = services.get_game(pk, request.user)
        return Response(payloads.game_dict(game, utc_today()))


class GameActionView(APIView):
    throttle_scope = "actions"

    @extend_schema(
        tags=TAGS,
        summary="Play an action (a token, or a tap) in position `ply`",
        description=(
            'Send `{"ply": N, "action": "R-T2"}` or '
            '`{"ply": N, "tap": "T2", "index": 0, "double_click": true}`. '
            "`ply` must be the game's current ply. Repeating the last applied request (same ply, "
            "same action) answers the same again without applying it twice. A tap that does "
            "nothing answers 200 with `applied: null` and logs nothing. Undo is the action `U`."
        ),
        request=ActionRequest,
        responses={
            200: PlayedGameSerializer,
            **_errors(
                400,
                401,
                404,
                409,
                429,
                e400="Malformed input (invalid, with fields), text that is not an action"
                " (bad_notation), or an action the rules refuse (illegal_action; `reason` says"
                " why as a code, `message` in words).",
                e409="The position is not the game's (stale_ply, with the game's current"
                " ply), the game is over (game_over), or it has the most actions a game may"
                " have (game_too_long).",
            ),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        return Response(moves.play_action(pk, request.user, request.data))


class GameFinishView(APIView):
    throttle_scope = "actions"

    @extend_schema(
        tags=TAGS,
        summary="Finish: play the remaining actions that need no decision, in one request",
        description=(
            "Send `{\"ply\": N}`, N being the game's current ply, when the game's "
            "`state.finishable` is true. The server plays, as ordinary actions, every "
            "foundation move there is (the reserve's top card, the waste's, then the columns' "
            "from T1 to T4; a column emptied is refilled from the reserve as in any move), else "
            "a draw, or a recycle, until the game is won, and answers the won game with "
            "`applied`: every token it played, in order, each logged as if played alone. A "
            "daily attempt is finishable only from what the player has seen; a practice game "
            "from the whole position. Refused with nothing changed when the game is not "
            "finishable (not_finishable)."
        ),
        request=FinishSerializer,
        responses={
            200: FinishedGameSerializer,
            **_errors(
                400,
                401,
                404,
                409,
                429,
                e409="The position is not the game's (stale_ply, with the game's current"
                " ply), the game is over (game_over), it needs the player's own moves"
                " (not_finishable), or finishing would take it past the most actions a game may"
                " have (game_too_long).",
            ),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        return Response(moves.finish_game(pk, request.user, request.data))


class GameResignView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="Resign: end the game as it stands",
        request=None,
        responses={200: GameSerializer, **_errors(401, 404, 409)},
    )
    def post(self, request: Request, pk: int) -> Response:
        return Response(moves.resign_game(pk, request.user))


class GameRecordView(APIView):
    # Who may read a record is services.can_view_record's decision, anonymous users included.
    permission_classes = [AllowAny]

    @property
    def throttle_scope(self) -> str | None:
        """A record with every state (``?states=1``: up to ~2 MB, ~0.4 s for the longest game)
        is rate-limited (``THROTTLE_STATES``), per player or per address; a plain one is not."""
        return "states" if self.request.query_params.get("states") in {"1", "true"} else None

    @extend_schema(
        tags=TAGS,
        summary="A game's record: move log as JSON and as text",
        parameters=[RecordQuerySerializer],
        responses={
            200: RecordSerializer,
            **_errors(
                400,
                401,
                404,
                429,
                e400=_QUERY_400,
                e429="Rate-limited, with ?states=1: throttled (retry_after).",
            ),
        },
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        query = read_query(RecordQuerySerializer, request.query_params)
        game = services.find_game(pk)
        if game is None:
            raise not_found()  # (logging in would not help a visitor)
        if not services.can_view_record(request.user, game):
            if not request.user.is_authenticated:
                raise NotAuthenticated()
            raise not_found()
        return record_response(request, records.record_of(game, utc_today(), query["states"]))


def record_response(request: Request, record: pool_jobs.BuiltRecord) -> HttpResponse:
    """A record as stored: gzip-compressed to a client that accepts it, with a weak ``ETag``
    (its JSON's digest: the same for either encoding) that answers ``If-None-Match`` with 304."""
    etag = f'W/"{record.etag}"'
    if etag in {tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")}:
        response = HttpResponse(status=304)
    elif "gzip" in request.headers.get("Accept-Encoding", ""):
        response = HttpResponse(record.gzipped, content_type="application/json")
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(gzip.decompress(record.gzipped), content_type="application/json")
    response["ETag"] = etag
    patch_vary_headers(response, ["Accept-Encoding"])
    response["Cache-Control"] = "no-cache"  # (kept, and checked again with its ETag)
    return response


class GameHintView(APIView):
    """A hint for a practice game: a search in the solver pool (``HINT_SECONDS`` at most), or a
    lookup of what a search found before. Only searches that start count against
    ``THROTTLE_HINTS`` (``services.hint`` counts once the pool has admitted the search)."""

    @extend_schema(
        tags=TAGS,
        summary="A hint: the next action of a winning line, or the best move found, or that "
        "no win exists",
        description=(
            "Practice games only: a hint knows the hidden cards, so a ranked daily attempt gets "
            "403 hints_not_allowed. `outcome` is `win` (with `action`, the next action's token, "
            "and `remaining`, the winning line's length), `unknown` (the solver could not tell "
            "within its time: `action` is the best move it found, not proved, and `proved` is "
            "false), or `no_win` (no win exists from this position: a proof; no `action`, and "
            "`undo` says how many undos lead back to the last position proved winnable, or is "
            "null). Nothing about the game changes. The first hint from a position searches (in "
            "the solver pool) and keeps what it found — the whole winning line; a position it "
            "could not decide, with its best move; a lost position and every position it walked "
            "back through — and a hint from a position kept is a lookup. Only searches count "
            "against the rate limit (THROTTLE_HINTS), and only searches that start: when no "
            "worker of the solver pool is free, or due to be within SOLVER_WAIT, the answer is "
            "503 busy at once, with Retry-After (when a worker is due to be free), and nothing "
            "is counted."
        ),
        responses={
            200: HintSerializer,
            **_errors(
                401,
                403,
                404,
                409,
                429,
                503,
                e403="A ranked daily attempt: hints_not_allowed.",
                e429="Rate-limited (THROTTLE_HINTS, searches only): throttled (retry_after).",
                e503="No worker of the solver pool free nor due soon (not counted against "
                "THROTTLE_HINTS), or the search did not finish in time: busy (retry_after, and "
                "the Retry-After header).",
            ),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        limit = throttling.limit(
            "hints", throttling.user_key(request.user.pk), _("Too many hints.")
        )
        return Response(payloads.hint_dict(services.hint(pk, request.user, before_search=limit)))


class GameVerdictView(APIView):
    """Whether a practice game can still be won, for the game to say unasked that it is lost: the
    same answer as a hint without its move (``services.verdict``), its searches counted against
    ``THROTTLE_VERDICTS``, never against ``THROTTLE_HINTS``."""

    @extend_schema(
        tags=TAGS,
        summary="The solver's verdict on the position: can it still be won?",
        description=(
            "Practice games only (a ranked daily attempt in progress gets 403 "
            "hints_not_allowed), in progress (409 game_over). `outcome` is `win` or `no_win` "
            "(`proved` true) or `unknown` (`proved` false); with `no_win`, `undo` says how many "
            "undos lead back to the last position proved winnable (`actions`) and the game's "
            "ply after them, or is null. Never an action: that is a hint, which the player asks "
            "for. A position the solver answered before (by a hint or a verdict) is a lookup — "
            "the game's payload shows it as `verdict` — else a search exactly like a hint's, "
            "which keeps what it finds; only searches that start count against the rate limit "
            "(THROTTLE_VERDICTS, not the hints' limit): when no worker of the solver pool is "
            "free, or due to be within SOLVER_WAIT, the answer is 503 busy at once, and nothing "
            "is counted."
        ),
        responses={
            200: VerdictSerializer,
            **_errors(
                401,
                403,
                404,
                409,
                429,
                503,
                e403="A ranked daily attempt: hints_not_allowed.",
                e429="Rate-limited (THROTTLE_VERDICTS, searches only): throttled (retry_after).",
                e503="No worker of the solver pool free nor due soon (not counted against "
                "THROTTLE_VERDICTS), or the search did not finish in time: busy (retry_after, "
                "and the Retry-After header).",
            ),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        limit = throttling.limit(
            "verdicts",
            throttling.user_key(request.user.pk),
            _("Too many checks of whether the game can still be won."),
        )
        found = services.verdict(pk, request.user, before_search=limit)
        return Response(payloads.verdict_dict(found))
