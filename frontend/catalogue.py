"""The games' catalogue for the pages and the client (issue 16): each game's
declaration (``games/engine/spec.py``) with its display names and its refusal
sentences translated into the page's language.

Every page embeds it as JSON (``<script type="application/json"
id="games-catalogue">``, base.html), which ``static/frontend/js/catalogue.js``
reads; the templates loop over it for the leaderboard's tabs and the New game
window, and ``reasons.js`` fills a refusal's sentence from it. The names and the
sentences are marked for translation once, in the declarations.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.utils.text import get_text_list
from django.utils.translation import get_language, gettext, ngettext
from django.utils.translation.trans_real import translation

from games.engine import SPECS, Plural, Sentence


def games_named() -> str:
    """The service's games named in the active language, as the catalogue holds
    them ("Easy Harp and Seahaven Towers"): the texts that name the games read
    this, so a game added is named too (issue 40)."""
    return get_text_list([gettext(spec.title) for spec in SPECS.values()], gettext("and"))


def games_catalogue() -> list[dict[str, Any]]:
    """The catalogue in the page's language, made once per language (and set of
    registered games: a test registers one): every page embeds it. Read only."""
    return _catalogue(get_language() or "en", tuple(map(id, SPECS.values())))


@lru_cache(maxsize=32)
def _catalogue(language: str, games: tuple[int, ...]) -> list[dict[str, Any]]:
    """``[{"prefix", "title", "icon", "hides_cards", "reasons", "variants": [{"id",
    "letter", "name", "tab", "choice", "cells", "layout": {"top_left", "top_right",
    "columns", "suits"}}, …]}, …]``, games and variants in the order the service
    lists them. ``hides_cards``: the engine's ``Game.hides_cards`` (Easy Harp: a
    past day of it is not raced, issue 36).

    ``reasons``: reason code → its ``%(name)s`` template, or for a sentence with a
    plural ``{"count": param, "forms": [...]}``, the forms in the order of the
    language's plural rule (the ``pluralidx`` of Django's JavaScript catalog)."""
    forms = _plural_samples(language)
    return [
        {
            "prefix": spec.prefix,
            "title": gettext(spec.title),
            "icon": spec.icon,
            "hides_cards": spec.engine.hides_cards,
            "reasons": {code: _translated(s, forms) for code, s in spec.refusals.items()},
            "variants": [
                {
                    "id": spec.variant_id(variant),
                    "letter": variant.letter,
                    "name": gettext(variant.name),
                    "tab": gettext(variant.tab),
                    "choice": gettext(variant.choice) if variant.choice else "",
                    "cells": variant.cells,
                    "layout": spec.layouts[variant.letter].to_json(),
                }
                for variant in spec.variants
            ],
        }
        for spec in SPECS.values()
    ]


def _translated(sentence: Sentence, samples: list[int]) -> str | dict[str, Any]:
    if isinstance(sentence, Plural):
        forms = [ngettext(sentence.one, sentence.other, n) for n in samples]
        return {"count": sentence.count, "forms": forms}
    return gettext(sentence)


def _plural_samples(language: str) -> list[int]:
    """One number for each plural form of ``language``, in the forms' order:
    ``[1, 0]`` for English (``n != 1``), ``[0]`` for Indonesian."""
    plural = translation(language).plural
    first: dict[int, int] = {}
    for n in range(200):
        first.setdefault(plural(n), n)
    return [first[index] for index in sorted(first)]
