from django.apps import AppConfig


class SocialConfig(AppConfig):
    """Players following players: the Following view of the daily board, the follow counts of a
    player's page and what the people one follows did today."""

    name = "social"
    verbose_name = "Social"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from leaderboard import services as leaderboard
        from social import services
        from social.api import errors

        errors.register()  # the statuses of this app's refusals
        # The leaderboard stands below this app and never imports it: it asks, this app answers.
        leaderboard.answer_follows(services.followed_ids, services.counts)
