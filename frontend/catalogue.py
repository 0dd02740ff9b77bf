"""The games' catalogue for the pages and the client (issue 16): each game's
declaration (``games/engine/spec.py``) with its display names translated into
the page's language.

Every page embeds it as JSON (``<script type="application/json"
id="games-catalogue">``, base.html), which ``static/frontend/js/catalogue.js``
reads; the templates loop over it for the leaderboard's tabs and the New game
window. The names are marked for translation once, in the declarations.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from games.engine import SPECS


def games_catalogue() -> list[dict[str, Any]]:
    """``[{"prefix", "title", "icon", "variants": [{"id", "letter", "name", "tab",
    "choice", "cells", "layout": {"top_left", "top_right", "columns"}}, …]}, …]``,
    games and variants in the order the service lists them."""
    return [
        {
            "prefix": spec.prefix,
            "title": gettext(spec.title),
            "icon": spec.icon,
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
