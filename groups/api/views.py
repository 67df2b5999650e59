"""The groups endpoints: thin views over ``groups.services``. Every endpoint needs a logged-in
player; making and joining a group needs an account (a guest is asked to sign up). Refusals are
``GameError`` (``groups.api.errors`` gives their statuses) and reach the client as
``{"code", "message"}``.

Rate limits (``core.throttling``): every write counts against ``group_actions`` per player, and a
join also against ``group_joins`` per network — counted together, all or none
(``throttling.Limits``), once the request is well formed and before anything is looked up
or written (``groups.services``: the ``admit`` hook)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import throttling
from core.accounts.guests import is_guest
from core.accounts.players import player
from core.api_errors import ApiError, ErrorSerializer
from core.strict import read_query
from groups import services
from groups.api.serializers import (
    AmongBoardSerializer,
    DayQuerySerializer,
    GroupInviteSerializer,
    GroupNameSerializer,
    GroupSerializer,
    GroupSummarySerializer,
    WeekSerializer,
)

TAGS = ["groups"]

_ERRORS = {
    400: "Malformed input: invalid (with fields), or a name that is only blanks or holds a "
    "control character: invalid_name.",
    401: "Not logged in: not_authenticated.",
    403: "A guest: account_required (sign up to make or join a group); or a session request "
    "without its CSRF header: permission_denied.",
    404: "No such group, or not a member of it: not_found (the same answer either way).",
    409: "A cap: too_many_groups (GROUPS_PER_PLAYER), group_full (GROUP_MEMBERS_MAX).",
    429: "Rate-limited: throttled (with retry_after, in seconds).",
}

ID = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The group's id.")
DAY = OpenApiParameter(
    "date",
    OpenApiTypes.DATE,
    OpenApiParameter.QUERY,
    required=False,
    description="A UTC day, YYYY-MM-DD (today or earlier); today without it.",
)


_OWNER_ONLY = (
    "A member who is not the owner: owner_only; or a session request without its CSRF header: "
    "permission_denied."
)


def _errors(*statuses: int, **descriptions: str) -> dict[int, OpenApiResponse]:
    """Error responses for the schema; ``e404="..."`` replaces the default description."""
    return {
        s: OpenApiResponse(ErrorSerializer, description=descriptions.get(f"e{s}", _ERRORS[s]))
        for s in statuses
    }


def _account(request: Request) -> User:
    """The player making ``request``, who must have an account (401 for a visitor; 403
    ``account_required`` for a guest, whose message says what signing up gives)."""
    user = player(request)
    if is_guest(user):
        raise ApiError(
            403,
            "account_required",
            _(
                "Sign up to make or join a group: an account puts you on the daily deal's board "
                "with your friends. The games you played as a guest are kept."
            ),
        )
    return user


def _actions(user: User) -> tuple[str, str, str]:
    return (
        "group_actions",
        throttling.user_key(user.pk),
        _("Too many changes to groups: try again later."),
    )


def _limit(request: Request, user: User, *, join: bool = False) -> throttling.Limits:
    """The limits of one write of ``user``'s (and of a join, its network's)."""
    limits = [_actions(user)]
    if join:
        limits.append(
            (
                "group_joins",
                throttling.network_key(request),
                _("Too many joins from your network: try again later."),
            )
        )
    return throttling.Limits(*limits)


class GroupListView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="My groups",
        description="The groups I belong to (at most GROUPS_PER_PLAYER), by name.",
        responses={200: GroupSummarySerializer(many=True), **_errors(401)},
    )
    def get(self, request: Request) -> Response:
        return Response(services.groups_of(player(request)))

    @extend_schema(
        tags=TAGS,
        summary="Make a group",
        description="A new group with me as its owner and first member, and its first invite "
        "(`invite`): share its join page, /groups/join/<invite>/, or the token itself.",
        request=GroupNameSerializer,
        responses={201: GroupSerializer, **_errors(400, 401, 403, 409, 429)},
    )
    def post(self, request: Request) -> Response:
        user = _account(request)
        body = GroupNameSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        made = services.create(user, body.validated_data["name"], _limit(request, user).admit)
        return Response(made, status=status.HTTP_201_CREATED)


class JoinView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="Join a group by its invite",
        description="Joins the group whose current invite this is, and answers the group. "
        "Already a member: the same answer, nothing changes. An invite that never was and one "
        "the owner has replaced are refused alike (invite_not_found). Counted against the "
        "group_joins limit of my network (a guess too) and my group actions.",
        request=GroupInviteSerializer,
        responses={
            200: GroupSerializer,
            **_errors(
                400,
                401,
                403,
                404,
                409,
                429,
                e400="Malformed input: invalid (with fields).",
                e404="No group has this invite now: invite_not_found.",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        user = _account(request)
        body = GroupInviteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        limits = _limit(request, user, join=True)
        return Response(services.join(user, body.validated_data["invite"], limits.admit))


class GroupView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="A group, with its members",
        description="For its members only: anyone else is answered 404, as for no group.",
        parameters=[ID],
        responses={200: GroupSerializer, **_errors(401, 404)},
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(services.detail(player(request), pk))

    @extend_schema(
        tags=TAGS,
        summary="Rename a group (its owner)",
        parameters=[ID],
        request=GroupNameSerializer,
        responses={
            200: GroupSerializer,
            **_errors(400, 401, 403, 404, 429, e403=_OWNER_ONLY),
        },
    )
    def patch(self, request: Request, pk: int) -> Response:
        user = player(request)
        body = GroupNameSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        name = body.validated_data["name"]
        return Response(services.rename(user, pk, name, _limit(request, user).admit))


class LeaveView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="Leave a group",
        description="An owner who leaves hands the group to the member who has been in it "
        "longest; the last member to leave ends the group.",
        parameters=[ID],
        request=None,
        responses={204: None, **_errors(401, 404, 429)},
    )
    def post(self, request: Request, pk: int) -> Response:
        user = player(request)
        services.leave(user, pk, _limit(request, user).admit)
        return Response(status=status.HTTP_204_NO_CONTENT)


class InviteView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="A new invite (its owner)",
        description="Replaces the group's invite with a new one: the old one joins nobody from "
        "then on. Answers the group, with the new `invite`.",
        parameters=[ID],
        request=None,
        responses={
            200: GroupSerializer,
            **_errors(401, 403, 404, 429, e403=_OWNER_ONLY),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        user = player(request)
        return Response(services.new_invite(user, pk, _limit(request, user).admit))


class MemberView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="Remove a member (its owner)",
        description="Takes the member out of the group; they may join again with the current "
        "invite (make a new one to keep them out). The owner leaves rather than removing "
        "themselves.",
        parameters=[
            ID,
            OpenApiParameter("username", str, OpenApiParameter.PATH, description="A member."),
        ],
        request=None,
        responses={
            200: GroupSerializer,
            **_errors(
                400,
                401,
                403,
                404,
                429,
                e400="The owner named themselves: owner_cannot_be_removed.",
                e403=_OWNER_ONLY,
                e404="No such group, not a member of it, or no member of that name: not_found.",
            ),
        },
    )
    def delete(self, request: Request, pk: int, username: str) -> Response:
        user = player(request)
        return Response(services.remove_member(user, pk, username, _limit(request, user).admit))


class BoardView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="A day's board among a group's members",
        description="The day's leaderboard among the members: their attempts in the whole "
        "board's order, `rank` among them, `board_rank` on the whole board, `me` my own row. "
        "Today's without `date`; live, it follows the day's stream (/ws/daily/<date>/: refetch "
        "on its updates).",
        parameters=[ID, DAY],
        responses={
            200: AmongBoardSerializer,
            **_errors(
                400,
                401,
                404,
                e400="Malformed date: invalid_date (or invalid: the parameter given twice or "
                "empty).",
                e404="No such group, or not a member of it (not_found); or a day not begun yet, "
                "or a past day with no deal (not_found).",
            ),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        query = read_query(DayQuerySerializer, request.query_params)
        return Response(services.board(player(request), pk, query.get("date")))


class WeekView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="A week's table of a group: points and streaks",
        description="Monday to Sunday (UTC) of the week of `date` (this week without it): each "
        "member's points of each day by their place among the members on that day's board — of "
        "n members who played, the first n points, the last 1; the same result (won, cards, "
        "actions) shares the places' points evenly; no attempt 0 — their total, and their "
        "current daily streak (docs/api.md).",
        parameters=[ID, DAY],
        responses={
            200: WeekSerializer,
            **_errors(
                400,
                401,
                404,
                e400="Malformed date: invalid_date (or invalid: the parameter given twice or "
                "empty).",
                e404="No such group, or not a member of it; or a day not begun yet: not_found.",
            ),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        query = read_query(DayQuerySerializer, request.query_params)
        return Response(services.week(player(request), pk, query.get("date")))
