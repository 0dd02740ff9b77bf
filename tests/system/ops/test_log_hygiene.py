"""What the log must not hold or shout (issue 25): no client address at any
level — daphne's DEBUG lines named every connection's — and a request naming a
host we do not serve is one warning line, not an ERROR with a traceback."""

from __future__ import annotations

import datetime as dt
import http.client
import json
import logging
from pathlib import Path

import pytest
from structlog.stdlib import ProcessorFormatter
from websockets.sync.client import connect

from tests.support.daphne import sqlite_daphne

CLIENT = "127.0.0.7"  # another loopback address: only the client has it


def test_no_client_address_in_the_log_at_debug(tmp_path: Path) -> None:
    with sqlite_daphne(tmp_path, LOG_LEVEL="DEBUG") as (port, log):
        paths = ("/api/auth/me/", "/", "/livez", "/api/games/")  # /livez: a DEBUG access line
        for method, path in (("POST" if p == "/api/games/" else "GET", p) for p in paths):
            conn = http.client.HTTPConnection("127.0.0.1", port, 10, source_address=(CLIENT, 0))
            conn.request(method, path, body=b"{}" if method == "POST" else None)
            assert conn.getresponse().status in (200, 403), path
            conn.close()
        today = dt.datetime.now(dt.UTC).date().isoformat()
        with connect(
            f"ws://127.0.0.1:{port}/ws/leaderboard/{today}/SH1-C4/",
            origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
            source_address=(CLIENT, 0),
            open_timeout=10,
        ) as socket:
            socket.recv(timeout=10)
    text = log.read_text()
    assert '"level": "debug"' in text  # DEBUG was on
    assert CLIENT not in text, [line for line in text.splitlines() if CLIENT in line][:3]


@pytest.mark.django_db
def test_a_spoofed_host_is_one_warning_line(anon, caplog):
    with caplog.at_level(logging.DEBUG, logger="django.security.DisallowedHost"):
        answer = anon.get("/api/auth/me/", HTTP_HOST="evil.example")
    assert answer.status_code == 400
    (record,) = [r for r in caplog.records if r.name == "django.security.DisallowedHost"]
    assert record.levelno == logging.WARNING and record.exc_info is None
    # As the stdout handler of settings.LOGGING writes it: one line, no traceback.
    (stdout,) = [
        h for h in logging.getLogger().handlers if isinstance(h.formatter, ProcessorFormatter)
    ]
    line = stdout.format(record)
    assert "\n" not in line and "Traceback" not in line, line
    said = json.loads(line)
    assert said["level"] == "warning" and "exception" not in said, said
    assert "evil.example" in said["event"]
