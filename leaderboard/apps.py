from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import signals
        from leaderboard import checks, receivers  # noqa: F401 (checks: registers)
        from leaderboard.live import fanout

        fanout.lighten_autobahn()

        signals.standing_changed.connect(
            receivers.standing_changed, dispatch_uid="leaderboard.standing_changed"
        )
