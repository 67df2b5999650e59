from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    """Weekly leagues: each ISO week's divisions of up to 30 players of a tier, their points
    from the days' percentiles, and promotion and relegation at the week's end."""

    name = "leagues"
    verbose_name = "Leagues"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from leagues import receivers
        from leagues.api import errors

        errors.register()  # the statuses of this app's refusals
        receivers.connect()  # a settled day is scored by the worker tier
