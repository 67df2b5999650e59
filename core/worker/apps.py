from django.apps import AppConfig


class WorkerConfig(AppConfig):
    """The worker tier: ``manage.py worker``, the schedule of periodic duties, workers' beats."""

    name = "core.worker"
    label = "worker"
    verbose_name = "Worker tier"
    default_auto_field = "django.db.models.BigAutoField"
