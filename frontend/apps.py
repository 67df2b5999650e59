from django.apps import AppConfig


class FrontendConfig(AppConfig):
    """The web pages: plain templates plus JavaScript modules that talk to the REST API."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "frontend"
    verbose_name = "Frontend"
