"""Clubs and follows (issue 29): who plays with whom. A club has an owner, its
members (the owner among them) and an invite code; a follow is one player
following another, one way."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q


class Club(models.Model):
    name = models.CharField(max_length=40)
    # What the name looks like (accounts/names.py's rule): unique, so no club can
    # pass for another by case or look-alike letters.
    name_skeleton = models.TextField(unique=True, editable=False)
    slug = models.SlugField(max_length=60, unique=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="clubs_owned"
    )
    # The invite: unguessable (secrets.token_urlsafe), renewed by the owner and
    # whenever a member is removed; the old one then joins no one.
    code = models.CharField(max_length=32, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="club_memberships"
    )
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "player"], name="membership_unique"),
        ]


class Follow(models.Model):
    follower = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="following"
    )
    followed = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="followers"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="follow_unique"),
            models.CheckConstraint(condition=~Q(follower=F("followed")), name="follow_not_self"),
        ]
