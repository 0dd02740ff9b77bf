from typing import Any

from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models.functions import Lower


class CaseInsensitiveUserManager(UserManager["User"]):
    def get_by_natural_key(self, username: Any) -> "User":
        # Signing in as "Alice" finds "alice": names are unique whatever their case.
        return self.get(username__iexact=username)


class User(AbstractUser):
    """A player. Usernames are unique whatever their case. The settings of the
    client are stored with the account, so they follow the player."""

    class Language(models.TextChoices):
        BROWSER = "", "browser default"
        EN = "en", "English"
        ID = "id", "Bahasa Indonesia"
        BG = "bg", "Български"
        TR = "tr", "Türkçe"

    class Theme(models.TextChoices):
        SYSTEM = "", "follow the system"
        LIGHT = "light", "light"
        DARK = "dark", "dark"

    class Deck(models.TextChoices):
        TWO = "two", "two colours"
        FOUR = "four", "four colours: clubs green, diamonds blue"

    class Motion(models.TextChoices):
        SYSTEM = "", "follow the system"
        REDUCED = "reduced", "reduced"

    language = models.CharField(max_length=8, choices=Language.choices, blank=True, default="")
    double_click = models.BooleanField(default=True, help_text="double tap plays a card")
    interactive_rules = models.BooleanField(
        default=True, help_text="show the rule when a move is refused"
    )

    # Appearance (issue 15, deliverable 7): applied as attributes of <html>.
    theme = models.CharField(max_length=8, choices=Theme.choices, blank=True, default="")
    deck = models.CharField(max_length=8, choices=Deck.choices, default=Deck.TWO)
    sounds = models.BooleanField(default=False, help_text="play sounds for moves")
    motion = models.CharField(max_length=8, choices=Motion.choices, blank=True, default="")

    objects = CaseInsensitiveUserManager()  # type: ignore[misc]

    class Meta:
        constraints = [models.UniqueConstraint(Lower("username"), name="username_unique_ci")]
