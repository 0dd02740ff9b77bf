"""Clubs and follows (issue 29): who plays with whom. A club has an owner, its
members (the owner among them) and an invite code; a follow is one player
following another, one way."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q


class Club(models.Model):
    name = models.CharField(max_length=40)
    # What the name looks like (accounts/names.py's rule), of the name in lower
    # case: unique, so of two clubs named alike at once only one is stored. And of
    # the name as written (``look_skeleton``): upper-case look-alikes (``I`` and
    # ``l``) are mapped before case is folded, so a name is checked against both.
    name_skeleton = models.TextField(unique=True, editable=False)
    look_skeleton = models.TextField(db_index=True, editable=False, default="")
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
