"""The pages' load path (issue 24): what a page needs arrives in one round trip
after its HTML, not in a chain of them.

- ``module_graph``: every ES module a page's entry module imports, directly or
  not, read from the modules' own static ``import … from "./x.js"`` lines once
  per process; in debug runs (and where the modules cannot be joined, below) the
  pages link each with ``<link rel="modulepreload">`` (templatetags/pages.py), so
  the browser fetches the whole graph at once instead of level by level.
- ``module_bundle``: over HTTP/1.1 a browser fetches six files at a time, each
  a round trip, so twenty modules cost four of them even when all are known at
  once. Outside debug a page's modules come as one ES module instead: each
  module's text in its own function scope, in the order the browser would
  evaluate them, its imports read from the modules before it (a plain rewrite of
  the client's own import/export lines, no build step, nothing renamed inside a
  module). A module with a form the rewrite does not know (``export {…}``,
  ``export default``, ``import * as``, ``import()``, a cycle) leaves its page on
  the modulepreloads.
- ``js_catalogue``: the client's strings in one language (Django's JavaScript
  catalogue, what ``/jsi18n/`` builds on every request), built once per process
  and language and served under a URL naming its hash with an immutable cache.
- ``css_bundle``: a page's stylesheets, in their order, as one file (HTTP/1.1
  fetches six files at a time: ten stylesheets cost round trips of their own),
  under a URL naming the files and the hash of the whole, cached for good.
- ``api_prefill``: the first answers of the JSON API a page's modules ask for
  (``/api/auth/me/``, the attempt of ``/play/<id>/``, today's deals), answered by
  the API's own views for the page's request and embedded as JSON data
  (``<script type="application/json" id="api-prefill">``: no script runs, the CSP
  holds); api.js hands each out once instead of fetching it. An answer that is
  not 200 is left out: the client asks the API and gets its error as before.
"""

from __future__ import annotations

import copy
import functools
import gzip
import hashlib
import json
import posixpath
import re
from dataclasses import dataclass

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, QueryDict
from django.urls import resolve
from django.utils import translation
from django.views.i18n import JavaScriptCatalog
from rest_framework.renderers import JSONRenderer

from kit.logs import get_logger

log = get_logger(__name__)

# The static imports of an ES module: `import … from "./x.js";`, `import "./x.js";`,
# `export … from "./x.js";` (relative paths only: the client imports nothing else).
_IMPORT = re.compile(
    r"""^\s*(?:import|export)\b(?:[^;"'`]*?\bfrom)?\s*["'](?P<url>\.{1,2}/[^"']+)["']""",
    re.MULTILINE,
)


def _imports(path: str) -> list[str]:
    """The static paths (``frontend/js/x.js``) the module at ``path`` imports."""
    found = finders.find(path)
    if not found:
        raise ValueError(f"No static module {path!r}")
    with open(found, encoding="utf-8") as source:
        text = source.read()
    base = posixpath.dirname(path)
    return [posixpath.normpath(posixpath.join(base, m["url"])) for m in _IMPORT.finditer(text)]


def _graph(entry: str) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    todo = [entry]
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        seen[path] = None
        todo.extend(_imports(path))
    return tuple(seen)


_cached_graph = functools.cache(_graph)


def module_graph(entry: str) -> tuple[str, ...]:
    """``entry`` and every module it imports, directly or not (breadth first).
    Read once per process; in a debug run on every page, so edits show at once."""
    return _graph(entry) if settings.DEBUG else _cached_graph(entry)


class Unbundled(ValueError):
    """A module the bundle's rewrite does not know how to join."""


_NAMED = re.compile(
    r"""^import\s*\{(?P<names>[^}]*)\}\s*from\s*["'](?P<url>\.{1,2}/[^"']+)["'];?[ \t]*$""",
    re.MULTILINE,
)
_BARE = re.compile(r"""^import\s*["'](?P<url>\.{1,2}/[^"']+)["'];?[ \t]*$""", re.MULTILINE)
_EXPORT = re.compile(
    r"^export\s+(?P<kind>(?:async\s+)?function\s*\*?|class|const)\s+(?P<name>[A-Za-z_$][\w$]*)",
    re.MULTILINE,
)
_ANY = re.compile(r"^\s*(?:import|export)\b|\bimport\s*[(.]", re.MULTILINE)
_NAME = re.compile(r"[A-Za-z_$][\w$]*")


def _read(path: str) -> str:
    found = finders.find(path)
    if not found:
        raise ValueError(f"No static module {path!r}")
    with open(found, encoding="utf-8") as source:
        return source.read()


def _rewrite(path: str, text: str) -> tuple[str, list[str]]:
    """The module ``path`` as the body of an async function: its imports taken
    from ``__modules``, its ``export`` keywords dropped and its exports returned.
    Also the paths it imports, in order."""
    base = posixpath.dirname(path)
    imports: list[str] = []
    bindings: list[str] = []

    def target(url: str) -> str:
        resolved = posixpath.normpath(posixpath.join(base, url))
        imports.append(resolved)
        return resolved

    def named(found: re.Match[str]) -> str:
        pairs = []
        for item in filter(None, (part.strip() for part in found["names"].split(","))):
            words = item.split()
            if len(words) == 3 and words[1] == "as" and _NAME.fullmatch(words[0]):
                pairs.append(f"{words[0]}: {words[2]}")
            elif len(words) == 1 and _NAME.fullmatch(words[0]):
                pairs.append(words[0])
            else:
                raise Unbundled(f"{path}: import {{{item}}}")
        bindings.append(
            f"const {{ {', '.join(pairs)} }} = __modules[{json.dumps(target(found['url']))}];"
        )
        return ""

    def bare(found: re.Match[str]) -> str:
        target(found["url"])
        return ""

    exports: list[str] = []

    def export(found: re.Match[str]) -> str:
        exports.append(found["name"])
        return f"{found['kind']} {found['name']}"

    body = _EXPORT.sub(export, _BARE.sub(bare, _NAMED.sub(named, text)))
    left = _ANY.search(body)
    if left:
        line = body[left.start() :].strip().splitlines()[0]
        raise Unbundled(f"{path}: {line[:60]}")
    head = "\n".join(bindings)
    tail = f"return {{ {', '.join(exports)} }};"
    return f"{head}\n{body}\n{tail}", imports


def _bundle(entries: tuple[str, ...]) -> str:
    """The modules of ``entries`` (and all they import) as one module's text."""
    rewritten: dict[str, tuple[str, list[str]]] = {}
    order: list[str] = []
    visiting: set[str] = set()

    def visit(path: str) -> None:  # the browser's order: depth first, imports in order
        if path in order:
            return
        if path in visiting:
            raise Unbundled(f"{path}: an import cycle")
        visiting.add(path)
        rewritten[path] = _rewrite(path, _read(path))
        for imported in rewritten[path][1]:
            visit(imported)
        order.append(path)

    for entry in entries:
        visit(entry)
    parts = ["// The page's modules, joined (frontend/loading.py): each in its own scope.\n"]
    parts.append("const __modules = {};\n")
    for path in order:
        parts.append(
            f"\n// --- {path}\n__modules[{json.dumps(path)}] = await (async () => {{\n"
            f"{rewritten[path][0]}\n}})();\n"
        )
    return "".join(parts)


@dataclass(frozen=True)
class Catalogue:
    """A file built in-process: the JS catalogue of a language, a CSS bundle."""

    body: bytes
    gzipped: bytes
    version: str  # the first 12 hex digits of the body's SHA-256
    empty: bool = False  # a catalogue without a translated string (English)


@functools.cache
def _catalogue(language: str) -> Catalogue:
    with translation.override(language):
        view = JavaScriptCatalog()
        view.setup(HttpRequest())
        response = view.get(view.request)
    body = response.content
    empty = not view.get_catalog()
    version = hashlib.sha256(body).hexdigest()[:12]
    return Catalogue(body, gzip.compress(body, mtime=0), version, empty)


def js_catalogue(language: str) -> Catalogue:
    """The JavaScript catalogue of ``language`` (one of ``settings.LANGUAGES``)."""
    if settings.DEBUG:
        _catalogue.cache_clear()  # `make messages` in a debug run shows at once
    return _catalogue(language)


STYLESHEET = re.compile(r"[a-z0-9-]{1,40}")
CSS_DIR = "frontend/css"


def _css_bundle(names: tuple[str, ...]) -> Catalogue:
    parts = []
    for name in names:
        found = finders.find(f"{CSS_DIR}/{name}.css") if STYLESHEET.fullmatch(name) else None
        if not found:
            raise ValueError(f"No stylesheet {name!r}")
        with open(found, "rb") as source:
            parts.append(f"/* {name}.css */\n".encode() + source.read().rstrip() + b"\n")
    body = b"".join(parts)
    return Catalogue(body, gzip.compress(body, mtime=0), hashlib.sha256(body).hexdigest()[:12])


_cached_css_bundle = functools.lru_cache(maxsize=256)(_css_bundle)


def css_bundle(names: tuple[str, ...]) -> Catalogue:
    """The stylesheets ``frontend/css/<name>.css`` of ``names`` joined in that order
    (``ValueError`` for a name that is none). None of them names another file
    (``url()``), so the joined file may live at another path."""
    return _css_bundle(names) if settings.DEBUG else _cached_css_bundle(names)


def _module_bundle(entries: tuple[str, ...]) -> Catalogue | None:
    try:
        body = _bundle(entries).encode()
    except Unbundled as why:
        log.warning("modules not joined, preloaded instead: %s", why)
        return None
    return Catalogue(body, gzip.compress(body, mtime=0), hashlib.sha256(body).hexdigest()[:12])


_cached_module_bundle = functools.lru_cache(maxsize=64)(_module_bundle)


def module_bundle(entries: tuple[str, ...]) -> Catalogue | None:
    """The modules of ``entries`` (static paths, ``frontend/js/x.js``) as one ES
    module, built once per process; ``None`` in debug runs (each module its own
    file, edits show at once) and where the rewrite does not apply."""
    if settings.DEBUG:
        return None
    return _cached_module_bundle(entries)


def page_language() -> str:
    code = (translation.get_language() or settings.LANGUAGE_CODE).split("-")[0]
    return code if code in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def _api_answer(request: HttpRequest, path: str) -> bytes | None:
    """The body ``GET path`` answers to ``request``'s user, as the API renders it;
    ``None`` unless 200. The API's own view runs on a copy of the page's request
    (same session, same user, the path and method changed), so the answer is the
    one the client would fetch: same selector, same checks, same JSON."""
    match = resolve(path)
    sub = copy.copy(request)
    sub.method = "GET"
    sub.path = sub.path_info = path
    sub.GET = QueryDict()
    sub.META = {
        **request.META,
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "HTTP_ACCEPT": "application/json",  # as api.js asks (the page's Accept is HTML's)
    }
    sub.resolver_match = match
    response = match.func(sub, *match.args, **match.kwargs)
    if response.status_code != 200 or not hasattr(response, "data"):
        return None
    return JSONRenderer().render(response.data)


def api_prefill(request: HttpRequest, paths: list[str]) -> str:
    """``{"<path>": <answer>, …}`` for each of ``paths`` answered 200, as JSON text
    safe inside a ``<script>`` element (``<``, ``>``, ``&`` escaped as json_script does)."""
    parts = []
    for path in paths:
        body = _api_answer(request, path)
        if body is not None:
            parts.append(f"{json.dumps(path)}:{body.decode()}")
    text = "{" + ",".join(parts) + "}"
    return text.replace("<", "\\u003C").replace(">", "\\u003E").replace("&", "\\u0026")
