from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    """Weekly leagues: each ISO week's divisions of up to 30 players of a tier, their points
    from the days' percentiles, and promotion and relegation at the week's end."""

    name = "leagues"
    verbose_name = "Leagues"
    default_auto_field = "django.db.models.BigAutoField"
