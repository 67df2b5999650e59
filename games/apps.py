from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games.api import errors

        errors.register()  # the statuses of this app's refusals, the body of a GameError
