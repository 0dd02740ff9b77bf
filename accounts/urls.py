"""The accounts' API, mounted under ``api/`` by ``config/urls.py``."""

from django.urls import path

from .api import (
    AccountView,
    ExportView,
    GuestView,
    LoginView,
    LogoutView,
    MeView,
    RegisterView,
    SettingsView,
)

urlpatterns = [
    path("auth/me/", MeView.as_view(), name="auth-me"),
    path("auth/settings/", SettingsView.as_view(), name="auth-settings"),
    path("auth/register/", RegisterView.as_view(), name="auth-register"),
    path("auth/guest/", GuestView.as_view(), name="auth-guest"),
    path("auth/login/", LoginView.as_view(), name="auth-login"),
    path("auth/logout/", LogoutView.as_view(), name="auth-logout"),
]

urlpatterns += [
    path("auth/account/", AccountView.as_view(), name="auth-account"),
    path("auth/export/", ExportView.as_view(), name="auth-export"),
]
