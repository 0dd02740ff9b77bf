"""The installable app (issue 28, deliverable 3), through Django's test client:
the manifest, its icons, the service worker and the offline page it keeps —
and what the worker must never keep (an /api/ answer, a page, anything of a
game or an account)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from PIL import Image

from tests.support.api import Client

ROOT = Path(__file__).resolve().parents[2]
WORKER = ROOT / "frontend" / "static" / "frontend" / "sw.js"


@pytest.mark.django_db
def test_the_manifest_makes_the_site_installable(anon):
    response = anon.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["name"] == "Patience Daily" and manifest["short_name"]
    assert (manifest["start_url"], manifest["scope"], manifest["display"]) == (
        "/",
        "/",
        "standalone",
    )
    # The header's colour and the page's background (theme.css, light).
    assert manifest["theme_color"] == "#17202e" and manifest["background_color"] == "#f4f5f7"
    theme = (ROOT / "frontend" / "static" / "frontend" / "css" / "theme.css").read_text()
    assert "--header: light-dark(#17202e," in theme and "--bg: light-dark(#f4f5f7," in theme
    icons = {(icon["sizes"], icon["purpose"]): icon for icon in manifest["icons"]}
    assert set(icons) == {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    for (sizes, _), icon in icons.items():
        assert icon["type"] == "image/png"
        served = anon.get(icon["src"])
        assert served.status_code == 200, icon
        width, height = map(int, sizes.split("x"))
        with Image.open(finders.find(icon["src"].removeprefix("/static/"))) as image:
            assert image.format == "PNG" and image.size == (width, height), icon


@pytest.mark.django_db
def test_the_manifest_speaks_the_pages_language(anon):
    anon.cookies["django_language"] = "id"
    manifest = json.loads(anon.get("/manifest.webmanifest").content)
    assert manifest["lang"] == "id"


def test_a_maskable_icon_keeps_its_mark_inside_the_safe_circle():
    """Platforms crop a maskable icon to a circle of 80 % of its side: the mark
    (anything not the background) lies inside it, and the background fills
    the square to its corners."""
    with Image.open(finders.find("frontend/icons/maskable-512.png")) as image:
        pixels = image.convert("RGB")
        background = pixels.getpixel((0, 0))
        assert pixels.getpixel((511, 511)) == background
        for x in range(0, 512, 4):
            for y in range(0, 512, 4):
                if pixels.getpixel((x, y)) != background:
                    assert (x - 256) ** 2 + (y - 256) ** 2 <= (0.4 * 512) ** 2, (x, y)


@pytest.mark.django_db
def test_every_page_links_the_manifest_and_the_theme_colour(anon):
    html = anon.get("/rules/").content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in html
    assert re.search(r'<meta name="theme-color" content="#17202e"', html)


@pytest.mark.django_db
def test_the_service_worker_is_served_from_the_root_fresh(anon):
    response = anon.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["Cache-Control"] == "no-cache"
    body = response.content.decode()
    assert body.endswith(WORKER.read_text())
    shell = json.loads(re.match(r"const SHELL = (.*);\n", body).group(1))
    assert shell[0] == "/offline/"
    assert any(re.match(r"/css/.*\.[0-9a-f]+\.css$", path) for path in shell), shell
    assert not [path for path in shell if path.startswith(("/api/", "/ws/"))], shell
    # Its version follows the shell: the same release, the same version.
    assert anon.get("/sw.js").content.decode() == body


def test_the_worker_never_answers_or_keeps_an_api_request_or_a_page():
    """Read the worker's code: /api/ and /ws/ leave it before anything is kept
    or looked up; a page is the network's (the offline page only when that
    fails); only immutable answers are put in the cache."""
    code = WORKER.read_text()
    never = re.search(r"const NEVER = /(.*)/;", code).group(1)
    assert re.match(never, "/api/games/1/") and re.match(never, "/ws/games/1/")
    assert not re.match(never, "/css/base.1.css")
    handler = code[code.index('self.addEventListener("fetch"') :]
    assert handler.index("NEVER.test(url.pathname)) return;") < handler.index("respondWith")
    shell_files = re.search(r"const SHELL_FILES = /(.*)/;", code).group(1)
    for path in ("/api/games/", "/play/1/", "/daily/2026-12-04/", "/", "/offline/"):
        assert not re.match(shell_files, path), path
    assert code.count("cache.put(") == 1 and "if (keepable(response)) await cache.put(" in code
    assert "/\\bimmutable\\b/" in code
    page = code[code.index("async function page") : code.index('self.addEventListener("fetch"')]
    assert "put(" not in page and "caches.match(OFFLINE)" in page


@pytest.mark.django_db
def test_the_offline_page_holds_nothing_of_the_player_or_a_game(make_player):
    player: Client = make_player()
    response = player.get("/offline/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="offline"' in html
    assert player.username not in html
    assert 'id="api-prefill"' not in html and 'id="games-catalogue"' not in html
    assert 'data-authenticated="0"' in html
