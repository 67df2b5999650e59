"""What an account keeps besides Django's user: the player's language."""

from django.conf import settings
from django.db import models


class LanguagePreference(models.Model):
    """The language a player chose in the menu; applied again whenever they log in."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="language_preference"
    )
    # One of settings.LANGUAGES (checked where it is written: a new language needs no migration).
    language = models.CharField(max_length=8)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.language}"
