"""Race rooms and their racers (issue 29; the rules: docs/api.md, "Race rooms").

A race is on one deal; at its start every racer gets a practice attempt on it,
all with the same ``started_at``, sealed (``games.models.Attempt.sealed``)
until the race ends."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.models import Attempt, DailyDeal, Deal


class Race(models.Model):
    class Status(models.TextChoices):
        OPEN = "open"
        RUNNING = "running"
        FINISHED = "finished"

    slug = models.CharField(max_length=16, unique=True, help_text="the room's unguessable id")
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="races_hosted"
    )
    variant = models.CharField(max_length=8)
    deal = models.ForeignKey(
        Deal, on_delete=models.PROTECT, related_name="+", help_text="never named before the start"
    )
    daily = models.ForeignKey(
        DailyDeal,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="the past daily deal it races, if any",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    capacity = models.PositiveSmallIntegerField(default=50)
    quick = models.BooleanField(
        default=False, help_text="made by the quick race queue (leaderboard.quick), started at once"
    )
    created_at = models.DateTimeField(default=timezone.now)
    starts_at = models.DateTimeField(null=True, blank=True)
    ends_at = models.DateTimeField(
        null=True, blank=True, help_text="RACE_MINUTES after the start; then when it ended"
    )
    finished_at = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0, help_text="room changes so far")
    rematch = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        indexes = [
            models.Index(fields=["ends_at"], condition=Q(status="running"), name="race_running")
        ]

    def __str__(self) -> str:
        return f"race {self.slug}"  # no code: it is named only from the start


class Racer(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting"
        RACING = "racing"
        WON = "won"
        RESIGNED = "resigned"
        LEFT = "left"

    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="racers")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="racers"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    attempt = models.OneToOneField(
        Attempt, null=True, blank=True, on_delete=models.SET_NULL, related_name="racer"
    )
    joined_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    elapsed_ms = models.PositiveBigIntegerField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    progress = models.JSONField(
        null=True, blank=True, help_text="the last progress kept (counts only, never a card)"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["race", "player"], name="one_racer_per_player")
        ]
        ordering = ["joined_at", "pk"]

    def __str__(self) -> str:
        return f"{self.player} in {self.race}"


class RaceInvite(models.Model):
    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="invites")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="race_invites"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["race", "player"], name="one_invite_per_player")
        ]

    def __str__(self) -> str:
        return f"{self.player} invited to {self.race}"
