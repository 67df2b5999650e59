"""Admin: games and their logs, read-only — games change only through games.services."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from games.models import Game, LoggedAction


class LogInline(admin.TabularInline[LoggedAction, Game]):
    model = LoggedAction
    fields = ("ply", "token", "score_after", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ["ply"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin[Game]):
    list_display = [
        "id", "owner", "code", "kind", "daily_date", "status", "score",
        "foundation_cards", "ply", "created_at",
    ]  # fmt: skip
    list_filter = ["kind", "status", "daily_date"]
    search_fields = ["owner__username", "id", "code"]
    date_hierarchy = "created_at"
    list_select_related = ["owner"]
    inlines = [LogInline]
    readonly_fields = (
        "owner", "code", "kind", "daily_date", "status", "day_over",
        "score", "ply", "undos", "foundation_cards", "created_at", "started_at", "finished_at",
        "views_version", "views",
    )  # fmt: skip
    fields = readonly_fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(LoggedAction)
class LoggedActionAdmin(admin.ModelAdmin[LoggedAction]):
    list_display = ["game", "ply", "token", "score_after", "created_at"]
    list_select_related = ["game"]
    search_fields = ["game__id"]
    readonly_fields = ["game", "ply", "token", "score_after", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a hole in a log would make the game unreadable

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
