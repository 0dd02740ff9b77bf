"""Logs keep no full client address (issue 28, privacy): every line, rendered by
the real logging setup (``settings.LOGGING``, kit/logs.py) — the fair-play
review's flagged line, a structlog line with an address in its context, a
library's line through the standard library, a traceback — holds each IP
address as its network only (IPv4 /24, IPv6 /48). Lines are captured from a
process configured as production is (JSON on stdout)."""

from __future__ import annotations

import json

import pytest

from kit.logs import mask_text
from tests.support.env import SECRETS, settings_in_subprocess

FULL = (
    "203.0.113.77",
    "198.51.100.23",
    "2001:db8:abcd:12:1:2:3:4",
    "192.0.2.9",
    "2001:db8:abcd:12",
)

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
    assert len(events) == 4, out.stdout
    for line in lines:
        for full in FULL:
            assert full not in line, line
    flagged, action, daphne, failure = events
    assert flagged["logger"] == "games.fairplay"
    assert flagged["event"] == (
        "attempt 7 (alice) flagged for review: 3 accounts played this daily from "
        "203.0.113.0/24 (flagged from 3)"
    )
    assert action["peer"] == "2001:db8:abcd::/48" and action["seen"] == "[192.0.2.0/24]:443"
    assert action["outcome"] == "accepted"
    assert daphne["event"] == "peer 198.51.100.0/24:5555 closed at 12:04:05"  # the clock kept
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
