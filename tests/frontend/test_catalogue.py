"""The pages read the games' declarations (issue 16): every page embeds the
catalogue as JSON data (no inline script), its names translated, and the
leaderboard's tabs and the New game window are made from it."""

from __future__ import annotations

import json
import re

import pytest
from django.utils import translation

from games.engine import ALL_VARIANTS, SPECS, Plural


def gettext_in(language: str, message: str) -> str:
    with translation.override(language):
        return translation.gettext(message)


def catalogue(html: str) -> list[dict]:
    match = re.search(
        r'<script id="games-catalogue" type="application/json">(.*?)</script>', html, re.S
    )
    assert match, "no games catalogue on the page"
    return json.loads(match.group(1))


@pytest.mark.django_db
def test_every_page_embeds_the_catalogue_of_the_declared_variants(client):
    games = catalogue(client.get("/").content.decode())
    assert [v["id"] for g in games for v in g["variants"]] == list(ALL_VARIANTS)
    seahaven = games[1]
    assert seahaven["prefix"] == "SH1" and seahaven["title"] == "Seahaven Towers"
    assert seahaven["variants"][0]["name"] == "Seahaven Towers · Easy (4 cells)"
    assert seahaven["variants"][2]["layout"] == {
        "top_left": ["c1"],
        "top_right": ["f1", "f2", "f3", "f4"],
        "columns": [f"t{i}" for i in range(1, 11)],
        "suits": {"f1": "S", "f2": "H", "f3": "D", "f4": "C"},
    }
    easy_harp = games[0]["variants"][0]["layout"]
    assert easy_harp["top_left"] == ["s", "w"]
    assert "".join(easy_harp["suits"].values()) == "SHDC" * 2  # C7: two spots per suit


@pytest.mark.django_db
def test_the_catalogue_and_the_tabs_speak_the_page_language(client):
    client.cookies["django_language"] = "tr"
    html = client.get("/leaderboard/2026-01-01/SH1-C2/").content.decode()
    games = catalogue(html)
    assert games[1]["variants"][0]["name"] == "Seahaven Towers · Kolay (4 hücre)"
    tabs = re.findall(r'<a class="tab" data-variant="([^"]+)"[^>]*>([^<]*)</a>', html)
    assert [v for v, _ in tabs] == list(ALL_VARIANTS)
    assert dict(tabs)["SH1-C4"] == "Seahaven · 4 hücre"
    current = re.findall(r'data-variant="([^"]+)"[^>]*aria-current="page"', html)
    assert current == ["SH1-C2"]


@pytest.mark.django_db
def test_the_new_game_window_offers_the_declared_games_and_variants(client):
    html = client.get("/").content.decode()
    assert re.findall(r'name="game" value="(\w+)"', html) == ["EH1", "SH1"]
    assert re.findall(r'name="cells" value="(\w+)"', html) == ["C4", "C2", "C1"]
    assert 'name="game" value="EH1" checked' in html
    assert 'name="cells" value="C4" data-game="SH1" checked' in html


@pytest.mark.django_db
def test_each_game_ships_its_refusal_sentences_in_the_page_language(client):
    """The sentences are the declarations' (issue 26), translated like the names;
    a plural comes as its language's forms, in the order of its plural rule."""
    games = {g["prefix"]: g for g in catalogue(client.get("/").content.decode())}
    for prefix, spec in SPECS.items():
        reasons = games[prefix]["reasons"]
        assert set(reasons) == set(spec.refusals)
        for code, sentence in spec.refusals.items():
            if isinstance(sentence, Plural):
                assert reasons[code] == {
                    "count": sentence.count,
                    "forms": [sentence.one, sentence.other],
                }
            else:
                assert reasons[code] == sentence
    assert games["SH1"]["reasons"]["wrong_build"].startswith("In Seahaven Towers")
    assert games["EH1"]["reasons"]["wrong_build"].startswith("In Easy Harp")

    client.cookies["django_language"] = "tr"
    turkish = {g["prefix"]: g for g in catalogue(client.get("/").content.decode())}
    assert turkish["SH1"]["reasons"]["same_pile"] == gettext_in(
        "tr", "A card has to move to another pile."
    )
    # Turkish: nplurals=2, plural=(n > 1): form 0 for 0 and 1, form 1 for more.
    assert len(turkish["SH1"]["reasons"]["group_too_large"]["forms"]) == 2


@pytest.mark.django_db
def test_a_registered_game_is_in_the_catalogue_with_its_sentences_and_layout(client, bakers_game):
    games = {g["prefix"]: g for g in catalogue(client.get("/").content.decode())}
    toy = games["BG1"]
    assert toy["title"] == "Baker's Game" and toy["icon"] == "♣♦"
    assert [v["id"] for v in toy["variants"]] == ["BG1-C4", "BG1-C2"]
    assert toy["variants"][1]["layout"] == {
        "top_left": ["c1", "c2"],
        "top_right": ["f1", "f2", "f3", "f4"],
        "columns": [f"t{i}" for i in range(1, 9)],
        "suits": {"f1": "S", "f2": "H", "f3": "D", "f4": "C"},
    }
    assert toy["reasons"]["one_card_at_a_time"] == "Baker's Game moves one card at a time."
    assert toy["reasons"]["same_pile"] == games["SH1"]["reasons"]["same_pile"]


@pytest.mark.django_db
def test_the_toy_game_is_forgotten_after_its_test(client):
    games = catalogue(client.get("/").content.decode())
    assert [g["prefix"] for g in games] == ["EH1", "SH1"]
