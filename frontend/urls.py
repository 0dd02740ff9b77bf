"""The pages of the web client, mounted at the site root by ``config/urls.py``."""

from django.urls import path

import kit.api  # noqa: F401  (registers the game_id path converter)

from . import views

app_name = "frontend"

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("signup/", views.signup, name="signup"),
    path("login/", views.login, name="login"),
    path("play/<game_id:attempt_id>/", views.play, name="play"),
    path("watch/<game_id:attempt_id>/", views.watch, name="watch"),
    path("replay/<game_id:attempt_id>/", views.replay, name="replay"),
    path("live/", views.live, name="live"),
    path("leaderboard/", views.leaderboard_today, name="leaderboard-today"),
    path("leaderboard/<str:date>/<str:variant>/", views.leaderboard, name="leaderboard"),
    path("daily/", views.daily_today, name="daily-today"),
    path("daily/<str:date>/", views.daily, name="daily"),
    path("archive/", views.archive, name="archive"),
    path("players/<str:username>/", views.player, name="player"),
    path("rules/", views.rules, name="rules"),
]
