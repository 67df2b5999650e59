"""Groups of friends and their members.

A :class:`Group` has a name, an owner and one invite at a time: a random token (``secrets``)
that whoever holds it may use to join. The token is kept as it is, for the members to share
again, and as its SHA-256 digest, by which a join finds the group: the database compares
digests, which a guesser cannot steer, so how long an answer takes tells nothing of how near a
guess came. A new invite replaces both: the old token finds nothing from then on.

The owner is a member like the others (a :class:`Membership` row), so that the caps count them
alike (``groups.services``). An account deleted takes the groups it owns with it: nothing in the
service deletes an account but the purge of idle guests, and a guest is in no group.
"""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models

#: The bytes of randomness in an invite token (``secrets.token_urlsafe``: 32 characters).
INVITE_BYTES = 24


def invite_digest(token: str) -> str:
    """The digest a group's invite is found by."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Group(models.Model):
    name = models.CharField(max_length=40)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="owned_groups"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    invite = models.CharField(max_length=64, help_text="The current invite token")
    invite_digest = models.CharField(
        max_length=64, unique=True, help_text="SHA-256 of the invite token, to find it by"
    )

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.name}"

    def new_invite(self) -> None:
        """A fresh invite token (unsaved): the old one stops working once this is saved."""
        self.invite = secrets.token_urlsafe(INVITE_BYTES)
        self.invite_digest = invite_digest(self.invite)


class Membership(models.Model):
    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="group_memberships"
    )
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["group", "user"], name="groups_one_membership"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.group_id}"
