from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView

import config.schema  # noqa: F401  (registers the auth scheme)
from accounts.api import LoginView, LogoutView, MeView, RegisterView
from games.api import (
    ActionsView,
    DailyView,
    GamesView,
    GameView,
    LiveView,
    ReplayView,
    ResignView,
)
from leaderboard.api import LeaderboardView, PlayerView

handler404 = "config.errors.not_found"
handler500 = "config.errors.server_failure"

urlpatterns = [
    # Until the web client lands, the front door is today's deals in the browsable API.
    path("", RedirectView.as_view(url="/api/daily/", permanent=False)),
    path("api/auth/me/", MeView.as_view(), name="auth-me"),
    path("api/auth/register/", RegisterView.as_view(), name="auth-register"),
    path("api/auth/login/", LoginView.as_view(), name="auth-login"),
    path("api/auth/logout/", LogoutView.as_view(), name="auth-logout"),
    path("api/daily/", DailyView.as_view(), name="daily"),
    path("api/games/", GamesView.as_view(), name="games"),
    path("api/live/", LiveView.as_view(), name="live"),
    path("api/games/<int:attempt_id>/", GameView.as_view(), name="game"),
    path("api/games/<int:attempt_id>/actions/", ActionsView.as_view(), name="game-actions"),
    path("api/games/<int:attempt_id>/resign/", ResignView.as_view(), name="game-resign"),
    path("api/games/<int:attempt_id>/replay/", ReplayView.as_view(), name="game-replay"),
    path(
        "api/leaderboard/<str:date>/<str:variant>/", LeaderboardView.as_view(), name="leaderboard"
    ),
    path("api/players/<str:username>/", PlayerView.as_view(), name="player"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("admin/", admin.site.urls),
]
if settings.DEBUG:  # sign-in forms for the browsable API
    urlpatterns.append(path("api-auth/", include("rest_framework.urls")))
