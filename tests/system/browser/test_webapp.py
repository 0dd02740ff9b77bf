"""The installable app in real Chromium (issue 28, deliverable 3): Chromium
finds the site installable (its own check, over the DevTools protocol), the
service worker takes control under the Content-Security-Policy, and after a
signed-in player's visits — the lobby, a daily's page, a game played — its
caches hold the page shell and not one /api/ answer or page; offline, a page
is the offline page, and nothing of the game."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from tests.support.browser import WIN_CODE, api, screenshot, sign_up, start_practice

VIOLATIONS = """
window.cspSeen = [];
document.addEventListener("securitypolicyviolation", (e) =>
    window.cspSeen.push(`${e.effectiveDirective} ${e.blockedURI}`));
"""

CONTROLLED = "() => navigator.serviceWorker.controller !== null"

CACHED = """async () => {
    const found = {};
    for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        found[name] = (await cache.keys()).map((request) => request.url);
    }
    return found;
}"""


def watched(page: Any) -> list[str]:
    errors: list[str] = []
    page.add_init_script(VIOLATIONS)
    page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
    return errors


def controlled(page: Any) -> None:
    """Wait until the worker is active, then until it controls this page."""
    page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    if not page.evaluate(CONTROLLED):
        page.reload()
    page.wait_for_function(CONTROLLED)


def test_chromium_finds_the_site_installable(new_page):
    page = new_page()
    errors = watched(page)
    page.goto("/")
    controlled(page)
    cdp = page.context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"].endswith("/manifest.webmanifest") and not manifest["errors"], manifest
    # Chromium's own checks (manifest fields, icons, a worker controlling the
    # page, …); a Playwright context is incognito, which alone forbids installing.
    found = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [error["errorId"] for error in found] == ["in-incognito"], found
    assert page.evaluate("() => window.cspSeen") == [] and errors == []


def test_the_worker_keeps_the_shell_and_never_an_api_answer(new_page, site):
    page = new_page()
    errors = watched(page)
    name = sign_up(page)
    controlled(page)
    # A signed-in player's visits, each of which asks the API for game state.
    page.goto("/daily/")
    page.wait_for_load_state("networkidle")
    attempt = start_practice(page, WIN_CODE)
    page.wait_for_selector(".card[data-card]")
    api(page, "GET", f"/api/games/{attempt}/")
    page.goto("/leaderboard/")
    page.wait_for_load_state("networkidle")

    cached = page.evaluate(CACHED)
    assert list(cached) and all(key.startswith("shell-") for key in cached), cached
    paths = [urlparse(url).path for urls in cached.values() for url in urls]
    assert "/offline/" in paths
    assert any(path.startswith("/css/") for path in paths), paths
    leaked = [
        path
        for path in paths
        if path.startswith(("/api/", "/ws/"))
        or not path.startswith(("/css/", "/js/", "/jsi18n/", "/static/", "/offline/"))
    ]
    assert leaked == [], leaked
    # Nothing cached names the player or their game.
    for path in paths:
        assert name not in path and str(attempt) not in path.split("/")[1:3], path

    # Offline: a page is the offline page; the game's page is not replayed from a cache.
    page.context.set_offline(True)
    page.goto(f"/play/{attempt}/")
    page.wait_for_selector("#offline")
    assert page.locator(".card[data-card]").count() == 0
    assert name not in page.content()
    screenshot(page, "webapp-offline")
    page.context.set_offline(False)
    page.goto("/")
    page.wait_for_selector("#deals[aria-busy=false]")
    assert page.evaluate("() => window.cspSeen") == [] and errors == []
