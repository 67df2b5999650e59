"""``GET /api/games/<id>/analysis/``: where a finished game's win slipped away (``games.analysis``).

Its answer is declared once here (:class:`AnalysisDict`, built by :func:`analysis_dict`); the
schema's serializer is derived from it. Who may read it: whoever may read the game's record
(``services.can_view_record``), once the game is over and its code public — a daily attempt only
after its day, its owner too (``games.analysis.analysable``). Reading asks for the analysis when
there is none yet: one task per game, whatever the number of readers.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import ErrorSerializer
from core.schema import serializer_for
from games import analysis, services, tasks
from games.clock import utc_today
from games.errors import not_found
from games.models import GameAnalysis


class SlipDict(TypedDict):
    """The action after which the game could no longer be won (the last such, undos counted),
    and the move that would have kept it winnable there."""

    ply: Annotated[int, "Its number in the log, undos included: 1 is the first action."]
    played: Annotated[str, "The action played there (its token)."]
    better: Annotated[str, "The first action of a winning line from the position before it."]
    line: Annotated[int, "That winning line's length, in actions, this one included."]


class AnalysisDict(TypedDict):
    """``analysing`` until the worker tier has computed it; then ``ready`` (``won``,
    ``winnable``, ``slip``) or ``undecided`` (the solver could not decide a position the answer
    needs within its budget: no slip is guessed)."""

    status: Literal["analysing", "ready", "undecided"]
    won: NotRequired[Annotated[bool, "With ready: the game was won."]]
    winnable: NotRequired[
        Annotated[bool, "With ready: the deal could be won from the start (false: never)."]
    ]
    slip: NotRequired[
        Annotated[
            SlipDict | None,
            "With ready: where the win slipped away; null when it was won, never winnable, or "
            "still winnable when it ended.",
        ]
    ]


AnalysisSerializer = serializer_for(AnalysisDict)


def analysis_dict(row: GameAnalysis) -> AnalysisDict:
    """The answer for an analysis row: a pending one (or one of another version, being computed
    again) is ``analysing``; a failed one is ``undecided``."""
    if row.status == GameAnalysis.Status.PENDING or not analysis.is_current(row):
        return {"status": "analysing"}
    if row.status != GameAnalysis.Status.READY:
        return {"status": "undecided"}
    slip: SlipDict | None = None
    if row.slip_ply is not None and row.line is not None:
        slip = {"ply": row.slip_ply, "played": row.played, "better": row.better, "line": row.line}
    return {"status": "ready", "won": row.won, "winnable": bool(row.winnable), "slip": slip}


class GameAnalysisView(APIView):
    # Who may read it is services.can_view_record's decision (anonymous users included), then
    # games.analysis.analysable's.
    permission_classes = [AllowAny]

    @extend_schema(
        tags=["games"],
        summary="Where a finished game's win slipped away",
        description=(
            "For a game that is over — a practice game once it has ended, a daily attempt once "
            "its UTC day is over (its owner too) — the last action after which it could no "
            "longer be won, the action that would have kept it winnable there, and the length "
            "of that winning line, proved by the solver (`win` before, `no_win` after). The "
            "worker tier computes it: `analysing` until then (a read asks for it if nobody has: "
            "one computation per game, however many readers); poll with a growing wait. A won "
            "game has no slip, nor a game whose deal could never be won (`winnable` false), nor "
            "one still winnable when it ended. `undecided`: the solver could not decide a "
            "position the answer needs within its budget. Visible to whoever may read the "
            "game's record."
        ),
        responses={
            200: AnalysisSerializer,
            401: OpenApiResponse(
                ErrorSerializer,
                description="A visitor, for a game whose record is not public: not_authenticated.",
            ),
            404: OpenApiResponse(
                ErrorSerializer,
                description="No such game, not yours to see, in progress, or a daily attempt "
                "whose day is not over: not_found.",
            ),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        game = services.find_game(pk)
        if game is None:
            raise not_found()  # (logging in would not help a visitor)
        if not services.can_view_record(request.user, game):
            if not request.user.is_authenticated:
                raise NotAuthenticated()
            raise not_found()
        if not analysis.analysable(game, utc_today()):
            raise not_found()
        return Response(analysis_dict(tasks.request_analysis(game)))
