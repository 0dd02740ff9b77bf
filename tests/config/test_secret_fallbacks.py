"""Rotating ``SECRET_KEY`` (issue 28): ``SECRET_KEY_FALLBACKS`` is read from the
environment as a comma-separated list, production refuses a weak former key as
it refuses a weak key, and a session signed in under the former key survives the
rotation while that key is among the fallbacks (and moves to the new key)."""

from __future__ import annotations

from tests.support.env import SECRETS, settings_in_subprocess

FORMER = "hT5wQ9zL2xN7vB4mR8kC3pJ6dY1sF0gAeU4iO8tW2qZ7nM3rV6"
OLDER = "Lr8Vq2Xn6Wk1Tz5Yp9Bc3Hm7Jd0Fs4Ga8Eu2Io6Qt1Zw5Nx9Ck3"


def test_fallbacks_are_read_as_a_comma_separated_list():
    env = {**SECRETS, "SECRET_KEY_FALLBACKS": f" {FORMER} , {OLDER},"}
    out = settings_in_subprocess(env, "s.SECRET_KEY_FALLBACKS")
    assert out.returncode == 0, out.stderr[-300:]
    assert out.stdout.strip() == repr([FORMER, OLDER])
    none = settings_in_subprocess(SECRETS, "s.SECRET_KEY_FALLBACKS")
    assert none.stdout.strip() == "[]"


def test_production_refuses_weak_fallbacks_naming_the_setting():
    refused = [
        ("x" * 12, "SECRET_KEY_FALLBACKS is too short"),
        ("ab" * 40, "SECRET_KEY_FALLBACKS is too short or too plain"),
        ("django-insecure-" + FORMER, "SECRET_KEY_FALLBACKS is a placeholder"),
        ("change-me", "SECRET_KEY_FALLBACKS is a placeholder"),
    ]
    for weak, message in refused:
        env = {**SECRETS, "SECRET_KEY_FALLBACKS": f"{FORMER},{weak}"}
        out = settings_in_subprocess(env, "s.DEBUG")
        assert out.returncode != 0 and message in out.stderr, (weak, out.stderr[-300:])
        assert "ImproperlyConfigured" in out.stderr
    # Debug runs take what they are given, as they do for SECRET_KEY.
    debug = settings_in_subprocess({"DEBUG": "1", "SECRET_KEY_FALLBACKS": "short"}, "s.DEBUG")
    assert debug.stdout.split() == ["True"], debug.stderr[-300:]


def signed_in_as(client) -> str | None:
    response = client.get("/api/auth/me/")
    assert response.status_code == 200, response.content
    return response.json()["username"]


def test_a_session_survives_the_rotation_while_the_former_key_is_a_fallback(make_player, settings):
    former = settings.SECRET_KEY
    came_back, stayed_away = make_player(), make_player()
    assert signed_in_as(came_back) == came_back.username
    assert signed_in_as(stayed_away) == stayed_away.username
    settings.SECRET_KEY = FORMER
    settings.SECRET_KEY_FALLBACKS = [former]
    # A visit during the overlap moves the session to the new key ...
    assert signed_in_as(came_back) == came_back.username
    # ... so when the fallback is dropped (the docs' last step) it stays, and a
    # session that did not come back in the overlap ends.
    settings.SECRET_KEY_FALLBACKS = []
    assert signed_in_as(came_back) == came_back.username
    assert signed_in_as(stayed_away) is None


def test_without_the_fallback_a_rotation_signs_everyone_out(player, settings):
    assert signed_in_as(player) == player.username
    settings.SECRET_KEY = FORMER
    assert signed_in_as(player) is None
