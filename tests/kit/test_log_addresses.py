"""Logs keep no full client address (issues 28 and 37, privacy): every line,
rendered by the real logging setup (``settings.LOGGING``, kit/logs.py) — the
fair-play review's flagged line, a structlog line with an address in its
context, a library's line through the standard library (daphne's warning that
names a connection on another loopback address among them), a traceback, a
Python warning — holds each IP address as its network only (IPv4 /24, IPv6
/48); only where a server listens stays as written. Lines are captured from a
process configured as production is (JSON on stdout). nginx's error log is
masked by ``deploy/nginx-mask.sed``, which masks as ``mask_text`` does."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kit.logs import mask_text
from tests.support.env import SECRETS, settings_in_subprocess

FULL = (
    "203.0.113.77",
    "198.51.100.23",
    "2001:db8:abcd:12:1:2:3:4",
    "192.0.2.9",
    "2001:db8:abcd:12",
    "127.0.20.2",
    "127.0.20.3",
)
MASK_SED = Path(__file__).resolve().parents[2] / "deploy" / "nginx-mask.sed"

LOG_LINES = """
import django, logging
django.setup()
from games.fairplay import Thresholds, flag_reasons, log_flagged
from kit.logs import get_logger, bind
signals = {"same_address_accounts": 3, "address": "203.0.113.77"}
reasons = flag_reasons(signals, Thresholds.from_settings())
assert [r["code"] for r in reasons] == ["shared_address"], reasons
log_flagged(attempt_id=7, username="alice", reasons=reasons)
bind(peer="2001:db8:abcd:12:1:2:3:4")
get_logger("games.actions").info("action", outcome="accepted", seen="[::ffff:192.0.2.9]:443")
logging.getLogger("daphne.server").warning("peer 198.51.100.23:5555 closed at 12:04:05")
logging.getLogger("daphne.server").warning(
    "Application instance %r for connection %s took too long to shut down and was killed.",
    "<Task pending>", "<WebSocketProtocol client=['127.0.20.2', 43101] path=b'/ws/'>",
)
import warnings
warnings.warn("unclosed <socket laddr=('127.0.0.1', 8000), raddr=('127.0.20.3', 41000)>")
try:
    raise ValueError("refused from 198.51.100.23")
except ValueError:
    logging.getLogger("django.request").exception("failed for 203.0.113.77")
pass;"""  # settings_in_subprocess writes its print after it, on this line


def test_the_real_logging_setup_logs_no_full_address():
    out = settings_in_subprocess(SECRETS, "'done'", LOG_LINES)
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    events = [json.loads(line) for line in lines]
    assert len(events) == 6, out.stdout
    for line in lines:
        for full in FULL:
            assert full not in line, line
    flagged, action, daphne, killed, warned, failure = events
    assert flagged["logger"] == "games.fairplay"
    assert flagged["event"] == (
        "attempt 7 (alice) flagged for review: 3 accounts played this daily from "
        "203.0.113.0/24 (flagged from 3)"
    )
    assert action["peer"] == "2001:db8:abcd::/48" and action["seen"] == "[192.0.2.0/24]:443"
    assert action["outcome"] == "accepted"
    assert daphne["event"] == "peer 198.51.100.0/24:5555 closed at 12:04:05"  # the clock kept
    assert "<WebSocketProtocol client=['127.0.20.0/24', 43101] path=b'/ws/'>" in killed["event"]
    assert warned["logger"] == "py.warnings"  # not printed to stderr as it is
    assert "laddr=('127.0.0.1', 8000), raddr=('127.0.20.0/24', 41000)" in warned["event"]
    assert failure["event"] == "failed for 203.0.113.0/24"
    assert "refused from 198.51.100.0/24" in failure["exception"]
    assert "ValueError" in failure["exception"]
    for event in events:  # the timestamps as written
        assert len(event["timestamp"]) >= 20 and event["timestamp"][10] == "T", event


@pytest.mark.parametrize(
    "text",
    [
        "2026-12-04T20:44:56.123456Z",
        "3:12 · 98 moves (par 87)",
        "version 1.2.3 and 1.2.3.4.5",
        "SH1-C4 t3 → f1, seq 12:1",
        "ratio 1:2:3",
        "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ],
)
def test_what_is_no_address_is_left_as_written(text):
    assert mask_text(text) == text


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("from 10.1.2.3.", "from 10.1.2.0/24."),
        ("fe80::1 and 2001:db8::7", "fe80::/48 and 2001:db8::/48"),
        ("x=10.0.0.1,y=8.8.8.8", "x=10.0.0.0/24,y=8.8.8.0/24"),
        ("::ffff:198.51.100.7 came", "198.51.100.0/24 came"),
        # Another loopback address is a client's (issue 37): a tester's on 127.0.20.2.
        ("client=['127.0.20.2', 43101]", "client=['127.0.20.0/24', 43101]"),
        ("from 127.0.0.2 and ::2", "from 127.0.0.0/24 and ::/48"),
    ],
)
def test_an_address_becomes_its_network(text, masked):
    assert mask_text(text) == masked


@pytest.mark.parametrize(
    "text",
    [
        "Listening on TCP address 127.0.0.1:8000",  # daphne's start, as an operator reads it
        "interface=0.0.0.0",
        "bound to [::1]:8000 and :: too",
    ],
)
def test_where_a_server_listens_is_left_as_written(text):
    assert mask_text(text) == text


NGINX_LINES = [
    # nginx's error lines as it writes them (a client's, then its upstream's)
    "2026/12/04 20:44:56 [error] 7#7: *1 client intended to send too large body: 70000 bytes, "
    'client: 203.0.113.77, server: , request: "POST /api/auth/login/ HTTP/1.1", host: "x"',
    "2026/12/04 20:44:56 [error] 7#7: *2 connect() failed (111: Connection refused) while "
    "connecting to upstream, client: 2001:db8:abcd:12:1:2:3:4, server: , "
    'upstream: "http://172.18.0.5:8000/livez", host: "[2001:db8::7]:8080"',
    "2026/12/04 20:44:57 [info] 7#7: *3 client 127.0.20.2 closed keepalive connection",
    "client: 2001:db8:abcd:12::4, x fe80::1 and 2001:db8::7 y [::ffff:192.0.2.9]:443",
    "x=10.0.0.1,y=8.8.8.8 z 1.2.3.4,5.6.7.8 from 10.1.2.3.",
    "a 2001:db8:abcd:12:1:2:3:4,2001:db8:abcd:13:1:2:3:4 b",
    "2026/12/04 20:44:58 [notice] 1#1: listening on 127.0.0.1:80, 0.0.0.0:80, [::1]:80 and [::]:80",
    "version 1.2.3 and 1.2.3.4.5, 999.1.1.1, 01.2.3.4, ratio 1:2:3, 12:04:05, seq 12:1",
]


def nginx_masked(lines: list[str]) -> list[str]:
    out = subprocess.run(
        ["sed", "-u", "-E", "-f", str(MASK_SED)],
        input="".join(f"{line}\n" for line in lines),
        capture_output=True,
        text=True,
        check=True,
        timeout=10,
    )
    return out.stdout.splitlines()


def test_nginx_error_log_is_masked_as_every_other_line():
    masked = nginx_masked(NGINX_LINES)
    assert masked == [mask_text(line) for line in NGINX_LINES]
    assert masked[0].endswith(
        'client: 203.0.113.0/24, server: , request: "POST /api/auth/login/ HTTP/1.1", host: "x"'
    )
    assert "client: 2001:db8:abcd::/48," in masked[1] and "172.18.0.0/24:8000" in masked[1]
    assert masked[2].endswith("client 127.0.20.0/24 closed keepalive connection")
    assert masked[6] == NGINX_LINES[6] and masked[7] == NGINX_LINES[7]  # nothing to mask
    for line in masked[:6]:
        for full in (*FULL, "172.18.0.5", "10.0.0.1", "8.8.8.8", "1.2.3.4"):
            assert full not in line, line


def test_nginx_error_log_keeps_no_query_string():
    line = (
        "2026/12/04 20:44:56 [error] 7#7: *1 upstream timed out, client: 203.0.113.77, request: "
        '"GET /reset/?token=abc HTTP/1.1", upstream: "http://172.18.0.5:8000/reset/?token=abc", '
        'referrer: "http://x/reset/?token=abc"'
    )
    assert nginx_masked([line]) == [
        "2026/12/04 20:44:56 [error] 7#7: *1 upstream timed out, client: 203.0.113.0/24, request: "
        '"GET /reset/ HTTP/1.1", upstream: "http://172.18.0.0/24:8000/reset/", '
        'referrer: "http://x/reset/"'
    ]
