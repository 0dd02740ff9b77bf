from typing import Any

from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models, transaction
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils.crypto import salted_hmac

from .marks import user_changed
from .names import username_skeleton


class UserQuerySet(models.QuerySet["User"]):
    def update(self, **kwargs: Any) -> int:
        """An update of users' rows sets their marks anew once committed, as a save
        does (``accounts.marks``): no process serves a row kept from before it."""
        with transaction.atomic():
            changed = list(self.values_list("pk", flat=True))
            count = super().update(**kwargs)
            for user_id in changed:
                user_changed(user_id)
        return count


class CaseInsensitiveUserManager(UserManager.from_queryset(UserQuerySet)):  # type: ignore[misc]
    def get_by_natural_key(self, username: Any) -> "User":
        # Signing in as "Alice" finds "alice": names are unique whatever their case.
        return self.get(username__iexact=username)

    def _create_user_object(self, username: Any, email: Any, password: Any, **extra: Any) -> "User":
        # Every way an account is made (sign-up, createsuperuser, tests) stores what
        # its name looks like, so no later name can be confusable with it.
        user: User = super()._create_user_object(username, email, password, **extra)
        user.username_skeleton = username_skeleton(user.username)
        return user


class User(AbstractUser):
    """A player. Usernames are unique whatever their case, and whatever they look
    like (``username_skeleton``, accounts/names.py). The settings of the
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

    class Tap(models.TextChoices):
        BEST = "best", "a tap plays the card to its best place (the double tap's order)"
        FOUNDATION = "foundation", "a tap sends the card to a foundation"

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
    # What one tap does (issue 24): as the games people know, the card goes to its
    # best place at once (RULES.md C14's order); "foundation" keeps the app's tap.
    tap = models.CharField(max_length=12, choices=Tap.choices, default=Tap.BEST)

    # A guest (issue 24, PRODUCT.md anti-cheat): a session-bound player made for a
    # signed-out visitor, with no usable password. Every rule holds for it as for
    # any account; its results are on no board until an account claims them.
    is_guest = models.BooleanField(default=False, db_index=True)

    # What the name looks like (accounts/names.py): unique, so of two confusable
    # sign-ups at once only one is stored. Null only for an account older than the
    # column whose name was already confusable with an older one's (0005).
    username_skeleton = models.TextField(null=True, blank=True, unique=True, editable=False)

    # Email (issue 28): optional. ``email`` (AbstractUser's) is the address last
    # given; it receives password-reset mail only once its link was followed
    # (``email_verified``). Of verified addresses, one account each (any case).
    email_verified = models.BooleanField(default=False)
    # Bumped by "sign out everywhere": it is part of the session hash below, so
    # every session made before it stops being this user's on its next request.
    session_generation = models.PositiveIntegerField(default=0, editable=False)
    # When a "this wasn't me" link was last followed (issue 37, accounts/recovery.py,
    # ``account_secure``): every such link issued before it is void, so each works once.
    secured_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = CaseInsensitiveUserManager()  # type: ignore[misc]

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("username"), name="username_unique_ci"),
            models.UniqueConstraint(
                Lower("email"), condition=Q(email_verified=True), name="verified_email_unique_ci"
            ),
        ]

    def _get_session_auth_hash(self, secret: str | None = None) -> str:
        """Django's session hash (the password's hash, HMAC'd with SECRET_KEY or a
        fallback), with ``session_generation`` mixed in: Django checks it on every
        request (``django.contrib.auth.get_user``) and on a websocket's connect, so
        bumping the generation ends every session at once, no session table scan.
        At generation 0 it is Django's hash exactly: sessions made before this
        column survive its migration."""
        stamped = self.password
        if self.session_generation:
            stamped = f"{self.password}:{self.session_generation}"
        return salted_hmac(
            "django.contrib.auth.models.AbstractBaseUser.get_session_auth_hash",
            stamped,
            secret=secret,
            algorithm="sha256",
        ).hexdigest()


class HeldName(models.Model):
    """The name of a deleted account, held from sign-ups until ``until`` (issue
    37; ``DELETED_NAME_HOLD_DAYS``): old links to the player's page and a board's
    past rows are not taken over by someone else. Kept as its look-alike
    skeleton (accounts/names.py), so a confusable of the name is held too, and
    the name itself is not stored."""

    skeleton = models.TextField(unique=True)
    until = models.DateTimeField(db_index=True)


class Reminder(models.Model):
    """A player's choice of a reminder when the new daily opens (issue 28,
    deliverable 3; accounts/reminders.py): off, a Web Push to the devices
    subscribed, or a mail to the verified address; when the day opens (00:00
    UTC) or at a local hour of the player's IANA time zone. ``reminded_on`` is
    the last UTC day reminded (at most one a day); ``next_at`` when the beat
    job looks at the player next (indexed: a run reads only the players due)."""

    class Channel(models.TextChoices):
        OFF = "off", "off"
        PUSH = "push", "a Web Push notification on the devices subscribed"
        EMAIL = "email", "a mail to the verified address"

    user = models.OneToOneField(User, on_delete=models.CASCADE, related_name="reminder")
    channel = models.CharField(max_length=8, choices=Channel.choices, default=Channel.OFF)
    # None: when the new day opens (00:00 UTC); else this hour of ``timezone``.
    hour = models.PositiveSmallIntegerField(null=True, blank=True)
    timezone = models.CharField(max_length=64, blank=True, default="")
    reminded_on = models.DateField(null=True, blank=True)
    next_at = models.DateTimeField(null=True, blank=True, db_index=True)


class PushSubscription(models.Model):
    """One browser's Web Push subscription (``PushManager.subscribe``): where to
    post (``endpoint``, checked: https, a public address) and the keys to
    encrypt for it. Deleted when its push service answers 404 or 410."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="push_subscriptions")
    endpoint = models.URLField(max_length=1024)
    p256dh = models.CharField(max_length=100)
    auth = models.CharField(max_length=32)
    label = models.CharField(max_length=80, blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    last_success = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "endpoint"], name="push_endpoint_unique_per_user"
            )
        ]
