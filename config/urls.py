from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView

import config.schema  # noqa: F401  (registers the auth scheme)
from accounts.api import GuestView, LoginView, LogoutView, MeView, RegisterView, SettingsView
from accounts.signin import count_attempt
from config.csp import csp_report
from config.exporter import metrics_view
from config.health import healthz, livez, readyz
from frontend.views import css_bundle_file, js_bundle_file, js_catalogue_file
from games.api import (
    ActionsView,
    DailyDayView,
    DailyView,
    GamesView,
    GameView,
    LastWinnableView,
    LiveView,
    ReplayView,
    ResignView,
)
from kit.api import login_throttled
from leaderboard.api import CalendarView, LeaderboardView, PlayerCalendarView, PlayerView

handler404 = "kit.errors.not_found"
handler500 = "kit.errors.server_failure"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("livez", livez, name="livez"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics_view, name="metrics"),  # bearer token only (config/exporter.py)
    path("csp-report/", csp_report, name="csp-report"),
    path("api/auth/me/", MeView.as_view(), name="auth-me"),
    path("api/auth/settings/", SettingsView.as_view(), name="auth-settings"),
    path("api/auth/register/", RegisterView.as_view(), name="auth-register"),
    path("api/auth/guest/", GuestView.as_view(), name="auth-guest"),
    path("api/auth/login/", LoginView.as_view(), name="auth-login"),
    path("api/auth/logout/", LogoutView.as_view(), name="auth-logout"),
    path("api/daily/", DailyView.as_view(), name="daily"),
    path("api/daily/<str:date>/", DailyDayView.as_view(), name="daily-day"),
    path("api/games/", GamesView.as_view(), name="games"),
    path("api/live/", LiveView.as_view(), name="live"),
    path("api/games/<game_id:attempt_id>/", GameView.as_view(), name="game"),
    path("api/games/<game_id:attempt_id>/actions/", ActionsView.as_view(), name="game-actions"),
    path("api/games/<game_id:attempt_id>/resign/", ResignView.as_view(), name="game-resign"),
    path("api/games/<game_id:attempt_id>/replay/", ReplayView.as_view(), name="game-replay"),
    path(
        "api/games/<game_id:attempt_id>/last-winnable/",
        LastWinnableView.as_view(),
        name="game-last-winnable",
    ),
    path(
        "api/leaderboard/<str:date>/<str:variant>/", LeaderboardView.as_view(), name="leaderboard"
    ),
    path("api/players/<str:username>/", PlayerView.as_view(), name="player"),
    path(
        "api/players/<str:username>/calendar/",
        PlayerCalendarView.as_view(),
        name="player-calendar",
    ),
    path("api/calendar/", CalendarView.as_view(), name="calendar"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The admin at ADMIN_PATH; its sign-in form shares the API login's throttles.
    path(f"{settings.ADMIN_PATH}login/", login_throttled(admin.site.login, count_attempt)),
    path(settings.ADMIN_PATH, admin.site.urls),
    # The client's strings in the player's language, and switching it (issue 6).
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    # A page's stylesheets and its modules as one file each, and the client's strings as a file per
    # language: built in-process, cached for good (issue 24, frontend/loading.py).
    path("css/<str:names>.<str:version>.css", css_bundle_file, name="css-bundle"),
    path("js/<str:names>.<str:version>.js", js_bundle_file, name="js-bundle"),
    path("jsi18n/<str:language>/<str:version>.js", js_catalogue_file, name="js-catalogue"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("frontend.urls")),
]
if settings.DEBUG:  # sign-in forms for the browsable API
    urlpatterns.append(path("api-auth/", include("rest_framework.urls")))
