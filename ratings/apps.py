from django.apps import AppConfig


class RatingsConfig(AppConfig):
    """Each player's skill rating, from the settled daily results (openskill's Weng-Lin,
    Plackett-Luce): the rating board, a player's rating and its history."""

    name = "ratings"
    verbose_name = "Ratings"
    default_auto_field = "django.db.models.BigAutoField"
