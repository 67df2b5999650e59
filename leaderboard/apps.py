from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import services, signals
        from leaderboard import checks, deals, receivers  # noqa: F401 (checks: registers)
        from leaderboard import signals as board_signals
        from leaderboard.api import errors

        errors.register()  # the statuses of this app's refusals
        # No practice game of a daily deal's deck (or any image of it under the game's
        # symmetries) before its day is over; after, its deck is one the server dealt.
        services.guard_decks(deals.is_unpublished_deck)
        services.known_decks(deals.is_published_deck)

        signals.standing_changed.connect(
            receivers.standing_changed, dispatch_uid="leaderboard.standing_changed"
        )
        board_signals.board_changed.connect(
            receivers.board_changed, dispatch_uid="leaderboard.board_changed"
        )
        board_signals.day_settled.connect(
            receivers.day_settled, dispatch_uid="leaderboard.day_settled"
        )
