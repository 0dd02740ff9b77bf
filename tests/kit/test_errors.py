"""The one vocabulary of refusals (kit/errors.py): services and selectors say
no in domain kinds, and only the doors know HTTP (STYLE.md, "Services raise
domain errors that know nothing of HTTP"; issue 26)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from games.engine import IllegalActionError, MalformedError
from kit.errors import Conflict, Forbidden, Gone, Illegal, Invalid, NotFound, Refusal
from kit.http import ApiError, describe_error

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = sorted(
    [
        *ROOT.glob("*/services.py"),
        *ROOT.glob("*/selectors.py"),
        *(ROOT / "games" / "fairplay").glob("*.py"),
    ]
)
HTTP_MODULES = ("rest_framework", "django.http", "kit.http")
HTTP_NAMES = {"ApiError", "APIException", "Response", "JsonResponse", "HttpResponse"}


def http_in(path: Path) -> list[str]:
    """What of HTTP ``path`` names: an import of DRF or Django's HTTP module,
    or one of ``HTTP_NAMES`` however it was reached (``errors.ApiError`` too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            modules.append(getattr(node, "module", None) or "")
            found += [m for m in modules if m.startswith(HTTP_MODULES)]
        names = {getattr(node, "id", None), getattr(node, "attr", None)}
        if isinstance(node, ast.alias):
            names.add(node.name)
        found += sorted(n for n in names if n in HTTP_NAMES)
    return found


def test_services_and_selectors_raise_no_http_error():
    names = {f"{p.parent.name}/{p.name}" for p in DOMAIN}
    assert {"accounts/services.py", "games/selectors.py", "leaderboard/selectors.py"} <= names
    for path in DOMAIN:
        assert http_in(path) == [], path


def test_the_check_finds_an_http_error(tmp_path):
    sneaky = tmp_path / "services.py"
    sneaky.write_text(
        "from kit import errors\n\ndef f():\n    raise errors.ApiError(400, 'x', 'y')\n"
    )
    assert http_in(sneaky) == ["ApiError"]
    sneaky.write_text("from rest_framework.exceptions import NotFound\n")
    assert http_in(sneaky) == ["rest_framework.exceptions"]
    sneaky.write_text("from kit.http import describe_error\n")
    assert http_in(sneaky) == ["kit.http"]


class NotYoursHere(Forbidden):
    """A kind of a kind: answered as its nearest kind."""


@pytest.mark.parametrize(
    ("refusal", "status"),
    [
        (Refusal("invalid", "No."), 400),
        (Invalid("invalid", "No."), 400),
        (Forbidden("not_yours", "No."), 403),
        (NotYoursHere("not_yours", "No."), 403),
        (NotFound("not_found", "No."), 404),
        (Conflict("finished", "No."), 409),
        (Gone("archived", "No."), 410),
        (Illegal("not_allowed", "No.", params={"card": "5H"}), 422),
    ],
)
def test_each_kind_is_answered_with_its_status_and_the_one_shape(refusal, status):
    described = describe_error(refusal)
    assert described is not None
    assert described[0] == status
    body = {"code": refusal.code, "message": "No.", **refusal.extra}
    assert described[1] == {"error": body}


def test_the_engine_errors_are_answered_as_their_kinds():
    """Registered by games/errors.py: the engine cannot import the kit."""
    illegal = IllegalActionError("not_allowed", "5H cannot go there.", {"card": "5H"})
    assert describe_error(illegal) == (
        422,
        {
            "error": {
                "code": "not_allowed",
                "message": "5H cannot go there.",
                "params": {"card": "5H"},
            }
        },
        {},
    )
    malformed = MalformedError("bad_action", "Not an action.")
    assert describe_error(malformed) == (
        400,
        {"error": {"code": "bad_action", "message": "Not an action."}},
        {},
    )


def test_a_door_still_says_its_own_http_errors():
    assert describe_error(ApiError(415, "bad_type", "JSON only.")) == (
        415,
        {"error": {"code": "bad_type", "message": "JSON only."}},
        {},
    )
    assert describe_error(ValueError("a bug")) is None
