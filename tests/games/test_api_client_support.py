"""What the web client needs from the API (issue 6): settings stored with the
account, the language cookie, replays with every position, refusals with the
parameters a client translates them from."""

from __future__ import annotations

import pytest

from games.engine import load_game, new_game
from games.models import Attempt
from tests.support.api import DEFAULTS, assert_error
from tests.support.search import find_win

pytestmark = pytest.mark.django_db


def test_settings_default_and_change_partially(player):
    assert player.get("/api/auth/settings/").json() == DEFAULTS
    response = player.patch("/api/auth/settings/", {"double_click": False}, format="json")
    assert response.status_code == 200
    assert response.json() == {**DEFAULTS, "double_click": False}
    assert player.get("/api/auth/me/").json()["settings"] == {**DEFAULTS, "double_click": False}


def test_the_language_setting_sets_and_clears_the_language_cookie(player):
    response = player.patch("/api/auth/settings/", {"language": "bg"}, format="json")
    assert response.status_code == 200 and response.json()["language"] == "bg"
    assert response.cookies["django_language"].value == "bg"
    # The API now answers in Bulgarian too (Content-Language).
    assert player.get("/api/auth/me/")["Content-Language"] == "bg"
    response = player.patch("/api/auth/settings/", {"language": ""}, format="json")
    assert response.cookies["django_language"].value == ""  # deleted


def test_signing_in_brings_the_accounts_language(make_player):
    ada = make_player(password="correct horse battery")
    ada.patch("/api/auth/settings/", {"language": "tr"}, format="json")
    other_browser = type(ada)()
    response = other_browser.send(
        "/api/auth/login/", {"username": ada.username, "password": "correct horse battery"}
    )
    assert response.status_code == 200
    assert response.cookies["django_language"].value == "tr"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"language": "fr"}, "language"),
        ({"language": 1}, "language"),
        ({"double_click": "yes"}, "double_click"),
        ({"double_click": 1}, "double_click"),
        ({"interactive_rules": None}, "interactive_rules"),
        ({"colour": "dark"}, "colour"),
        ([], "body"),
    ],
)
def test_bad_settings_are_refused_naming_the_field(player, body, field):
    error = assert_error(player.patch("/api/auth/settings/", body, format="json"), 400)
    assert field in error["message"]
    assert player.get("/api/auth/settings/").json() == DEFAULTS  # nothing half-applied


def test_settings_need_a_sign_in(anon):
    assert_error(anon.get("/api/auth/settings/"), (401, 403))
    assert_error(
        anon.patch("/api/auth/settings/", {"double_click": False}, format="json"), (401, 403)
    )


CODE = "SH1-C4-AAAAAJ2"


def test_a_replay_with_positions_shows_every_step(player):
    game = player.send("/api/games/", {"code": CODE}).json()
    line = find_win(CODE)
    assert line
    for seq, action in enumerate(line[:10]):
        player.send(f"/api/games/{game['id']}/actions/", {"seq": seq, "action": action.to_json()})
    player.send(f"/api/games/{game['id']}/actions/", {"seq": 10, "action": {"type": "undo"}})
    player.send(f"/api/games/{game['id']}/resign/")
    plain = player.get(f"/api/games/{game['id']}/replay/").json()
    assert "positions" not in plain
    replay = player.get(f"/api/games/{game['id']}/replay/?positions=1").json()
    assert len(replay["positions"]) == len(replay["actions"]) + 1 == 12
    engine = new_game(CODE)
    assert replay["positions"][0] == replay["deal"] == engine.view(full=True)
    for action, position in zip(line[:10], replay["positions"][1:11], strict=True):
        engine.apply(action)
        assert position == engine.view(full=True)
    # The undo takes the cards back (and counts as a move, C5).
    assert replay["positions"][11]["piles"] == replay["positions"][9]["piles"]
    stored = load_game(Attempt.objects.get(pk=game["id"]).state)
    assert replay["positions"][-1] == stored.view(full=True)
    assert_error(player.get(f"/api/games/{game['id']}/replay/?positions=yes"), 400, "invalid")


def test_a_refusal_carries_the_parameters_of_its_sentence(player):
    game = player.send("/api/games/", {"code": CODE}).json()
    engine = new_game(CODE)
    top = engine.piles["t1"][-1]
    target = next(
        t for t in engine.columns if engine.piles[t] and engine.piles[t][-1].suit is not top.suit
    )
    response = player.send(
        f"/api/games/{game['id']}/actions/",
        {"seq": 0, "action": {"type": "move", "from": "t1", "to": target}},
    )
    error = assert_error(response, 422, "wrong_build")
    assert error["params"]["card"] == top.text
    assert error["params"]["top"] == engine.piles[target][-1].text
    assert (error["params"]["src"], error["params"]["dst"]) == ("t1", target)
