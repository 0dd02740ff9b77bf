"""The leaderboards' and players' API, mounted under ``api/`` by ``config/urls.py``."""

from django.urls import path

from .api import (
    CalendarView,
    CirclesView,
    DifficultyView,
    LeaderboardView,
    PlayerCalendarView,
    PlayerView,
    QuickRaceView,
    RaceRatingsView,
    WeekView,
    WouldRankView,
)

urlpatterns = [
    # Before the day's board, whose two free segments would take it.
    path("leaderboard/would-rank/<str:game>/", WouldRankView.as_view(), name="would-rank"),
    path("leaderboard/<str:date>/<str:variant>/", LeaderboardView.as_view(), name="leaderboard"),
    path("leaderboard/<str:date>/<str:variant>/circles/", CirclesView.as_view(), name="circles"),
    path("clubs/<str:slug>/week/", WeekView.as_view(), name="club-week"),
    path("players/<str:username>/", PlayerView.as_view(), name="player"),
    path("players/<str:username>/calendar/", PlayerCalendarView.as_view(), name="player-calendar"),
    # Before races/{race}/ (config/urls.py includes these first): "quick" is no room.
    path("races/quick/", QuickRaceView.as_view(), name="quick-race"),
    path("races/<str:race>/ratings/", RaceRatingsView.as_view(), name="race-ratings"),
    path("calendar/", CalendarView.as_view(), name="calendar"),
    path("difficulty/", DifficultyView.as_view(), name="difficulty"),
]
