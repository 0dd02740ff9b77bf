"""The Content-Security-Policy (issue 17): on every HTML response, strict (our own
files only, no inline script or style, nothing framed), and every page's HTML
has nothing the policy would block. The report endpoint takes browsers'
reports (CSRF-exempt, limited), logs them and answers 204. The browser side —
every page working under the policy — is tests/system/browser/test_csp.py."""

from __future__ import annotations

import datetime as dt
import json
import logging
import subprocess
import sys
from base64 import b64encode
from hashlib import sha256
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client as DjangoClient

from deploy.processes import server_env
from frontend import urls as frontend_urls
from tests.support.api import assert_error, requires_redis, throttle_rates
from tests.support.results import daily_of, finished, user_of

ROOT = Path(__file__).resolve().parents[2]
REPORT = "/csp-report/"
A_REPORT = {
    "csp-report": {
        "document-uri": "http://127.0.0.1/play/1/",
        "violated-directive": "script-src-elem",
        "effective-directive": "script-src-elem",
        "blocked-uri": "inline",
        "original-policy": "default-src 'self'",
    }
}


EXECUTABLE = {"text/javascript", "application/javascript", "module"}


class InlineFinder(HTMLParser):
    """What a strict policy blocks in a page's HTML: inline scripts (a script of
    JavaScript without ``src``), style elements, style and event-handler attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        runs = (dict(attrs).get("type") or "text/javascript") in EXECUTABLE
        if (tag == "script" and "src" not in names and runs) or tag == "style":
            self.found.append(f"<{tag}> inline")
        for name, _ in attrs:
            if name == "style" or name.startswith("on"):
                self.found.append(f"<{tag} {name}=…>")


def inline_parts(html: str) -> list[str]:
    finder = InlineFinder()
    finder.feed(html)
    return finder.found


def policy_of(response) -> dict[str, list[str]]:
    header = response.get("Content-Security-Policy", "")
    directives = (part.split() for part in header.split(";") if part.strip())
    return {words[0]: words[1:] for words in directives}


def assert_strict(response) -> None:
    policy = policy_of(response)
    assert policy, "no Content-Security-Policy header"
    for directive in ("default-src", "script-src", "style-src", "connect-src"):
        assert policy[directive] == ["'self'"], (directive, policy)
    assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
    assert policy["report-uri"] == [REPORT]
    assert not any("unsafe" in source for sources in policy.values() for source in sources)


@pytest.mark.django_db
def test_every_page_has_the_policy_and_nothing_it_blocks(make_player, django_user_model):
    player = make_player()
    started = player.send("/api/games/", {"code": "SH1-C4-AAAAAJ2"}).json()["id"]
    player.send(f"/api/games/{started}/resign/")
    today = dt.datetime.now(dt.UTC).date()
    paths = {
        "lobby": "/",
        "signup": "/signup/",
        "login": "/login/",
        "play": f"/play/{started}/",
        "watch": f"/watch/{started}/",
        "replay": f"/replay/{started}/",
        "live": "/live/",
        "leaderboard-today": "/leaderboard/",
        "leaderboard": f"/leaderboard/{today}/SH1-C4/",
        "daily-today": "/daily/",
        "daily": f"/daily/{today - dt.timedelta(days=1)}/",
        "archive": "/archive/",
        "player": f"/players/{player.username}/",
        "rules": "/rules/",
        "offline": "/offline/",
        "password-reset": "/account/reset/?uid=MQ&token=x",
        "email-verify": "/account/verify/?token=x",
        "account-secure": "/account/secure/?token=x",
        "reminders-off": "/account/reminders/off/?token=x",
        "privacy": "/privacy/",
        "result": f"/r/{finished(user_of(player), daily_of(days_ago=1)).pk}/",
        "race": "/race/abcdefghij/",  # no such race: the room page says so
        # Issue 29.
        "clubs": "/clubs/",
        "club-join": "/clubs/join/abcdefgh12345678/",
        "club": "/clubs/{club}/",
    }
    paths["club"] = paths["club"].format(
        club=player.send("/api/clubs/", {"name": "Policy club"}).json()["slug"]
    )
    # PNGs: tests/frontend/test_webapp_cards.py, tests/frontend/test_result_share.py
    not_pages = {"day-card-image", "result-card-image"}
    # A page added to the site without a line here fails this test.
    assert set(paths) | not_pages == {p.name for p in frontend_urls.urlpatterns}
    django_user_model.objects.create_superuser("boss", password="boss-password-1")
    staff = DjangoClient()
    staff.login(username="boss", password="boss-password-1")
    admin = f"/{settings.ADMIN_PATH}"
    signed_out = ("signup", "login")  # signed in, these send you to the lobby
    pages = [
        (DjangoClient() if name in signed_out else player, path) for name, path in paths.items()
    ]
    pages += [
        (DjangoClient(), "/"),
        (DjangoClient(), "/no-such-page/"),  # the 404 page
        (DjangoClient(), f"{admin}login/"),
        (staff, admin),
        (staff, f"{admin}games/attempt/"),
        (staff, f"{admin}games/attempt/{started}/change/"),
        (staff, f"{admin}accounts/user/"),
    ]
    for client, path in pages:
        response = client.get(path, follow=True)  # /leaderboard/: to today's board
        assert response.status_code in (200, 404), (path, response.status_code)
        assert response["Content-Type"].startswith("text/html"), path
        assert_strict(response)
        assert inline_parts(response.content.decode()) == [], path


def test_the_finder_finds_what_the_policy_blocks():
    html = (
        '<script>alert(1)</script><script type="module" src="/a.js"></script>'
        '<script type="module">import("/b.js")</script>'
        '<script type="application/json">{}</script><style>p{}</style>'
        '<p style="color:red" onclick="x()">'
    )
    assert inline_parts(html) == [
        "<script> inline",
        "<script> inline",
        "<style> inline",
        "<p style=…>",
        "<p onclick=…>",
    ]


@pytest.mark.django_db
def test_api_answers_carry_the_policy_too(anon):
    assert_strict(anon.get("/api/auth/me/"))


def test_a_report_is_logged_and_answered_204_without_csrf(caplog):
    browser = DjangoClient(enforce_csrf_checks=True)  # no cookie, no token: as browsers send
    with caplog.at_level(logging.WARNING, logger="csp"):
        response = browser.post(REPORT, json.dumps(A_REPORT), content_type="application/csp-report")
    assert response.status_code == 204
    (record,) = [r for r in caplog.records if r.name == "csp"]
    assert "script-src-elem" in record.getMessage() and "/play/1/" in record.getMessage()
    assert "original-policy" not in record.getMessage()


def test_a_reporting_api_report_is_taken_too(caplog):
    body = [{"type": "csp-violation", "body": {"documentURL": "http://x/", "blockedURL": "eval"}}]
    with caplog.at_level(logging.WARNING, logger="csp"):
        response = DjangoClient().post(
            REPORT, json.dumps(body), content_type="application/reports+json"
        )
    assert response.status_code == 204
    assert "blocked-uri='eval'" in caplog.text


@pytest.mark.parametrize(
    "body",
    [b"not json", b"[]", b"{}", b'{"csp-report": 3}', b"\xff\xfe", b"[" * 5000],
    ids=["text", "empty-list", "empty-object", "not-an-object", "not-utf8", "deep"],
)
def test_a_malformed_report_is_a_400(body):
    response = DjangoClient().post(REPORT, body, content_type="application/csp-report")
    assert_error(response, 400, "bad_report")


def test_only_post_and_only_64_kib():
    assert_error(DjangoClient().get(REPORT), 405, "method_not_allowed")
    big = json.dumps({"csp-report": {"blocked-uri": "x" * 70_000}})
    response = DjangoClient().post(REPORT, big, content_type="application/csp-report")
    assert_error(response, 413, "too_large")


@requires_redis
def test_reports_are_limited_per_address(settings):
    throttle_rates(settings, **{"csp-reports": "3/day"})
    browser = DjangoClient()
    statuses = [
        browser.post(REPORT, json.dumps(A_REPORT), content_type="application/csp-report")
        for _ in range(4)
    ]
    assert [r.status_code for r in statuses] == [204, 204, 204, 429]
    assert_error(statuses[-1], 429, "throttled")


DEBUG_PAGES = """
import json, django
django.setup()
from django.test import Client
from django.conf import settings
pages = {}
for path in ("/api/auth/me/", "/api/daily/", "/api-auth/login/"):
    r = Client(HTTP_HOST="localhost").get(path, HTTP_ACCEPT="text/html")
    pages[path] = [r.status_code, r["Content-Security-Policy"], r.content.decode()]
print(json.dumps(pages))
"""


class StyleAttributes(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.values: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.values += [value or "" for name, value in attrs if name == "style"]


def test_the_browsable_api_of_debug_runs_works_under_the_policy(tmp_path):
    """Debug runs serve DRF's browsable API: no inline script or style element, and
    each of its style attributes allowed by its hash (and nothing more)."""
    env = {**server_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", None), "DEBUG": "1"}
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True
    )
    done = subprocess.run(
        [sys.executable, "-c", DEBUG_PAGES],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    pages = json.loads(done.stdout.strip().splitlines()[-1])
    for path, (status, header, html) in pages.items():
        assert status == 200 and "<html" in html, path
        style_src = next(p.split()[1:] for p in header.split(";") if p.split()[0] == "style-src")
        assert "'unsafe-inline'" not in style_src
        assert [p for p in inline_parts(html) if "style=" not in p] == [], path
        finder = StyleAttributes()
        finder.feed(html)
        for value in finder.values:
            digest = b64encode(sha256(value.encode()).digest()).decode()
            assert f"'sha256-{digest}'" in style_src, (path, value)
