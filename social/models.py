"""Who follows whom. A follow is one row: a player (``follower``) follows another
(``followed``), once; nobody follows themselves. Guests neither follow nor are followed: the
services refuse them (``social.services``), so no row ever names one."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone


class Follow(models.Model):
    follower = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    followed = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="social_follow_once"),
            models.CheckConstraint(
                condition=~Q(follower=F("followed")), name="social_no_following_oneself"
            ),
        ]
        indexes = [
            # Whom a player follows, newest first (GET /api/me/following/).
            models.Index(fields=["follower", "-created"], name="social_follows_of"),
        ]

    def __str__(self) -> str:
        return f"{self.follower_id} follows {self.followed_id}"
