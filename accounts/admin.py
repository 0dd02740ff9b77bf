"""The admin's user pages, with the sign-up's guard on names: an account added or
renamed here stores its skeleton, and a name that looks like another player's
is refused, naming that player (accounts/names.py)."""

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm

from .models import User
from .names import username_skeleton
from .services import confusable_message, lookalike


class GuardedName(forms.ModelForm):
    """Mixed into the admin's add and change forms of a user."""

    instance: User

    def clean_username(self) -> Any:
        # The creation form's own check first (the same name in another case).
        parent = getattr(super(), "clean_username", None)
        username = parent() if parent else self.cleaned_data["username"]
        if username is None:  # that check refused it
            return None
        skeleton = username_skeleton(username)
        other = lookalike(username, skeleton, exclude=self.instance.pk)
        if other is not None:
            raise forms.ValidationError(confusable_message(username, other), "confusable")
        self.instance.username_skeleton = skeleton
        return username


class AddForm(GuardedName, AdminUserCreationForm):  # type: ignore[misc]
    pass


class ChangeForm(GuardedName, UserChangeForm):  # type: ignore[misc]
    pass


@admin.register(User)
class PlayerAdmin(UserAdmin):  # type: ignore[type-arg]
    add_form = AddForm
    form = ChangeForm
