from django.apps import AppConfig
from django.core.signals import request_started


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import receivers, signals, watch_hub
        from games.api import accounts, errors

        errors.register()  # the statuses of this app's refusals, the body of a GameError
        accounts.register()  # a player's games: a guest who signs up keeps them
        signals.standing_changed.connect(
            receivers.standing_changed, dispatch_uid="games.standing_changed"
        )
        # A game's spectators are sent each change of it (games.watch_hub).
        signals.standing_changed.connect(watch_hub.publish, dispatch_uid="games.watch_hub")
        request_started.connect(receivers.request_started, dispatch_uid="games.request_started")
