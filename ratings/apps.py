from django.apps import AppConfig


class RatingsConfig(AppConfig):
    """Each player's skill rating, from the settled daily results (openskill's Weng-Lin,
    Plackett-Luce): the rating board, a player's rating and its history."""

    name = "ratings"
    verbose_name = "Ratings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from leaderboard import services as leaderboard
        from leaderboard import signals
        from ratings import receivers, services
        from ratings.api import errors

        errors.register()  # the statuses of this app's refusals
        # The leaderboard stands below this app and never imports it: it asks, this app answers.
        leaderboard.answer_rating(services.rating_of)
        signals.day_settled.connect(receivers.day_settled, dispatch_uid="ratings.day_settled")
