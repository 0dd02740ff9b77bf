"""The OpenAPI document at /api/schema/ is valid and generated without warnings."""

from django.core.management import call_command


def test_schema_validates_without_warnings(tmp_path):
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    for path in (
        "/api/auth/me/",
        "/api/auth/register/",
        "/api/daily/",
        "/api/games/{attempt_id}/actions/",
        "/api/games/{attempt_id}/replay/",
        "/api/leaderboard/{date}/{variant}/",
        "/api/players/{username}/",
        "/api/players/{username}/calendar/",
        "/api/calendar/",
    ):
        assert f"{path}:" in text


def test_schema_is_served(anon):
    response = anon.get("/api/schema/")
    assert response.status_code == 200
    assert b"openapi: 3" in response.content
