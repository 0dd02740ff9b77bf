"""The load path in real Chromium (issue 24, deliverable 6): the pages run from
hashed, immutable static files (the server collected them, as the image does),
in each language; the play page draws its board from the embedded answers and
asks the API for neither the player nor the game; a sign-up refused by the rate
limit says how long to wait."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.browser import api, sign_up

HASHED = re.compile(r"/static/.+\.[0-9a-f]{12}\.(js|css)$")
WON = {"en": "Won", "id": "Menang", "bg": "Победи", "tr": "Kazanıldı"}


def record(page: Any) -> tuple[list[Any], list[str]]:
    """The page's responses, and its console errors, from now on."""
    responses: list[Any] = []
    errors: list[str] = []
    page.on("response", lambda r: responses.append(r))  # noqa: PLW0108 (a bound method: refused)
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    return responses, errors


@pytest.mark.parametrize("language", ["en", "id", "bg", "tr"])
def test_the_lobby_runs_from_hashed_immutable_files_in_each_language(new_page, language):
    # The network's load path: the app's service worker (tests/system/browser/test_webapp.py)
    # left out, its install fetching the shell files beside the page (a clean-clone CI run
    # saw one file twice), and the first load settled before the one measured.
    page = new_page(width=390, height=844, service_workers="block")
    responses, errors = record(page)
    page.goto("/")
    page.wait_for_load_state("networkidle")
    # Into the browser's cookie store, awaited: a cookie written by document.cookie
    # reaches the network side of Chromium on its own time, and a reload at once
    # went out without it now and then (a clean-clone CI run saw 'en' for 'bg').
    page.context.add_cookies([{"name": "django_language", "value": language, "url": page.url}])
    responses.clear()
    page.reload()
    page.wait_for_selector("#deals[aria-busy=false]")
    assert page.evaluate("document.documentElement.lang") == language
    # The client's strings arrived: the catalogue's, or English without one.
    assert page.evaluate("gettext('Won')") == WON[language]
    static = [r for r in responses if "/static/" in r.url]
    assert static, "no static file loaded"
    for response in static:
        assert HASHED.search(response.url), response.url
        assert response.status == 200, response.url
        assert "immutable" in response.headers.get("cache-control", ""), response.url
    built = [r for r in responses if re.search(r"/(css|js|jsi18n)/", r.url)]
    assert len([r for r in built if "/css/" in r.url]) == 1
    assert len([r for r in built if re.search(r"/js/header~lobby\.", r.url)]) == 1
    assert len([r for r in built if "/jsi18n/" in r.url]) == (0 if language == "en" else 1)
    for response in built:
        assert response.status == 200 and "immutable" in response.headers["cache-control"]
    # The modules came joined in one file: none was found late through another's
    # import (each URL fetched once, none a 404).
    urls = [r.url for r in responses]
    assert len(urls) == len(set(urls)), urls
    assert not errors, errors


def test_the_play_page_draws_from_the_embedded_game_and_opens_its_socket(new_page):
    page = new_page(width=390, height=844)
    sign_up(page)
    game = api(page, "POST", "/api/games/", {"random": "SH1-C4"})
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.goto(f"/play/{game['id']}/")
    page.wait_for_selector("#board [data-card]")
    page.wait_for_selector("#connection[data-state=open]")
    # One socket: early.js's, adopted by the feed (or, had the page's modules run
    # first, the feed's own, and early.js then opens none).
    assert [re.sub(r"^wss?://[^/]+", "", url) for url in sockets] == [f"/ws/games/{game['id']}/"]
    assert page.evaluate("window.earlySocket") is False
    assert page.inner_text("#moves") == "0"
    paths = [re.sub(r"^https?://[^/]+", "", url) for url in requested]
    # The player and the game came with the page: no round trip of their own.
    assert "/api/auth/me/" not in paths and f"/api/games/{game['id']}/" not in paths, paths
    assert not errors, errors


def test_another_players_game_page_still_gets_the_apis_answer(new_page):
    """Nothing is embedded of someone else's game: the client asks the API, which
    answers not_yours, and the page goes to watching it as before."""
    owner = new_page()
    sign_up(owner)
    game = api(owner, "POST", "/api/games/", {"random": "EH1-N"})
    other = new_page()
    sign_up(other)
    other.goto(f"/play/{game['id']}/")
    other.wait_for_url(re.compile(rf"/watch/{game['id']}/$"))


def test_a_throttled_sign_up_says_how_long_to_wait(new_page):
    page = new_page()
    page.goto("/signup/")
    said = page.evaluate(
        """async () => {
            const { describeRefusal } = await import("/static/frontend/js/reasons.js");
            const error = (wait) => ({ code: "throttled", message: "x",
                                       params: { wait, scope: "register" } });
            return [describeRefusal(error(2520), ""), describeRefusal(error(30), ""),
                    describeRefusal({ code: "throttled", message: "x" }, "")];
        }"""
    )
    assert said[0] == "Too many sign-ups from your address: try again in 42 minutes."
    assert said[1] == "Too many sign-ups from your address: try again in 30 seconds."
    assert said[2] == "Too many requests; wait a moment and try again."
