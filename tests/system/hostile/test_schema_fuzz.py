"""Hostile input over the whole HTTP API (issue 7): whatever a client sends, the
answer is never a server error and always one that ``/api/schema/`` documents.

How: schemathesis loads the OpenAPI document from the app itself and, for every
operation in it, sends generated requests — the document's examples, boundary
and wrong-type cases, then random valid and invalid data — as a signed-in player
and as an anonymous visitor. Each answer must not be a 5xx, and its status code,
content type and body must be ones the document declares for that operation.
Where sign-in is needed, anonymous requests are only sampled: they stop at 401.

Requests go in process to the ASGI application daphne serves (``config.asgi``),
with a browser's CSRF cookie and header, against the real PostgreSQL test
database (committed, as in production) and Redis. Real rows are seeded — the
player's game in progress, a finished one, a daily, another player's game — and
their ids and usernames are given as path-parameter examples and mixed into the
generated ones, so valid ids reach the views, not only 404s. Derandomized
Hypothesis with a fixed seed and a bound on examples per operation keep the run
deterministic and short.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from hypothesis import Phase, settings
from hypothesis import strategies as st
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.models import User
from config.asgi import application
from tests.support.api import Client
from tests.support.api import start as start_game

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
CONFIG = {
    "seed": 20_070,
    "generation": {
        "mode": "all",  # valid data and invalid data
        "max-examples": 15,  # per operation, in the fuzzing phase
        "deterministic": True,
        "database": "none",  # nothing carried over from earlier runs
    },
    "phases": {"stateful": {"enabled": False}},
}
CODE = "SH1-C4-AAAAAJ2"
# Answers to these may end or replace the player's session.
SESSION_CHANGERS = ("/api/auth/login/", "/api/auth/logout/", "/api/auth/register/")


@dataclass(frozen=True)
class Seeded:
    """Real rows for the generated requests to point at."""

    owner: Client
    attempt_ids: tuple[int, ...]
    usernames: tuple[str, ...]

    def values(self, parameter: str) -> tuple[Any, ...]:
        return {"attempt_id": self.attempt_ids, "username": self.usernames}.get(parameter, ())


def start(client: Client, body: dict[str, str]) -> int:
    return int(start_game(client, body)["id"])


@pytest.fixture
def seeded(transactional_db, make_player) -> Seeded:
    owner, other = make_player(), make_player()
    playing = start(owner, {"code": CODE})
    resigned = start(owner, {"code": "EH1-N-AAAAAAF"})
    assert owner.send(f"/api/games/{resigned}/resign/").status_code == 200
    daily = start(owner, {"daily": "SH1-C2"})
    others = start(other, {"code": CODE})
    return Seeded(
        owner=owner,
        attempt_ids=(playing, resigned, daily, others),
        usernames=(owner.username, other.username),
    )


def add_examples(document: dict[str, Any], seeded: Seeded) -> None:
    """Give the seeded ids and names as examples of the path parameters they fill."""
    for path_item in document["paths"].values():
        for operation in path_item.values():
            for parameter in operation.get("parameters", []):
                values = seeded.values(parameter["name"])
                if values:
                    parameter["examples"] = {
                        f"seeded{i}": {"value": v} for i, v in enumerate(values)
                    }


def with_real_values(seeded: Seeded, path_parameters: dict[str, Any] | None) -> st.SearchStrategy:
    """The generated path parameters as they are, or with a seeded value swapped in."""
    choices = [path_parameters]
    for name, value in (path_parameters or {}).items():
        choices += [
            {**path_parameters, name: real} for real in seeded.values(name) if real != value
        ]
    return st.sampled_from(choices)


@pytest.fixture
def api_schema(seeded: Seeded) -> schemathesis.BaseSchema:
    config = schemathesis.Config.from_dict(CONFIG)
    loaded = schemathesis.openapi.from_asgi("/api/schema/", application, config=config)
    add_examples(loaded.raw_schema, seeded)

    @loaded.hook
    def flatmap_path_parameters(context, path_parameters):
        return with_real_values(seeded, path_parameters)

    return loaded


@dataclass
class Caller:
    """Sends a case as a browser would: the csrftoken cookie, echoed in
    X-CSRFToken, and for a player the session cookie — signed in again when a
    generated sign-in, sign-up or sign-out may have changed the session."""

    client: Client
    user: User | None = None

    def call_and_check(self, case: schemathesis.Case) -> schemathesis.Response:
        cookies = {name: morsel.value for name, morsel in self.client.cookies.items()}
        headers = {"X-CSRFToken": cookies["csrftoken"]}
        response = case.call_and_validate(checks=CHECKS, cookies=cookies, headers=headers)
        if self.user is not None and case.path in SESSION_CHANGERS:
            self.client.force_login(self.user)
        return response


@pytest.fixture
def as_player(seeded: Seeded) -> Caller:
    return Caller(seeded.owner, User.objects.get(username=seeded.owner.username))


@pytest.fixture
def as_anonymous(seeded: Seeded) -> Caller:
    return Caller(Client())


def needs_sign_in(context: Any) -> bool:
    """The document says so: the operation's security has no anonymous ``{}``."""
    return {} not in context.operation.definition.raw.get("security", [{}])


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
def test_player_requests_get_documented_answers(case, as_player):
    as_player.call_and_check(case)


@schema.exclude(func=needs_sign_in).parametrize()
def test_anonymous_requests_get_documented_answers(case, as_anonymous):
    as_anonymous.call_and_check(case)


@settings(phases=[Phase.generate], max_examples=5)
@schema.include(func=needs_sign_in).parametrize()
def test_anonymous_requests_that_need_sign_in_are_refused(case, as_anonymous):
    response = as_anonymous.call_and_check(case)
    # Refused before any game is looked up: 401, or a body that cannot be read
    # (the CSRF check reads it first: 400, 413, 415), or a path naming no route.
    assert response.status_code in (400, 401, 404, 413, 415), response.text[:300]
