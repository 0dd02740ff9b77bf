"""The pages' load path (issue 24, deliverable 6), through Django's test client
and WhiteNoise: hashed static names cached for good, every imported module
preloaded, the JS catalogue a cached file per language, and the API's first
answers embedded in the page — exactly the API's, for that player only, with no
hidden card."""

from __future__ import annotations

import gzip
import json
import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import override_settings

from tests.support.api import Client, start
from tests.support.hidden import check_hidden, check_view, engine_state

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "frontend" / "static"
# Static imports, read here independently of frontend/loading.py.
IMPORT = re.compile(r"""(?m)^(?:import|export)[^;]*?["'](\.{1,2}/[^"']+\.js)["'];""")


class Head(HTMLParser):
    """The page's module scripts, modulepreloads, classic scripts, stylesheets and
    the embedded #api-prefill."""

    def __init__(self) -> None:
        super().__init__()
        self.modules: list[str] = []
        self.preloads: list[str] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self.prefill: str | None = None
        self._in_prefill = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script" and a.get("type") == "module":
            self.modules.append(a["src"] or "")
        elif tag == "script" and a.get("src"):
            self.scripts.append(a["src"] or "")
        elif tag == "script" and a.get("id") == "api-prefill":
            self._in_prefill = True
            self.prefill = ""
        elif tag == "link" and a.get("rel") == "modulepreload":
            self.preloads.append(a["href"] or "")
        elif tag == "link" and a.get("rel") == "stylesheet":
            self.styles.append(a["href"] or "")

    def handle_data(self, data: str) -> None:
        if self._in_prefill:
            self.prefill = (self.prefill or "") + data

    def handle_endtag(self, tag: str) -> None:
        self._in_prefill = False


def head(response: Any) -> Head:
    assert response.status_code == 200, response.status_code
    parser = Head()
    parser.feed(response.content.decode())
    return parser


def prefill(response: Any) -> dict[str, Any]:
    text = head(response).prefill
    return json.loads(text) if text else {}


def same_answer(embedded: dict[str, Any], fetched: dict[str, Any]) -> None:
    """Equal but for the clock, which runs between the two requests: a game's
    elapsed time may only grow, the day's seconds left only shrink."""
    embedded, fetched = dict(embedded), dict(fetched)
    before, after = embedded.pop("elapsed_ms", None), fetched.pop("elapsed_ms", None)
    left_then, left_now = embedded.pop("seconds_left", None), fetched.pop("seconds_left", None)
    assert embedded == fetched
    if before is not None:
        assert 0 <= after - before < 5000
    if left_then is not None:
        assert 0 <= left_then - left_now <= 5


# --- the embedded first answers -------------------------------------------------------


@pytest.mark.django_db
def test_the_play_page_embeds_the_apis_answers_for_its_player(player):
    game = start(player, random="SH1-C4")
    page = prefill(player.get(f"/play/{game['id']}/"))
    assert set(page) == {"/api/auth/me/", f"/api/games/{game['id']}/"}
    same_answer(page[f"/api/games/{game['id']}/"], player.get(f"/api/games/{game['id']}/").json())
    assert page["/api/auth/me/"] == player.get("/api/auth/me/").json()
    assert page["/api/auth/me/"]["username"] == player.username


@pytest.mark.django_db
def test_the_lobby_embeds_todays_deals_as_the_api_answers_them(player, anon):
    start(player, daily="SH1-C4")
    for client in (player, anon):
        page = prefill(client.get("/"))
        same_answer(page["/api/daily/"], client.get("/api/daily/").json())
        assert page["/api/auth/me/"] == client.get("/api/auth/me/").json()


@pytest.mark.django_db
def test_a_play_page_of_someone_elses_game_embeds_nothing_of_it(make_player):
    owner, attacker = make_player(), make_player()
    game = start(owner, daily="SH1-C4")
    response = attacker.get(f"/play/{game['id']}/")
    page = prefill(response)
    assert set(page) == {"/api/auth/me/"}  # the client asks and gets the API's not_yours
    assert page["/api/auth/me/"]["username"] == attacker.username
    html = response.content.decode()
    view = game["view"]
    for pile in ("t0", "t1", "t2"):
        cards = view["piles"].get(pile) if isinstance(view.get("piles"), dict) else None
        if cards:
            assert json.dumps(cards) not in html
    assert attacker.get(f"/api/games/{game['id']}/").json()["error"]["code"] == "not_yours"


@pytest.mark.django_db
def test_an_easy_harp_dailys_embedded_state_has_no_face_down_card(player):
    game = start(player, daily="EH1-N")
    page = prefill(player.get(f"/play/{game['id']}/"))
    embedded = page[f"/api/games/{game['id']}/"]
    state = engine_state(game["id"])
    assert state.down and any(state.down.values()), "the deal has face-down cards"
    check_view(embedded["view"], state, owner_playing=True, where="embedded")
    check_hidden(page, state, "embedded page data")


# --- modulepreload -------------------------------------------------------------------


def imports_of(path: str) -> set[str]:
    """``frontend/js/x.js`` → the static paths of every module it imports, transitively."""
    seen: set[str] = set()
    todo = [path]
    while todo:
        current = todo.pop()
        for rel in IMPORT.findall((STATIC / current).read_text()):
            target = posixpath.normpath(posixpath.join(posixpath.dirname(current), rel))
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


PAGES = [
    "/",
    "/login/",
    "/signup/",
    "/live/",
    "/leaderboard/2026-01-01/SH1-C4/",
    "/daily/2026-01-01/",
    "/archive/",
    "/rules/",
]


def page_paths(player: Client) -> list[tuple[Client, str]]:
    game = start(player, random="EH1-N")
    paths = [*PAGES, f"/play/{game['id']}/", f"/watch/{game['id']}/", f"/replay/{game['id']}/"]
    paths.append(f"/players/{player.username}/")
    # Signed in, these two send you to the lobby.
    return [(Client() if p in ("/login/", "/signup/") else player, p) for p in paths]


@pytest.mark.django_db
def test_a_pages_modules_come_as_one_file_with_every_module_it_imports(player):
    """Outside debug: one module script (and the game pages' early socket), which
    holds every module the page's entries import, each once, and imports nothing:
    no chain of requests, one round trip."""
    for client, path in page_paths(player):
        parsed = head(client.get(path))
        assert not parsed.preloads, path
        joined = [src for src in parsed.modules if src.startswith("/js/")]
        others = [src for src in parsed.modules if not src.startswith("/js/")]
        assert len(joined) == 1, (path, parsed.modules)
        assert all(src.startswith("/static/frontend/js/early.") for src in others), others
        found = re.fullmatch(r"/js/([a-z0-9~-]+)\.([0-9a-f]{12})\.js", joined[0])
        assert found, joined
        entries = {f"frontend/js/{name}.js" for name in found[1].split("~")}
        assert "frontend/js/header.js" in entries and len(entries) <= 2, path
        response = client.get(joined[0], HTTP_ACCEPT_ENCODING="gzip")
        assert response.status_code == 200 and "immutable" in response["Cache-Control"]
        assert response["Content-Type"].startswith("text/javascript")
        text = gzip.decompress(response.content).decode()
        wanted = entries | set().union(*(imports_of(entry) for entry in entries))
        held = re.findall(r"^// --- (\S+)$", text, re.MULTILINE)
        assert sorted(held) == sorted(wanted), path  # each module once, none missing
        assert not IMPORT.findall(text) and not re.search(r"^\s*export\b", text, re.M), path
        # Each module after everything it imports (the browser's evaluation order).
        for module in held:
            for imported in imports_of(module):
                assert held.index(imported) < held.index(module), (module, imported)


@pytest.mark.django_db
def test_in_debug_every_module_a_page_imports_is_modulepreloaded(player, settings):
    """A debug run (``make run``) serves each module as its own file, as written;
    every module an entry imports is then linked with a modulepreload."""
    settings.DEBUG = True
    for client, path in page_paths(player):
        parsed = head(client.get(path))
        entries = {src.removeprefix("/static/") for src in parsed.modules}
        entries.discard("frontend/js/early.js")
        preloaded = {href.removeprefix("/static/") for href in parsed.preloads}
        assert "frontend/js/header.js" in entries, path
        wanted = set().union(*(imports_of(entry) for entry in entries)) - entries
        assert wanted, path
        assert wanted <= preloaded, (path, wanted - preloaded)
        assert len(parsed.preloads) == len(preloaded), f"{path}: a module preloaded twice"


@pytest.mark.django_db
def test_a_module_the_join_does_not_know_leaves_its_page_on_modulepreloads(player, tmp_path):
    """``export default`` (or any form the rewrite does not know) is not guessed at:
    the page links its modules one by one, preloaded, as in a debug run."""
    from frontend import loading

    odd = tmp_path / "frontend" / "js"
    odd.mkdir(parents=True)
    (odd / "odd.js").write_text('import { fmt } from "./i18n.js";\nexport default fmt;\n')
    with pytest.raises(loading.Unbundled):
        loading._rewrite("frontend/js/odd.js", (odd / "odd.js").read_text())
    (odd / "cycle.js").write_text('import { a } from "./cycle.js";\nexport const b = 1;\n')
    with override_settings(STATICFILES_DIRS=[tmp_path]):
        assert loading._module_bundle(("frontend/js/cycle.js",)) is None
        assert loading._module_bundle(("frontend/js/odd.js",)) is None


# --- hashed static names, immutable ----------------------------------------------------


@pytest.fixture(scope="module")
def collected(tmp_path_factory, django_db_blocker):
    """``collectstatic`` as the image runs it, into a directory of this module's."""
    root = tmp_path_factory.mktemp("static")
    with override_settings(STATIC_ROOT=root):
        call_command("collectstatic", "--noinput", "-v", "0")
    return root


@pytest.mark.django_db
def test_after_collectstatic_pages_name_hashed_files_served_immutable(collected, player):
    game = start(player, random="SH1-C4")
    with override_settings(STATIC_ROOT=collected):
        client = Client()
        client.cookies = player.cookies
        parsed = head(client.get(f"/play/{game['id']}/"))
        names = parsed.modules + parsed.preloads + parsed.styles + parsed.scripts
        static = [n for n in names if n.startswith("/static/")]
        assert len(static) >= 2  # appearance.js, early.js; the rest is joined (below)
        for name in static:
            assert re.search(r"\.[0-9a-f]{12}\.(js|css)$", name), name
            response = client.get(name, HTTP_ACCEPT_ENCODING="gzip")
            assert response.status_code == 200, name
            cache = response["Cache-Control"]
            assert "immutable" in cache, (name, cache)
            assert int(re.search(r"max-age=(\d+)", cache)[1]) >= 365 * 86400
            assert response["Content-Encoding"] == "gzip", name
            body = b"".join(response.streaming_content)
            if name.endswith(".js"):
                text = gzip.decompress(body).decode()
                # Its imports name hashed files too: the whole graph is cached for good.
                for rel in IMPORT.findall(text):
                    assert re.search(r"\.[0-9a-f]{12}\.js$", rel), (name, rel)
        # The unhashed name still answers (an old page), but only briefly cached.
        plain = client.get("/static/frontend/js/play.js")
        assert plain.status_code == 200 and "immutable" not in plain["Cache-Control"]


# --- the JS catalogue: a cached file per language -------------------------------------

TRANSLATED = {"id": "Menang", "bg": "Победи", "tr": "Kazanıldı"}


@pytest.mark.django_db
def test_an_english_page_needs_no_catalogue():
    parsed = head(Client().get("/rules/"))
    assert not [src for src in parsed.scripts if "jsi18n" in src]  # i18n.js's fallbacks


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["id", "bg", "tr"])
def test_the_js_catalogue_is_a_cached_file_per_language(language):
    client = Client()
    client.cookies["django_language"] = language
    parsed = head(client.get("/rules/"))
    catalogue = [src for src in parsed.scripts if "jsi18n" in src]
    assert len(catalogue) == 1, parsed.scripts
    assert re.fullmatch(rf"/jsi18n/{language}/[0-9a-f]{{12}}\.js", catalogue[0]), catalogue
    response = client.get(catalogue[0], HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    assert "immutable" in response["Cache-Control"]
    assert response["Content-Encoding"] == "gzip"
    assert response["Content-Type"].startswith("text/javascript")
    text = gzip.decompress(response.content).decode()
    assert "django.gettext" in text or "gettext" in text
    assert json.dumps(TRANSLATED[language])[1:-1] in text
    # An old version's URL still works, briefly cached; an unknown language is none.
    old = client.get(f"/jsi18n/{language}/000000000000.js")
    assert old.status_code == 200 and "immutable" not in old["Cache-Control"]
    assert client.get("/jsi18n/xx/000000000000.js").status_code == 404


# --- stylesheets: the page's own, one file -------------------------------------------

CSS = STATIC / "frontend" / "css"


@pytest.mark.django_db
def test_each_page_links_its_stylesheets_as_one_cached_file(player):
    game = start(player, random="SH1-C4")
    bundles = {}
    for path in ("/", f"/play/{game['id']}/", f"/replay/{game['id']}/", "/rules/"):
        parsed = head(player.get(path))
        assert len(parsed.styles) == 1, (path, parsed.styles)
        href = parsed.styles[0]
        found = re.fullmatch(r"/css/([a-z0-9~-]+)\.([0-9a-f]{12})\.css", href)
        assert found, href
        names = found[1].split("~")
        response = player.get(href, HTTP_ACCEPT_ENCODING="gzip")
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/css")
        assert "immutable" in response["Cache-Control"]
        text = gzip.decompress(response.content).decode()
        for name in names:  # each file whole, in the page's order
            assert (CSS / f"{name}.css").read_text().strip() in text
        starts = [text.index(f"/* {name}.css */") for name in names]
        assert starts == sorted(starts)
        bundles[path.split("/")[1] or "lobby"] = names
    # Only the CSS a page uses: the cards' and the replay controls' where they are drawn.
    assert names_in(bundles["lobby"]) and "cards" not in bundles["lobby"]
    assert "controls" not in bundles["lobby"] and "board" not in bundles["lobby"]
    assert {"cards", "board", "finish"} <= set(bundles["play"])
    assert "controls" not in bundles["play"]
    assert {"cards", "controls", "replay", "board"} <= set(bundles["replay"])
    assert bundles["lobby"][-1] == "archive" and bundles["play"][-2:] == ["board", "phone"]
    assert "cards" not in bundles["rules"]
    # A page from before a release names an older version: it still gets the file.
    stale = player.get(f"/css/{'~'.join(bundles['rules'])}.000000000000.css")
    assert stale.status_code == 200 and "immutable" not in stale["Cache-Control"]
    assert player.get("/css/base~nosuchfile.000000000000.css").status_code == 404
    assert player.get("/css/..~base.000000000000.css").status_code == 404


def names_in(names: list[str]) -> bool:
    return names[:3] == ["base", "forms", "dialogs"] and "theme" in names
