"""The pages of the web client (``urlpatterns``, namespaced ``frontend``) and
the files their pages load (``files``), both mounted at the site root by
``config/urls.py``."""

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
    # Clubs (issue 29): mine, an invite link, a club's page.
    path("clubs/", views.clubs, name="clubs"),
    path("clubs/join/<str:code>/", views.club_join, name="club-join"),
    path("clubs/<str:slug>/", views.club, name="club"),
    path("rules/", views.rules, name="rules"),
    path("offline/", views.offline, name="offline"),
    path("og/<str:date>.png", views.day_card_image, name="day-card-image"),
    # A player's result, shared (issue 28): its page and its link preview's image.
    path("r/<game_id:attempt_id>/", views.result, name="result"),
    path("og/r/<game_id:attempt_id>.png", views.result_card_image, name="result-card-image"),
    # Keeping an account (issue 28): the mails' links (accounts/mail.py).
    path("account/reset/", views.password_reset, name="password-reset"),
    path("account/verify/", views.email_verify, name="email-verify"),
    path("account/secure/", views.account_secure, name="account-secure"),
    path("account/reminders/off/", views.reminders_off, name="reminders-off"),
    path("privacy/", views.privacy, name="privacy"),
    # Race rooms (issue 29): the waiting room, the race and its end on one link.
    path("race/<str:race_id>/", views.race, name="race"),
]

files = [
    # A page's stylesheets and its modules as one file each, and the client's strings as a file per
    # language: built in-process, cached for good (issue 24, frontend/loading.py).
    path("css/<str:names>.<str:version>.css", views.css_bundle_file, name="css-bundle"),
    path("js/<str:names>.<str:version>.js", views.js_bundle_file, name="js-bundle"),
    path("jsi18n/<str:language>/<str:version>.js", views.js_catalogue_file, name="js-catalogue"),
    # The installable app (issue 28): at the root, as the worker's scope must be.
    path("manifest.webmanifest", views.manifest, name="manifest"),
    path("sw.js", views.service_worker, name="service-worker"),
]
