"""The texts that name the games read the catalogue (issue 40): the installed
app's description and a day's link preview name every game registered — a
game added is named with no text to edit — in the page's language."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import translation

from frontend.catalogue import games_named
from frontend.social import day_card
from games.engine import SPECS

pytestmark = pytest.mark.django_db


def test_the_app_description_names_every_game_registered(client, bakers_game):
    described = client.get("/manifest.webmanifest").json()["description"]
    for spec in SPECS.values():
        assert spec.title in described, (spec.title, described)
    assert "Baker's Game" in described and "Easy Harp" in described


def test_a_day_with_no_figures_yet_names_the_games_in_the_language_of_the_page(bakers_game):
    far = dt.date(2001, 1, 1)  # no deals that day: the preview falls back on the games
    assert games_named() in day_card(far)["description"]
    with translation.override("tr"):
        named = games_named()
        assert " ve " in named  # Django's own "and" in Turkish
        assert named in day_card(far)["description"]
