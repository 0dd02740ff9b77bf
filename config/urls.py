"""The site's URLs: the edge's own (health, metrics, the admin, the schema, the
client's strings) and each app's, which it owns in its ``urls.py``."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView

import config.schema  # noqa: F401  (registers the auth scheme)
from accounts.signin import count_attempt
from config.csp import csp_report
from config.exporter import metrics_view
from config.health import healthz, livez, readyz
from frontend import urls as frontend_urls
from kit.api import login_throttled

handler400 = "kit.http.bad_request"
handler404 = "kit.http.not_found"
handler500 = "kit.http.server_failure"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("livez", livez, name="livez"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics_view, name="metrics"),  # bearer token only (config/exporter.py)
    path("csp-report/", csp_report, name="csp-report"),
    path("api/", include("accounts.urls")),
    path("api/", include("games.urls")),
    path("api/", include("leaderboard.urls")),  # before races': /api/races/quick/
    path("api/", include("races.urls")),
    path("api/", include("clubs.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The admin at ADMIN_PATH; its sign-in form shares the API login's throttles.
    path(f"{settings.ADMIN_PATH}login/", login_throttled(admin.site.login, count_attempt)),
    path(settings.ADMIN_PATH, admin.site.urls),
    # The client's strings in the player's language, and switching it (issue 6).
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("", include(frontend_urls.files)),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("frontend.urls")),
]
if settings.DEBUG:  # sign-in forms for the browsable API
    urlpatterns.append(path("api-auth/", include("rest_framework.urls")))
