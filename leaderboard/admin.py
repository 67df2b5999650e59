"""Admin: the fair-play review of a day, for staff. Its attempts, the most suspicious first,
each with its signals in plain words (a win near par, choices only the hidden cards explain,
scouting, a scout linked to a winner or the top of the board by network, device or sign-up, play
faster than a person reads, a shared network with any of these), the clairvoyance test's
evidence and its decisive forks (the move made, the moves that looked as good, what the hidden
cards decided), a click away from its replay, and disqualification: with a reason, logged with
who decided, and undone by reinstating (``leaderboard.review``) — always a person's decision.
What is kept for it, and for how long, is in docs/privacy.md."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_POST

from games.clock import utc_today
from games.errors import GameError
from leaderboard import review
from leaderboard.models import AttemptReview, FairPlayDecision


def _day(text: str | None) -> dt.date:
    try:
        return dt.date.fromisoformat(text) if text else utc_today()
    except ValueError:
        return utc_today()


@admin.register(AttemptReview)
class FairPlayAdmin(admin.ModelAdmin[AttemptReview]):
    """The day's review is this model's list page; decisions are posted to ``decide/``."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_staff)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_module_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_urls(self) -> list[URLPattern]:
        decide = self.admin_site.admin_view(require_POST(self.decide))
        return [
            path("decide/", decide, name="leaderboard_attemptreview_decide"),
            *super().get_urls(),
        ]

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        day = _day(request.GET.get("day"))
        rows = review.day_review(day)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Fair-play review of {day.isoformat()}",
            "opts": self.model._meta,
            "day": day,
            "previous": day - dt.timedelta(days=1),
            "next": day + dt.timedelta(days=1) if day < utc_today() else None,
            "rows": rows,
            "flagged": sum(1 for row in rows if row.flags),
            "median": review.median_per_action(rows),
            "fast_seconds": review.FAST_SECONDS,
            "fast_actions": review.FAST_MIN_ACTIONS,
            "near_par": f"{review.NEAR_PAR:.0%}",
            "weights": review.WEIGHTS,
            "scout_seen": review.SCOUT_SEEN,
            "scout_moves": review.SCOUT_MOVES,
            "scout_idle": int(review.SCOUT_IDLE.total_seconds() // 60),
            "top": review.TOP,
            "signup_window": int(review.SIGNUP_WINDOW.total_seconds() // 60),
            "clairvoyant": review.CLAIRVOYANT,
            "decisions": FairPlayDecision.objects.filter(game__daily_date=day).select_related(
                "game__owner", "staff"
            ),
            "can_decide": request.user.has_perm("leaderboard.add_fairplaydecision"),
        }
        return TemplateResponse(request, "admin/leaderboard/fair_play.html", context)

    def decide(self, request: HttpRequest) -> HttpResponse:
        if not request.user.has_perm("leaderboard.add_fairplaydecision"):
            raise PermissionDenied
        day = _day(request.POST.get("day"))
        back = f"{reverse('admin:leaderboard_attemptreview_changelist')}?day={day.isoformat()}"
        action = request.POST.get("action", "")
        reason = request.POST.get("reason", "").strip()
        try:
            game_id = int(request.POST.get("game", ""))
        except ValueError:
            messages.error(request, "No such attempt.")
            return HttpResponseRedirect(back)
        if action not in FairPlayDecision.Action.values or not reason:
            messages.error(request, "A decision needs its action and its reason.")
            return HttpResponseRedirect(back)
        decide = (
            review.disqualify if action == FairPlayDecision.Action.DISQUALIFY else review.reinstate
        )
        try:
            game = decide(game_id, request.user, reason)  # type: ignore[arg-type]
        except GameError:
            messages.error(request, "No such daily attempt.")
            return HttpResponseRedirect(back)
        done = "disqualified" if game.disqualified else "reinstated"
        messages.success(request, f"Attempt #{game.pk} of {game.owner} {done}.")
        return HttpResponseRedirect(back)
