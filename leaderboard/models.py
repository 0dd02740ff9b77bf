"""Rankings are read from the games app's attempts; this app stores only the race
rating (issue 29): each player's Glicko-2 rating over races, and what each race
changed (``ratings.py`` rates them; ``glicko2.py`` is the arithmetic)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class RaceRating(models.Model):
    """A player's race rating (Glicko-2, on the Glicko scale) after their last
    rated race. The deviation shown grows with the time since (``ratings.py``)."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="race_rating"
    )
    rating = models.FloatField(default=1500.0)
    deviation = models.FloatField(default=350.0)
    volatility = models.FloatField(default=0.06)
    races = models.PositiveIntegerField(default=0, help_text="rated races")
    updated_at = models.DateTimeField(default=timezone.now, help_text="its last rated race")

    def __str__(self) -> str:
        return f"{self.player_id}: {self.rating:.0f} ± {self.deviation:.0f}"


class RaceRatingChange(models.Model):
    """What one race did to one racer's rating. One per race and player: a race
    is rated once, whatever announces it twice."""

    race_id = models.BigIntegerField(help_text="the race (races.Race pk)")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="race_rating_changes"
    )
    variant = models.CharField(max_length=8)
    place = models.PositiveIntegerField()
    racers = models.PositiveIntegerField(help_text="racers in the standings")
    before = models.FloatField()
    after = models.FloatField()
    deviation_before = models.FloatField()
    deviation_after = models.FloatField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["race_id", "player"], name="race_rating_change_once")
        ]
        indexes = [models.Index(fields=["player", "-created_at"], name="race_rating_history")]

    def __str__(self) -> str:
        return f"race {self.race_id}, {self.player_id}: {self.before:.0f} → {self.after:.0f}"


class QuickSeat(models.Model):
    """A player in the quick race queue (``quick.py``): one seat a player, for one
    variant, with their race rating as it was when they queued. ``race`` is set
    when the seat is matched; the seat is kept so the player's next ask finds it."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="quick_seat"
    )
    variant = models.CharField(max_length=8)
    rating = models.FloatField(help_text="the race rating when queued (1500 before any)")
    queued_at = models.DateTimeField(default=timezone.now)
    seen_at = models.DateTimeField(
        default=timezone.now, help_text="the player's page last asked (it asks while it waits)"
    )
    race = models.ForeignKey(
        "races.Race", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )

    class Meta:
        indexes = [
            models.Index(
                fields=["variant", "queued_at"],
                condition=models.Q(race__isnull=True),
                name="quick_seat_waiting",
            )
        ]

    def __str__(self) -> str:
        return f"{self.player_id} queued for {self.variant}"
