"""The appearance settings stored with the account (issue 15, deliverable 7):
theme, deck colours, sounds and motion beside the settings of issue 6, on the
same ``/api/auth/settings/``; bad input is a 400 naming the field and what it
may be, and changes nothing."""

from __future__ import annotations

import pytest

from tests.support.api import DEFAULTS, assert_error

pytestmark = pytest.mark.django_db

APPEARANCE = {"theme": "", "deck": "two", "sounds": False, "motion": ""}


def test_a_new_account_follows_the_system_with_two_colours_and_no_sound(player):
    settings = player.get("/api/auth/settings/").json()
    assert {name: settings[name] for name in APPEARANCE} == APPEARANCE
    assert player.get("/api/auth/me/").json()["settings"] == settings


@pytest.mark.parametrize(
    "change",
    [
        {"theme": "dark"},
        {"theme": "light"},
        {"deck": "four"},
        {"sounds": True},
        {"motion": "reduced"},
        {"tap": "foundation"},
        {"theme": "dark", "deck": "four", "sounds": True, "motion": "reduced", "language": "tr"},
    ],
)
def test_each_setting_round_trips_and_leaves_the_others(player, change):
    response = player.patch("/api/auth/settings/", change, format="json")
    assert response.status_code == 200
    assert response.json() == {**DEFAULTS, **change}
    assert player.get("/api/auth/settings/").json() == {**DEFAULTS, **change}


def test_back_to_following_the_system(player):
    player.patch("/api/auth/settings/", {"theme": "dark", "motion": "reduced"}, format="json")
    response = player.patch("/api/auth/settings/", {"theme": "", "motion": ""}, format="json")
    assert response.status_code == 200
    assert player.get("/api/auth/settings/").json() == DEFAULTS


@pytest.mark.parametrize(
    ("body", "field", "allowed"),
    [
        ({"theme": "blue"}, "theme", '"", "light", "dark"'),
        ({"theme": "Dark"}, "theme", '"", "light", "dark"'),
        ({"theme": None}, "theme", '"", "light", "dark"'),
        ({"theme": 1}, "theme", '"", "light", "dark"'),
        ({"theme": ["dark"]}, "theme", '"", "light", "dark"'),
        ({"deck": ""}, "deck", '"two", "four"'),
        ({"deck": 4}, "deck", '"two", "four"'),
        ({"deck": {"colours": 4}}, "deck", '"two", "four"'),
        ({"motion": "none"}, "motion", '"", "reduced"'),
        ({"motion": True}, "motion", '"", "reduced"'),
        ({"sounds": "on"}, "sounds", "true or false"),
        ({"sounds": 1}, "sounds", "true or false"),
        ({"sounds": None}, "sounds", "true or false"),
        ({"language": "fr"}, "language", '"", "en", "id", "bg", "tr"'),
        ({"tap": "double"}, "tap", '"best", "foundation"'),
        ({"tap": True}, "tap", '"best", "foundation"'),
    ],
)
def test_a_bad_value_is_refused_naming_the_field_and_what_it_may_be(player, body, field, allowed):
    error = assert_error(player.patch("/api/auth/settings/", body, format="json"), 400)
    assert error["message"].startswith(f"{field}: "), error
    assert allowed in error["message"], error
    assert player.get("/api/auth/settings/").json() == DEFAULTS


@pytest.mark.parametrize(
    "body",
    [
        {"theme": "dark", "deck": "six"},
        {"deck": "four", "sounds": "yes"},
        {"sounds": True, "motion": "slow"},
        {"motion": "reduced", "theme": "sepia"},
        {"theme": "dark", "font": "large"},
    ],
)
def test_one_good_and_one_bad_field_change_nothing(player, body):
    assert_error(player.patch("/api/auth/settings/", body, format="json"), 400)
    assert player.get("/api/auth/settings/").json() == DEFAULTS


def test_the_appearance_needs_a_sign_in(anon):
    assert_error(anon.get("/api/auth/settings/"), (401, 403))
    assert_error(anon.patch("/api/auth/settings/", {"theme": "dark"}, format="json"), (401, 403))


def test_the_account_page_shell_carries_the_appearance(player):
    """Signed in, the page is drawn in the account's appearance from its first
    byte (attributes of ``<html>``), with no wait for a script."""
    html = player.get("/").content.decode()
    opening = html[html.index("<html") : html.index(">", html.index("<html"))]
    assert "data-theme" not in opening and "data-deck" not in opening
    player.patch(
        "/api/auth/settings/", {"theme": "dark", "deck": "four", "motion": "reduced"}, format="json"
    )
    html = player.get("/").content.decode()
    opening = html[html.index("<html") : html.index(">", html.index("<html"))]
    assert 'data-theme="dark"' in opening
    assert 'data-deck="four"' in opening
    assert 'data-motion="reduced"' in opening
    # No script puts this browser's stored settings over the account's.
    tag = html[html.index('<script src="/static/frontend/js/appearance.js') :]
    assert "data-stored" not in tag[: tag.index(">")]


def test_a_signed_out_page_reads_this_browsers_settings_before_painting(anon):
    html = anon.get("/").content.decode()
    head = html[: html.index("</head>")]
    opening = html[html.index("<html") : html.index(">", html.index("<html"))]
    assert "data-theme" not in opening
    # A classic script (no type=module, no defer/async) runs before the first paint;
    # a src, not inline code, so a Content-Security-Policy without inline scripts allows it.
    tag = head[head.index('<script src="/static/frontend/js/appearance.js') :]
    tag = tag[: tag.index(">")]
    assert "module" not in tag and "defer" not in tag and "async" not in tag
    assert "data-stored" in tag
    assert "<script>" not in html
    assert 'id="settings-open"' in html and 'id="settings-dialog"' in html
