"""The pages read the games' declarations (issue 16): every page embeds the
catalogue as JSON data (no inline script), its names translated, and the
leaderboard's tabs and the New game window are made from it."""

from __future__ import annotations

import json
import re

import pytest

from games.engine import ALL_VARIANTS


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
    }
    assert games[0]["variants"][0]["layout"]["top_left"] == ["s", "w"]


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
