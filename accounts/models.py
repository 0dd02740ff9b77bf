from typing import Any

from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models.functions import Lower


class CaseInsensitiveUserManager(UserManager["User"]):
    def get_by_natural_key(self, username: Any) -> "User":
        # Signing in as "Alice" finds "alice": names are unique whatever their case.
        return self.get(username__iexact=username)


class User(AbstractUser):
    """A player. Usernames are unique whatever their case."""

    objects = CaseInsensitiveUserManager()  # type: ignore[misc]

    class Meta:
        constraints = [models.UniqueConstraint(Lower("username"), name="username_unique_ci")]
