"""Issue 17, deliverable 3: errors go to Sentry when ``SENTRY_DSN`` is set, with
personal data off — and nowhere when it is not.

A local HTTP listener plays Sentry's ingest (sentry-sdk posts envelopes to
``/api/<project>/envelope/``); a real daphne runs the service with a test-only
view that fails (``failing_app.py``) while holding a game's full state. A
signed-in player calls it with their session cookie, CSRF token, a body with a
password and a forwarded address: the report arrives, tagged with the
request's id and naming the player by numeric id only, and carries none of those
nor any face-down card. A task that fails in a real Celery worker is reported
too, tagged with the task, its id and the attempt it was about.
"""

from __future__ import annotations

import gzip
import http.client
import json
import secrets
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psycopg

from deploy import processes
from deploy.client import Client
from games.engine import new_game
from tests.support.api import requires_postgres, requires_redis
from tests.support.env import SECRETS, settings_in_subprocess
from tests.support.hidden import CARD, hidden_only
from tests.support.waiting import wait_for
from tests.system.ops.failing_urls import CODE

WAIT = 30.0
PASSWORD = "correct horse battery staple"
FORWARDED = "203.0.113.77"  # the player's address, as a proxy in front says it


class Ingest(ThreadingHTTPServer):
    """Sentry's ingest, as far as sentry-sdk can tell: every envelope's items."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Envelope)
        self.items: list[tuple[dict[str, Any], bytes]] = []
        self.raw: list[bytes] = []
        self.paths: list[str] = []

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(body) for header, body in self.items if header.get("type") == "event"]


class Envelope(BaseHTTPRequestHandler):
    server: Ingest

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        self.server.paths.append(self.path)
        self.server.raw.append(body)
        self.server.items += items_of(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: Any) -> None:
        pass


def items_of(envelope: bytes) -> list[tuple[dict[str, Any], bytes]]:
    """An envelope: a header line, then each item's header line and payload
    (``length`` bytes when the header says, else up to the next newline)."""
    _, _, rest = envelope.partition(b"\n")
    items = []
    while rest.strip():
        line, _, rest = rest.partition(b"\n")
        header = json.loads(line)
        if "length" in header:
            payload, rest = rest[: header["length"]], rest[header["length"] + 1 :]
        else:
            payload, _, rest = rest.partition(b"\n")
        items.append((header, payload))
    return items


def test_sentry_is_set_up_only_with_a_dsn_and_personal_data_off():
    client = "sentry_sdk.get_client()"
    check = f"{client}.is_active(), *({client}.options.get(k) for k in OPTIONS)"
    setup = (
        "import sentry_sdk;"
        " OPTIONS = ('send_default_pii', 'include_local_variables', 'traces_sample_rate');"
    )
    base = SECRETS
    off = settings_in_subprocess(base, check, setup)
    assert off.returncode == 0, off.stderr
    assert off.stdout.split()[0] == "False"  # no client: nothing is ever sent
    on = settings_in_subprocess({**base, "SENTRY_DSN": "http://key@127.0.0.1:9/1"}, check, setup)
    assert on.stdout.split() == ["True", "False", "False", "0.0"], on.stderr


@requires_postgres
@requires_redis
def test_a_server_error_reaches_sentry_without_personal_data_or_cards(tmp_path):
    ingest = Ingest()
    listener = threading.Thread(target=ingest.serve_forever, daemon=True)
    listener.start()
    database = f"patience_sentry_{secrets.token_hex(4)}"
    redis_port = processes.free_port()
    redis = processes.start_redis(redis_port)  # sessions are cached there: its keys name them
    env = processes.server_env(
        f"postgres://postgres@{processes.PG_HOST}:{processes.PG_PORT}/{database}",
        f"redis://127.0.0.1:{redis_port}/0",
        SENTRY_DSN=f"http://publickey@127.0.0.1:{ingest.server_address[1]}/1",
        SENTRY_ENVIRONMENT="test",
        NUM_PROXIES="1",  # the X-Forwarded-For below is the player's address
        CELERY_EAGER="0",
    )
    request_id = f"sentry-{secrets.token_hex(6)}"
    log, worker_log = tmp_path / "daphne.log", tmp_path / "worker.log"
    try:
        with processes.one_daphne(
            database, env, log, "tests.system.ops.failing_app:application"
        ) as port:
            # daphne serves the service plus one failing view (failing_app.py).
            player = Client(port, timeout=WAIT)
            username = f"reporter{secrets.token_hex(3)}"
            player.sign_up(username, PASSWORD)
            email = f"{username}@example.org"
            user_id = user_with_email(database, username, email)
            body = json.dumps({"username": username, "password": PASSWORD})
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
            conn.request(
                "POST",
                "/test-only/bug/?token=query-secret",
                body=body,
                headers={
                    "Content-Type": "application/json",
                    "Cookie": "; ".join(f"{k}={v}" for k, v in player.cookies.items()),
                    "X-CSRFToken": player.cookies["csrftoken"],
                    "X-Request-ID": request_id,
                    "X-Forwarded-For": FORWARDED,
                },
            )
            answer = conn.getresponse()
            answer.read()
            assert answer.status == 500
            wait_for_event(ingest, "RuntimeError", log)

            # A task that fails on what it was sent, in a real worker.
            worker = processes.start_worker(env, worker_log, "--concurrency", "1")
            try:
                subprocess.run(
                    [
                        *processes.CELERY,
                        "call",
                        "games.tasks.verify_attempt",
                        "--args",
                        '["not-an-id"]',
                    ],
                    cwd=processes.ROOT,
                    env=env,
                    check=True,
                    timeout=WAIT,
                    capture_output=True,
                )
                wait_for_event(ingest, "ValueError", worker_log)
            finally:
                processes.stop([worker])
    finally:
        ingest.shutdown()
        processes.stop([redis])

    (task_event,) = [e for e in ingest.events() if exception_type(e) == "ValueError"]
    tags = task_event["tags"]
    assert tags["task"] == "games.tasks.verify_attempt" and tags["attempt_id"] == "not-an-id", tags
    assert tags["task_id"] and "request_id" not in tags, tags
    assert task_event["user"] == {}, task_event["user"]

    (event,) = [e for e in ingest.events() if exception_type(e) == "RuntimeError"]
    (tmp_path / "event.json").write_text(json.dumps(event, indent=1))  # to read on a failure
    assert ingest.paths[0].startswith("/api/1/envelope/"), ingest.paths
    assert event["tags"]["request_id"] == request_id, event.get("tags")
    assert event["user"] == {"id": str(user_id)}, event.get("user")
    assert event["environment"] == "test"
    request = event["request"]
    assert request["method"] == "POST" and request["url"].endswith("/test-only/bug/"), request
    assert set(request) <= {"method", "url", "headers"}, request

    text = b"".join(ingest.raw).decode()
    never = {
        "session cookie": player.cookies["sessionid"],
        "CSRF token": player.cookies["csrftoken"],
        "password": PASSWORD,
        "username": username,
        "address": FORWARDED,
        "query string": "query-secret",
    }
    for what, value in never.items():
        assert value not in text, f"the report carries the {what}"
    for frame in event["exception"]["values"][-1]["stacktrace"]["frames"]:
        assert "vars" not in frame, frame  # a frame's locals: here, a game's state
    hidden = hidden_only(new_game(CODE))
    leaked = set(CARD.findall(text)) & hidden
    assert not leaked, f"face-down cards {leaked} in the report"


def exception_type(event: dict[str, Any]) -> str:
    return str(event["exception"]["values"][-1]["type"])


def wait_for_event(ingest: Ingest, kind: str, log: Path) -> None:
    """Until an event of an exception ``kind`` has reached the ingest (bounded)."""
    reached = lambda: any(exception_type(e) == kind for e in ingest.events())  # noqa: E731
    wait_for(reached, f"a {kind} to reach the ingest", WAIT, log.read_text)


def user_with_email(database: str, username: str, email: str) -> int:
    """Give the player an address (sign-up asks for none) and return their id,
    in the daphne's own database."""
    url = f"postgresql://postgres@{processes.PG_HOST}:{processes.PG_PORT}/{database}"
    with psycopg.connect(url, autocommit=True) as conn:
        sql = "UPDATE accounts_user SET email = %s WHERE username = %s RETURNING id"
        ((user_id,),) = conn.execute(sql, [email, username]).fetchall()
    return int(user_id)
