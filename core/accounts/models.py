"""What an account keeps besides Django's user: the player's language, their settings, and whether
the user is a guest."""

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


class Guest(models.Model):
    """Marks a user as a guest: a visitor who started a practice game without an account
    (``core.accounts.guests``). The row is the mark — not the username, which a guest
    gets from a pattern sign-up refuses but an older account may have. A guest has no password,
    plays through the browser's session, and is on no board, player page or list; signing up or
    logging in from that session moves their games to the account and deletes the guest."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="guest"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"guest {self.user_id}"


class PlayerSettings(models.Model):
    """A player's choices about what others see of them. A player without a row has the
    defaults (:func:`settings_of`)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="player_settings"
    )
    practice_private = models.BooleanField(
        default=False,
        help_text="Their practice games are listed, replayed and watched by them alone",
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user_id}: practice {'private' if self.practice_private else 'public'}"


def settings_of(user_id: int) -> PlayerSettings:
    """The player's settings: their row, or the defaults (unsaved) when they never chose."""
    found = PlayerSettings.objects.filter(user_id=user_id).first()
    return found if found is not None else PlayerSettings(user_id=user_id)


def change_settings(user_id: int, **values: bool) -> PlayerSettings:
    """Set the player's settings named in ``values`` (the others stay as they are) and return
    them all: one row a player, made at their first choice."""
    found, _created = PlayerSettings.objects.update_or_create(user_id=user_id, defaults=values)
    return found


def practice_is_private(user_id: int) -> bool:
    """Whether the player ``user_id`` keeps their practice games to themselves."""
    return PlayerSettings.objects.filter(user_id=user_id, practice_private=True).exists()


class TokenOrigin(models.Model):
    """Where an API token was issued: a salted hash of the network (its /24 or /64) and the user
    agent of the log-in or sign-up that issued it — its *device mark*, the fair-play review's
    device for a client that keeps no cookie (``core.accounts.auth.device_mark``). Never the address
    nor the user agent themselves; deleted with its token (log-out, expiry)."""

    token = models.OneToOneField(
        "knox.AuthToken", on_delete=models.CASCADE, primary_key=True, related_name="origin"
    )
    mark = models.CharField(max_length=32, help_text="HMAC of the issuing network and user agent")

    def __str__(self) -> str:
        return f"origin of token {self.token_id}"
