"""The accounts' API, mounted under ``api/`` by ``config/urls.py``."""

from django.urls import path

from .api import (
    GuestView,
    LoginView,
    LogoutView,
    MeView,
    RegisterView,
    SettingsView,
)
from .api_privacy import (
    AccountView,
    ExportView,
)
from .api_recovery import (
    EmailVerifyResendView,
    EmailVerifyView,
    EmailView,
    LogoutEverywhereView,
    PasswordChangeView,
    PasswordResetConfirmView,
    PasswordResetView,
    SecureView,
)
from .api_reminders import (
    PushView,
    ReminderKeyView,
    ReminderOffView,
    ReminderView,
)

urlpatterns = [
    path("auth/me/", MeView.as_view(), name="auth-me"),
    path("auth/settings/", SettingsView.as_view(), name="auth-settings"),
    path("auth/register/", RegisterView.as_view(), name="auth-register"),
    path("auth/guest/", GuestView.as_view(), name="auth-guest"),
    path("auth/login/", LoginView.as_view(), name="auth-login"),
    path("auth/logout/", LogoutView.as_view(), name="auth-logout"),
    # Keeping an account (issue 28).
    path("auth/logout/everywhere/", LogoutEverywhereView.as_view(), name="auth-logout-everywhere"),
    path("auth/email/", EmailView.as_view(), name="auth-email"),
    path("auth/email/verify/", EmailVerifyView.as_view(), name="auth-email-verify"),
    path(
        "auth/email/verify/resend/",
        EmailVerifyResendView.as_view(),
        name="auth-email-verify-resend",
    ),
    path("auth/secure/", SecureView.as_view(), name="auth-secure"),
    path("auth/password/", PasswordChangeView.as_view(), name="auth-password"),
    path("auth/password/reset/", PasswordResetView.as_view(), name="auth-password-reset"),
    path(
        "auth/password/reset/confirm/",
        PasswordResetConfirmView.as_view(),
        name="auth-password-reset-confirm",
    ),
]

urlpatterns += [
    path("auth/account/", AccountView.as_view(), name="auth-account"),
    path("auth/export/", ExportView.as_view(), name="auth-export"),
]

# Come back tomorrow (issue 28): the reminder of the new daily (accounts/reminders.py).
urlpatterns += [
    path("reminders/", ReminderView.as_view(), name="reminders"),
    path("reminders/key/", ReminderKeyView.as_view(), name="reminders-key"),
    path("reminders/push/", PushView.as_view(), name="reminders-push"),
    path("reminders/unsubscribe/", ReminderOffView.as_view(), name="reminders-unsubscribe"),
]
