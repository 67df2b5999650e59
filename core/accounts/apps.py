from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "core.accounts"
    label = "accounts"
    verbose_name = "Accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import language, sockets  # noqa: F401  (language: connects the log-in receiver)

        sockets.connect_signals()  # (a log-out ends its credential's sockets)
