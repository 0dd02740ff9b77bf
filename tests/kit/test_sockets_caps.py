"""The two stores of the websocket caps (kit/sockets.py, issue 25): Redis,
shared by every daphne, and the process's own on the embedded default."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from kit import sockets


@pytest.mark.parametrize("backend", ["in-process", "redis"])
def test_the_counts_take_renew_release_and_expire(backend, settings, monkeypatch):
    """Both stores of the caps (Redis across daphnes; in process without it)."""
    if backend == "redis" and not settings.REDIS_URL:
        pytest.skip("needs the real Redis")
    slots = sockets._LocalSlots() if backend == "in-process" else sockets._RedisSlots()
    caps = [("sockets:test:a", 2), ("sockets:test:b", 5)]
    for key, _ in caps:
        slots.release("x", [key])
    assert slots.take("one", caps) is None
    assert slots.take("two", caps) is None
    assert slots.take("three", caps) == "sockets:test:a"  # refused, and not counted
    slots.release("one", ["sockets:test:a", "sockets:test:b"])
    assert slots.take("three", caps) is None
    now = time.time()
    monkeypatch.setattr(sockets, "time", SimpleNamespace(time=lambda: now + 40))
    slots.renew("two", ["sockets:test:a", "sockets:test:b"])  # "three" is not renewed
    monkeypatch.setattr(sockets, "time", SimpleNamespace(time=lambda: now + 70))
    assert slots.take("four", caps) is None  # "three" has expired; "two" holds on
    assert slots.take("five", caps) == "sockets:test:a"
    slots.release("two", ["sockets:test:a", "sockets:test:b"])
    slots.release("four", ["sockets:test:a", "sockets:test:b"])
