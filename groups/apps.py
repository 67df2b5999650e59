from django.apps import AppConfig


class GroupsConfig(AppConfig):
    name = "groups"
    verbose_name = "Groups"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from groups.api import errors

        errors.register()  # the statuses of this app's refusals
