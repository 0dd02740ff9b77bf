"""The admin's user pages, with the sign-up's guard on names: an account added or
renamed here stores its skeleton, and a name that looks like another player's
is refused, naming that player (accounts/names.py). An account is never deleted
here — that would take its games off past boards — but anonymised, as a player
deleting their own is (accounts/privacy.py)."""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.db.models import QuerySet
from django.http import HttpRequest

from .models import User
from .names import username_skeleton
from .privacy import account_anonymise, is_deleted
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
    actions = ("anonymise",)
    # Whether each account's email is confirmed (issue 28): only a confirmed one gets resets.
    list_display = (*UserAdmin.list_display, "email_verified")
    list_filter = (*UserAdmin.list_filter, "email_verified")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # the "anonymise" action instead: past boards keep their results

    @admin.action(
        description="Delete the selected accounts (anonymised: their results stay on the boards)",
        permissions=["change"],
    )
    def anonymise(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        done = 0
        for user in queryset:
            if is_deleted(user) or user.pk == request.user.pk:
                continue  # already done; and staff do not delete themselves by a slip
            account_anonymise(user=user)
            self.log_change(request, user, "anonymised (account deleted)")
            done += 1
        self.message_user(request, f"Anonymised {done} account(s).", messages.SUCCESS)
