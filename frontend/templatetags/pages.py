"""Tags of the pages' <head> (issue 24; frontend/loading.py does the work).

``{% module "frontend/js/play.js" %}`` adds a module script to the page (base.html
adds header.js first), and ``{% modules %}`` (after every block that adds one)
links them: outside debug as one joined module (``/js/header~play.<hash>.js``);
in debug runs, or where the modules cannot be joined, each entry's module script
after a ``<link rel="modulepreload">`` for each module it imports, directly or
not, that no entry before it linked.
``{% stylesheet "base" %}`` adds ``frontend/css/base.css`` to the page's list,
and ``{% stylesheets %}`` (at the end of the <head>, after every block that adds
one) links the list, in its order, as one cached file.
``{% js_catalogue_url %}``: the client's strings in the page's language, a cached
file ("" when the language has none: English, the fallbacks of i18n.js).
"""

from __future__ import annotations

import posixpath

from django import template
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from frontend.loading import css_bundle, js_catalogue, module_bundle, module_graph, page_language

register = template.Library()


def _name(context: template.Context, kind: str, value: str) -> str:
    """Add ``value`` once to the page's list of ``kind``, in order; outputs nothing.
    The render context is shared by a page and the base it extends."""
    named: list[str] = context.render_context.setdefault(kind, [])
    if value not in named:
        named.append(value)
    return ""


@register.simple_tag(takes_context=True)
def module(context: template.Context, path: str) -> str:
    return _name(context, "modules", path)


@register.simple_tag(takes_context=True)
def modules(context: template.Context) -> SafeString:
    entries = tuple(context.render_context.get("modules", []))
    if not entries:
        return SafeString("")
    bundle = module_bundle(entries)
    if bundle is not None:
        names = "~".join(posixpath.splitext(posixpath.basename(p))[0] for p in entries)
        path = reverse("js-bundle", kwargs={"names": names, "version": bundle.version})
        return format_html('<script type="module" src="{}"></script>', path)
    linked: set[str] = set()
    tags = []
    for entry in entries:
        graph = module_graph(entry)
        preload = [p for p in graph[1:] if p not in linked]
        linked.update(graph)
        tags.append(
            format_html(
                '{}<script type="module" src="{}"></script>',
                format_html_join(
                    "", '<link rel="modulepreload" href="{}">\n  ', ((static(p),) for p in preload)
                ),
                static(entry),
            )
        )
    return format_html_join("\n  ", "{}", ((tag,) for tag in tags))


@register.simple_tag(takes_context=True)
def stylesheet(context: template.Context, name: str) -> str:
    return _name(context, "stylesheets", name)


@register.simple_tag(takes_context=True)
def stylesheets(context: template.Context) -> SafeString:
    names = tuple(context.render_context.get("stylesheets", []))
    if not names:
        return SafeString("")
    version = css_bundle(names).version
    path = reverse("css-bundle", kwargs={"names": "~".join(names), "version": version})
    return format_html('<link rel="stylesheet" href="{}">', path)


@register.simple_tag
def js_catalogue_url() -> str:
    language = page_language()
    catalogue = js_catalogue(language)
    if catalogue.empty:
        return ""
    kwargs = {"language": language, "version": catalogue.version}
    return reverse("js-catalogue", kwargs=kwargs)
