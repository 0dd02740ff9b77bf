"""A request naming a host not in ``ALLOWED_HOSTS`` (issue 37): a 400 in the error
shape, ``bad_host``, on every path — the API, pages, the probes, the static files
(which were served to any Host) — and one warning line in the log, never Django's
HTML "Bad Request (400)" page; a websocket handshake naming one is refused, never
answered with a traceback (one without a Host header was)."""

from __future__ import annotations

import datetime as dt
import http.client
import json
import logging
import socket
from pathlib import Path

import pytest
from django.test import Client as DjangoClient

from config.asgi import application
from tests.support.api import assert_error
from tests.support.daphne import sqlite_daphne
from tests.support.sockets import Socket

STATIC = "/static/frontend/js/api.js"
PATHS = ("/api/auth/me/", "/api/games/1/", "/api/nope/", "/", "/nope/", "/healthz", STATIC)
EVIL = "evil.example"
BOARD = "/ws/leaderboard/2026-12-01/SH1-C4/"


def refused_host(response) -> None:
    """``response`` is 400 ``bad_host`` in the error shape."""
    assert response.status_code == 400, response.status_code  # a static file: 200, streamed
    error = assert_error(response, 400, "bad_host")
    assert "Host" in error["message"], error


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("path", PATHS)
def test_a_host_not_served_is_400_bad_host_on_every_path(method, path, caplog):
    client = DjangoClient()
    with caplog.at_level(logging.DEBUG, logger="django.security.DisallowedHost"):
        refused_host(getattr(client, method)(path, HTTP_HOST=EVIL))
    # Django's own log line, kept: one warning, no traceback (kit/logs.py).
    (record,) = [r for r in caplog.records if r.name == "django.security.DisallowedHost"]
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert EVIL in record.getMessage()


@pytest.mark.django_db
def test_a_host_served_still_gets_the_static_file_and_the_pages():
    client = DjangoClient()
    static = client.get(STATIC, HTTP_HOST="localhost")
    assert static.status_code == 200 and b"".join(static.streaming_content)
    assert client.get("/api/auth/me/", HTTP_HOST="localhost").status_code == 200


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "headers",
    [
        [(b"host", EVIL.encode()), (b"origin", f"http://{EVIL}".encode())],
        [(b"host", EVIL.encode()), (b"origin", b"http://localhost")],
        [(b"host", EVIL.encode()), (b"origin", b"https://trusted.example")],
        [(b"origin", b"http://localhost")],  # no Host: was a KeyError, a traceback
    ],
    ids=["its-own-origin", "our-origin", "a-trusted-origin", "no-host"],
)
async def test_a_socket_naming_a_host_not_served_is_refused_at_the_handshake(headers, settings):
    # A trusted origin does not make any Host good: Django's origin check alone took it.
    settings.CSRF_TRUSTED_ORIGINS = ["https://trusted.example"]
    sock = Socket(application, BOARD, headers=headers)
    connected, code = await sock.connect()
    assert (connected, code) == (False, 1000)  # refused during the handshake (HTTP 403)
    await sock.disconnect()


def _get(port: int, path: str, host: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers={"Host": host})  # in place of http.client's own
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


def _handshake(port: int, host: str | None, origin: str) -> int:
    """A websocket handshake as written on the wire (any Host, or none); its status."""
    lines = [f"GET /ws/leaderboard/{dt.datetime.now(dt.UTC).date()}/SH1-C4/ HTTP/1.1"]
    lines += [f"Host: {host}"] if host is not None else []
    lines += [
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13",
        f"Origin: {origin}",
    ]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        answer = b""
        while b"\r\n" not in answer and (chunk := conn.recv(4096)):
            answer += chunk
    return int(answer.split()[1])


def test_a_real_daphne_answers_a_host_not_served_with_the_error_shape(tmp_path: Path) -> None:
    with sqlite_daphne(tmp_path, LOG_LEVEL="INFO") as (port, log):
        good = f"127.0.0.1:{port}"
        assert _get(port, STATIC, good)[0] == 200
        for path in PATHS:
            status, body = _get(port, path, EVIL)
            assert status == 400, (path, status, body[:300])
            assert json.loads(body)["error"]["code"] == "bad_host", (path, body[:300])
        assert _handshake(port, good, f"http://{good}") == 101  # as a browser
        for host, origin in ((EVIL, f"http://{EVIL}"), (EVIL, f"http://{good}"), (None, good)):
            assert _handshake(port, host, origin) in (400, 403), (host, origin)
    text = log.read_text()
    assert "Traceback" not in text and '"status": 500' not in text, text[-3000:]
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    warned = [line for line in lines if line.get("logger") == "django.security.DisallowedHost"]
    assert len(warned) >= len(PATHS) + 2, text[-3000:]
    assert all(line["level"] == "warning" and "exception" not in line for line in warned)
