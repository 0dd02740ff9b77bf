"""The games' API, mounted under ``api/`` by ``config/urls.py``."""

from django.urls import path

import kit.api  # noqa: F401  (registers the game_id path converter)

from .api import (
    ActionsView,
    AnalysisView,
    DailyDayView,
    DailyView,
    DayResultsView,
    GamesView,
    GameView,
    LastWinnableView,
    LiveView,
    ReplayView,
    ResignView,
)

urlpatterns = [
    path("daily/", DailyView.as_view(), name="daily"),
    path("daily/<str:date>/", DailyDayView.as_view(), name="daily-day"),
    path(
        "daily/<str:date>/<str:variant>/results.jsonl",
        DayResultsView.as_view(),
        name="daily-results",
    ),
    path("games/", GamesView.as_view(), name="games"),
    path("live/", LiveView.as_view(), name="live"),
    path("games/<game_id:attempt_id>/", GameView.as_view(), name="game"),
    path("games/<game_id:attempt_id>/actions/", ActionsView.as_view(), name="game-actions"),
    path("games/<game_id:attempt_id>/resign/", ResignView.as_view(), name="game-resign"),
    path("games/<game_id:attempt_id>/replay/", ReplayView.as_view(), name="game-replay"),
    path(
        "games/<game_id:attempt_id>/last-winnable/",
        LastWinnableView.as_view(),
        name="game-last-winnable",
    ),
    path("games/<game_id:attempt_id>/analysis/", AnalysisView.as_view(), name="game-analysis"),
]
