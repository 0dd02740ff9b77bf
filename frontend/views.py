"""Page shells. Each view renders a template and nothing more: the data comes
from the JSON API and the websockets, fetched by the page's ES module, so the
client holds no rule (STYLE.md, front end). A page embeds the API's first
answers its modules ask for (``prefill``: frontend/loading.py), so they need no
round trip of their own."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from pathlib import Path
from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import Resolver404, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language, gettext
from django.views.decorators.csrf import ensure_csrf_cookie

from accounts.api import account_of, guest_of
from clubs.models import Club
from games.dailies import utc_today
from games.engine import ALL_VARIANTS, EngineError, parse_variant
from kit.api import parse_month
from kit.http import ApiError
from leaderboard.selectors import player_get, replays_open_to

from .catalogue import games_catalogue, games_named
from .loading import (
    STYLESHEET,
    Catalogue,
    _api_answer,
    api_prefill,
    css_bundle,
    js_catalogue,
    module_bundle,
)
from .social import day_card, day_image, result_card, result_figures, result_image

IMMUTABLE = "max-age=315360000, public, immutable"  # as WhiteNoise's for hashed names


def _page(
    request: HttpRequest, template: str, page: str, prefill: tuple[str, ...] = (), **context: object
) -> HttpResponse:
    """The page, with the API's answers to ``GET`` of each of ``prefill`` (and of
    ``/api/auth/me/``, which every page's settings read) for this request.
    ``account``: the account signed in; a guest (issue 24) plays, but has none."""
    context = {
        "page": page,
        "games": games_catalogue(),
        "account": account_of(request.user),
        "guest": guest_of(request.user),
        "api_prefill": api_prefill(request, ["/api/auth/me/", *prefill]),
        **context,
    }
    return render(request, f"frontend/{template}", context)


def _built_file(request: HttpRequest, built: Catalogue, version: str, kind: str) -> HttpResponse:
    """A file built in-process, gzipped if the browser takes it. Under its current
    version cached for good (a new release's file has another); an old version's
    URL (a page from before a release) gets today's, briefly cached."""
    zipped = "gzip" in request.headers.get("Accept-Encoding", "")
    response = HttpResponse(built.gzipped if zipped else built.body, content_type=kind)
    if zipped:
        response["Content-Encoding"] = "gzip"
    response["Vary"] = "Accept-Encoding"
    fresh = version == built.version and not settings.DEBUG
    response["Cache-Control"] = IMMUTABLE if fresh else "max-age=60, public"
    return response


def js_catalogue_file(request: HttpRequest, language: str, version: str) -> HttpResponse:
    """The client's strings in ``language`` (Django's JavaScript catalogue), built
    once per process."""
    if language not in dict(settings.LANGUAGES):
        raise Http404("No such language.")
    return _built_file(request, js_catalogue(language), version, "text/javascript; charset=utf-8")


def js_bundle_file(request: HttpRequest, names: str, version: str) -> HttpResponse:
    """The ES modules ``frontend/js/<name>.js`` of ``names`` (``~`` between them)
    and all they import, joined into one module (frontend/loading.py)."""
    listed = tuple(f"frontend/js/{name}.js" for name in names.split("~"))
    if len(listed) > 10 or not all(STYLESHEET.fullmatch(name) for name in names.split("~")):
        raise Http404("No such modules.")
    try:
        built = module_bundle(listed)
    except ValueError:
        built = None
    if built is None:
        raise Http404("No such modules.")
    return _built_file(request, built, version, "text/javascript; charset=utf-8")


def css_bundle_file(request: HttpRequest, names: str, version: str) -> HttpResponse:
    """The stylesheets ``frontend/css/<name>.css`` of ``names`` (``~`` between
    them), joined in that order: a page's, as base.html links them."""
    listed = tuple(names.split("~"))
    if len(listed) > 30 or len(set(listed)) != len(listed):
        raise Http404("No such stylesheets.")
    try:
        built = css_bundle(listed)
    except ValueError:
        raise Http404("No such stylesheets.") from None
    return _built_file(request, built, version, "text/css; charset=utf-8")


def _to_login(request: HttpRequest) -> HttpResponse:
    query = urlencode({"next": request.get_full_path()})
    return redirect(f"{reverse('frontend:login')}?{query}")


def _next_url(request: HttpRequest) -> str:
    """Where to go after signing in: a path on this site only."""
    target = request.GET.get("next", "")
    if target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse("frontend:lobby")


@ensure_csrf_cookie
def lobby(request: HttpRequest) -> HttpResponse:
    today = utc_today()
    return _page(
        request,
        "lobby.html",
        "lobby",
        prefill=("/api/daily/",),
        variants=ALL_VARIANTS,
        today=today.isoformat(),
        yesterday=(today - dt.timedelta(days=1)).isoformat(),
    )


@ensure_csrf_cookie
def signup(request: HttpRequest) -> HttpResponse:
    # A guest signs up from here too: its games come along (issue 24).
    if account_of(request.user):
        return redirect(_next_url(request))
    return _page(request, "auth.html", "signup", mode="signup", next_url=_next_url(request))


@ensure_csrf_cookie
def login(request: HttpRequest) -> HttpResponse:
    if account_of(request.user):
        return redirect(_next_url(request))
    return _page(request, "auth.html", "login", mode="login", next_url=_next_url(request))


@ensure_csrf_cookie
def play(request: HttpRequest, attempt_id: int) -> HttpResponse:
    if not request.user.is_authenticated:  # an account or a guest (issue 24)
        return _to_login(request)
    return _page(
        request,
        "play.html",
        "play",
        prefill=(f"/api/games/{attempt_id}/",),
        attempt_id=attempt_id,
        variants=ALL_VARIANTS,
    )


@ensure_csrf_cookie
def watch(request: HttpRequest, attempt_id: int) -> HttpResponse:
    # Open to a signed-out visitor: the page makes a guest for the game socket,
    # which needs a player (issue 39), as Play does.
    return _page(request, "watch.html", "watch", attempt_id=attempt_id)


@ensure_csrf_cookie
def replay(request: HttpRequest, attempt_id: int) -> HttpResponse:
    # Likewise: every /api/games/ endpoint needs a player, a guest made by the page.
    return _page(request, "replay.html", "replay", attempt_id=attempt_id)


@ensure_csrf_cookie
def live(request: HttpRequest) -> HttpResponse:
    return _page(request, "live.html", "live")


def leaderboard_today(request: HttpRequest) -> HttpResponse:
    return redirect("frontend:leaderboard", date=utc_today().isoformat(), variant=ALL_VARIANTS[0])


@ensure_csrf_cookie
def leaderboard(request: HttpRequest, date: str, variant: str) -> HttpResponse:
    try:
        day = dt.date.fromisoformat(date)
        canonical = parse_variant(variant).id
    except (ValueError, EngineError):
        raise Http404("No such leaderboard.") from None
    if canonical != variant or day.isoformat() != date:
        return redirect("frontend:leaderboard", date=day.isoformat(), variant=canonical)
    return _page(
        request,
        "leaderboard.html",
        "leaderboard",
        date=date,
        variant=canonical,
        variants=ALL_VARIANTS,
        today=utc_today().isoformat(),
    )


def clubs(request: HttpRequest) -> HttpResponse:
    """``/clubs/``: my clubs, make one, join one by its code (issue 29)."""
    if account_of(request.user) is None:
        return _to_login(request)
    return _page(request, "clubs.html", "clubs", prefill=("/api/clubs/",))


def club_join(request: HttpRequest, code: str) -> HttpResponse:
    """``/clubs/join/<code>/``: an invite link; joining is a button (a POST)."""
    if account_of(request.user) is None:
        return _to_login(request)
    return _page(request, "clubs.html", "clubs", prefill=("/api/clubs/",), code=code[:32])


def club(request: HttpRequest, slug: str) -> HttpResponse:
    """``/clubs/<slug>/``: a club's day and week, live (its members only; others
    see its name). Its data come from the API."""
    if not Club.objects.filter(slug=slug).exists():
        raise Http404("No such club.")
    return _page(
        request,
        "club.html",
        "club",
        slug=slug,
        today=utc_today().isoformat(),
        variants=ALL_VARIANTS,
    )


def _published_day(date: str) -> dt.date:
    """The day ``date`` names (YYYY-MM-DD, as written), if its deals are published."""
    try:
        day = dt.date.fromisoformat(date)
    except ValueError:
        raise Http404("No such day.") from None
    if day.isoformat() != date or day > utc_today():
        raise Http404("No such day, or it has not come yet.")
    return day


def daily_today(request: HttpRequest) -> HttpResponse:
    return redirect("frontend:daily", date=utc_today().isoformat())


@ensure_csrf_cookie
def daily(request: HttpRequest, date: str) -> HttpResponse:
    """One day's daily deals (PRODUCT.md, "Fair daily deals"): while the day runs
    their commitments and par; once it is over their codes and proofs, with the
    commands that check them. The page is open to anyone, as its API is."""
    try:
        day = dt.date.fromisoformat(date)
    except ValueError:
        raise Http404("No such day.") from None
    if day.isoformat() != date:
        return redirect("frontend:daily", date=day.isoformat())
    today = utc_today()
    if day > today:  # not published yet: nothing to show
        raise Http404("That day has not come yet.")
    one = dt.timedelta(days=1)
    return _page(
        request,
        "daily.html",
        "daily",
        card=day_card(day),
        card_image=request.build_absolute_uri(reverse("frontend:day-card-image", args=[date])),
        card_url=request.build_absolute_uri(request.path),
        date=date,
        today=today.isoformat(),
        previous=(day - one).isoformat() if day > dt.date.min else None,
        next=(day + one).isoformat() if day < today else None,
        over=day < today,
        variants=ALL_VARIANTS,
    )


@ensure_csrf_cookie
def archive(request: HttpRequest) -> HttpResponse:
    """The calendar of past days (issue 15): the signed-in player's played and won
    marks on each, from the calendar API; signed out, the days without marks. A
    malformed ``?month=`` is no page; a month out of range is the API's to say."""
    raw = request.GET.get("month")
    try:
        month = parse_month(raw) if raw is not None else utc_today().replace(day=1)
    except ApiError:
        raise Http404("No such month.") from None
    return _page(request, "archive.html", "archive", month=f"{month.year:04d}-{month.month:02d}")


@ensure_csrf_cookie
def player(request: HttpRequest, username: str) -> HttpResponse:
    # An unknown name is a 404 page that says so, not an empty table.
    if player_get(username=username) is None:
        response = _page(request, "player.html", "player", username=username, missing=True)
        response.status_code = 404
        return response
    return _page(request, "player.html", "player", username=username)


@ensure_csrf_cookie
def rules(request: HttpRequest) -> HttpResponse:
    # The translated page if there is one (frontend/rules_<lang>.html), else English.
    lang = (get_language() or "en").split("-")[0]
    return _page(
        request,
        "rules.html",
        "rules",
        rules_templates=[f"frontend/rules_{lang}.html", "frontend/rules_en.html"],
    )


# The installable app (issue 28): its manifest, its service worker and the page
# the worker shows offline. CSP: the policy's default-src 'self' covers the
# manifest (manifest-src) and the worker (worker-src): nothing to add.

THEME_COLOR = "#17202e"  # theme.css --header (light): the bar above the page
BACKGROUND_COLOR = "#f4f5f7"  # theme.css --bg (light): the splash screen
ICONS = (
    ("frontend/icons/icon-192.png", "192x192", "any"),
    ("frontend/icons/icon-512.png", "512x512", "any"),
    ("frontend/icons/maskable-512.png", "512x512", "maskable"),
)
SERVICE_WORKER = Path(__file__).resolve().parent / "static" / "frontend" / "sw.js"
# The files a page loads, as base.html links them: what the worker keeps.
_PAGE_FILE = re.compile(r'(?:href|src)="(/(?:css|js|jsi18n|static)/[^"?#]+)"')


def manifest(request: HttpRequest) -> HttpResponse:
    """``/manifest.webmanifest``: what a browser needs to install the site as an
    app (the Web App Manifest), in the page's language."""
    body = {
        "name": gettext("Patience Daily"),
        "short_name": gettext("Patience"),
        "description": gettext("The daily deals of %(games)s, against everyone.")
        % {"games": games_named()},
        "id": "/",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOR,
        "background_color": BACKGROUND_COLOR,
        "lang": get_language() or settings.LANGUAGE_CODE,
        "icons": [
            {"src": static(path), "sizes": sizes, "type": "image/png", "purpose": purpose}
            for path, sizes, purpose in ICONS
        ],
    }
    response = JsonResponse(body, content_type="application/manifest+json")
    response["Cache-Control"] = "max-age=3600, public"
    response["Vary"] = "Cookie, Accept-Language"
    return response


def offline(request: HttpRequest) -> HttpResponse:
    """The page the service worker shows when a page cannot be reached. It is
    kept in the browser's cache, so it is drawn for nobody: no account, no
    prefill, no game."""
    context = {"page": "offline", "account": None, "guest": None, "games": None}
    return render(request, "frontend/offline.html", context)


def shell(request: HttpRequest) -> list[str]:
    """What the service worker keeps at install: the offline page, the files it
    loads (this release's bundles) and the icons."""
    page = offline(request).content.decode()
    files = dict.fromkeys(["/offline/", *_PAGE_FILE.findall(page)])
    files.update(dict.fromkeys(static(path) for path, _, _ in ICONS))
    return list(files)


def service_worker(request: HttpRequest) -> HttpResponse:
    """``/sw.js``: ``frontend/static/frontend/sw.js`` with this release's shell
    and version in front. Served from the root, so its scope is the whole site;
    never cached long, so a release reaches the browser on its next visit."""
    files = shell(request)
    source = SERVICE_WORKER.read_text()
    version = hashlib.sha256(json.dumps([files, source]).encode()).hexdigest()[:16]
    body = f"const SHELL = {json.dumps(files)};\nconst VERSION = {json.dumps(version)};\n{source}"
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response


def day_card_image(request: HttpRequest, date: str) -> HttpResponse:
    """``/og/<date>.png``: the image of a day's link preview (frontend/social.py),
    drawn from the day's public figures only; 404 for what is no published day."""
    day = _published_day(date)
    response = HttpResponse(day_image(day), content_type="image/png")
    running = day >= utc_today()
    response["Cache-Control"] = "max-age=300, public" if running else "max-age=86400, public"
    return response


def _shown_result(attempt_id: int) -> dict[str, object]:
    figures = result_figures(attempt_id)
    if figures is None:  # no board shows it: nothing to share
        raise Http404("No such result on a leaderboard.")
    return figures


@ensure_csrf_cookie
def result(request: HttpRequest, attempt_id: int) -> HttpResponse:
    """``/r/<game id>/``: a player's counted daily result, shared (issue 28): the
    board's line of it, linking to the day, the board and (when the replay rule
    allows this viewer) the replay; its link preview's cards and image show the
    same line. Nothing of the deal (frontend/social.py). Open to anyone."""
    figures = _shown_result(attempt_id)
    return _page(
        request,
        "result.html",
        "result",
        result=figures,
        card=result_card(figures),
        card_image=request.build_absolute_uri(
            reverse("frontend:result-card-image", args=[attempt_id])
        ),
        card_url=request.build_absolute_uri(request.path),
        replay_open=replays_open_to(viewer=request.user, attempt_id=attempt_id),
    )


def result_card_image(request: HttpRequest, attempt_id: int) -> HttpResponse:
    """``/og/r/<game id>.png``: the image of a shared result's link preview, from
    the board's figures of it only; 404 for a result no board shows. Its ETag is
    the hash of what it draws: a preview fetched again is a 304 until the rank
    (or anything drawn) changes."""
    figures = _shown_result(attempt_id)
    image, etag = result_image(figures)
    running = str(figures["date"]) >= utc_today().isoformat()
    if etag in [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]:
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(image, content_type="image/png")
    response["ETag"] = etag
    response["Cache-Control"] = "max-age=300, public" if running else "max-age=86400, public"
    response["Vary"] = "Cookie, Accept-Language"
    return response


# Keeping an account (issue 28): the pages the account mails link to.


@ensure_csrf_cookie
def password_reset(request: HttpRequest) -> HttpResponse:
    """Ask for a reset link; opened from the mail (``uid`` and ``token``), choose
    the new password. The token is not checked here: the API says if it is bad."""
    has_link = "uid" in request.GET and "token" in request.GET
    mode = "reset-confirm" if has_link else "reset-request"
    response = _page(request, "account.html", "account", mode=mode)
    response["Referrer-Policy"] = "no-referrer"  # the token leaves with no link followed
    return response


@ensure_csrf_cookie
def email_verify(request: HttpRequest) -> HttpResponse:
    response = _page(request, "account.html", "account", mode="verify")
    response["Referrer-Policy"] = "no-referrer"
    return response


@ensure_csrf_cookie
def account_secure(request: HttpRequest) -> HttpResponse:
    """A notice's "this wasn't me" link (issue 37): a button that secures the
    account (a link checker that opens the link changes nothing), then the
    new password is chosen on the reset page."""
    response = _page(request, "account.html", "account", mode="secure")
    response["Referrer-Policy"] = "no-referrer"
    return response


@ensure_csrf_cookie
def reminders_off(request: HttpRequest) -> HttpResponse:
    """The reminder mail's link: a button that stops the mail reminders (a link
    checker that opens the link changes nothing; the mail's one-click header
    posts to the API itself)."""
    response = _page(request, "account.html", "account", mode="reminders-off")
    response["Referrer-Policy"] = "no-referrer"
    return response


@ensure_csrf_cookie
def privacy(request: HttpRequest) -> HttpResponse:
    """What we store, why, how long, and how to take it or delete it (issue 28);
    the retention periods are the settings in force."""
    return _page(
        request,
        "privacy.html",
        "privacy",
        address_days=settings.ADDRESS_RETENTION_DAYS,
        guest_days=settings.GUEST_IDLE_DAYS,
        link_days=settings.FAIRPLAY_LINK_DAYS,
        held_days=settings.DELETED_NAME_HOLD_DAYS,
    )


# Race rooms (issue 29): one link, /race/<id>/, for the room, the race and its end.

RACE_ID = re.compile(r"[a-z0-9]{1,16}")  # as races/urls.py's converter


def _race_of(request: HttpRequest, path: str) -> dict[str, object] | None:
    """The race JSON ``GET path`` answers to this request's user (None: no such
    race, or the API does not answer it)."""
    try:
        body = _api_answer(request, path)
    except Resolver404:  # no race API mounted
        return None
    return json.loads(body) if body is not None else None


@ensure_csrf_cookie
def race(request: HttpRequest, race_id: str) -> HttpResponse:
    """A race room. A racer of a race that has started gets the play page's board
    for their own attempt (play.html, with the rivals' progress strip); everyone
    else — before the start, spectators, anyone signed out — the room page
    (racers, link, invite, start; the progress of all; the standings)."""
    if not RACE_ID.fullmatch(race_id):
        raise Http404("No such race.")
    path = f"/api/races/{race_id}/"
    found = _race_of(request, path)
    you = found.get("you") if found else None
    attempt = you.get("attempt") if isinstance(you, dict) else None
    if found and attempt and you.get("racer") and found.get("status") != "open":
        return _page(
            request,
            "race_play.html",
            "play",  # the game page's layout (game.css, board.css, phone.css)
            prefill=(f"/api/games/{attempt}/", path),
            attempt_id=attempt,
            race_id=race_id,
            variants=ALL_VARIANTS,
        )
    return _page(request, "race.html", "race", prefill=(path,) if found else (), race_id=race_id)
