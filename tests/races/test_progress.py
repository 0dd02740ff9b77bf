"""A racer's action costs the race one Redis round trip after its answer (issue 38,
deliverable 1; ``races.progress``): the progress and the ladder kept, the entry
noted in the room, the gate tried and — open — the room's entries taken and its
view marked as moved on, all in one script. It cost 4 to 7 one after another
(a ladder read and write, a progress write, the note, the take, the mark). The
action that opens the gate (at most two a second a room) reads the field's kept
progress too, once, for the frame's places (issue 40).

Service-level: the action through ``games.services.attempt_apply_action`` inside
``answers_first`` as the game socket runs it; what it left for after the answer
run under Redis's ``MONITOR``."""

from __future__ import annotations

import datetime as dt
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import redis
from django.conf import settings
from django.core.cache import cache

from accounts.models import User
from games.services import attempt_apply_action
from kit.commits import answers_first, run_all
from races import progress, services
from races.selectors import LADDER_KEY, PROGRESS_KEY, SENT_KEY
from tests.support.api import requires_redis
from tests.support.search import winning_line

pytestmark = [requires_redis, pytest.mark.django_db(transaction=True)]

CODE = "SH1-C4-AAAAAAE"


@contextmanager
def commands() -> Iterator[list[str]]:
    """Every command our clients sent Redis (on this test's database) while inside:
    each a round trip, or part of one pipeline — not those a script ran."""
    seen: list[str] = []
    client = redis.Redis.from_url(settings.REDIS_URL)
    db = client.connection_pool.connection_kwargs.get("db", 0)
    start, end = f"start-{secrets.token_hex(4)}", f"end-{secrets.token_hex(4)}"
    ready = threading.Event()

    def watch() -> None:
        with client.monitor() as monitor:
            client.echo(start)
            for command in monitor.listen():
                said = command["command"]
                if said == f"ECHO {start}":
                    ready.set()
                elif said == f"ECHO {end}":
                    return
                elif ready.is_set() and command["db"] == db and command["client_type"] != "lua":
                    seen.append(said)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    assert ready.wait(10)
    try:
        yield seen
    finally:
        client.echo(end)
        watcher.join(10)


def _race_started(make_player: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[User, int, str]:
    host, rival = make_player(), make_player()
    slug = host.send("/api/races/", {"code": CODE}).json()["id"]
    assert rival.send(f"/api/races/{slug}/join/").status_code == 200
    monkeypatch.setattr(services, "COUNTDOWN", dt.timedelta(0))
    assert host.send(f"/api/races/{slug}/start/").status_code == 200
    attempt = host.get(f"/api/races/{slug}/").json()["you"]["attempt"]
    return User.objects.get(username=host.username), int(attempt), slug


def _act(user: User, attempt: int, seq: int, move: dict[str, Any]) -> list[Any]:
    with answers_first() as waiting:
        attempt_apply_action(attempt_id=attempt, player=user, seq=seq, action=move)
    return waiting


def test_a_racers_action_costs_one_round_trip_after_its_answer(make_player, monkeypatch):
    user, attempt, slug = _race_started(make_player, monkeypatch)
    line = winning_line(CODE)
    # The room's gate held longer than the test: the first action opens it, the next
    # two find it shut, and the trailing frame's timer (GATE_MS on) cannot send its
    # own commands into a later action's window on a slow machine.
    monkeypatch.setattr(progress, "GATE_MS", 60_000)
    # Loaded as any daphne has it after its first race action (else a first NOSCRIPT).
    redis.Redis.from_url(settings.REDIS_URL).script_load(progress._RedisRooms.NOTE)

    for seq, move in enumerate(line[:3]):
        waiting = _act(user, attempt, seq, move)
        with commands() as seen:
            run_all(waiting)
        race = [c for c in seen if "race:" in c]
        assert race[0].startswith(("EVALSHA", "EVAL ")), seen
        if seq == 0:
            # The gate opened: the frame's places read the field's progress kept —
            # of those who moved (the rival has not: nothing to read of theirs).
            assert race[1:] == [f"MGET :1:race:progress:{attempt}"], seen
        else:
            assert len(race) == 1, seen

    # What the script wrote reads back through the cache as every reader reads it.
    shown = cache.get(PROGRESS_KEY.format(attempt))
    assert shown["moves"] == 3 and "home_ms" in shown
    assert cache.get(LADDER_KEY.format(attempt))["seq"] == 3
    assert cache.get(SENT_KEY.format(slug)).isdigit()


def test_the_trailing_frame_gives_its_database_connection_back(make_player, monkeypatch):
    """The trailing frame is sent from a timer's thread of its own, and its places
    read the database: the connection that read opened goes back as the thread
    ends. It did not, once — a thread a trailing frame — and the browser tests'
    server ran out of pooled connections (503) a few races on."""
    from django.db import connection

    user, attempt, slug = _race_started(make_player, monkeypatch)
    line = winning_line(CODE)
    monkeypatch.setattr(progress, "GATE_MS", 60_000)  # no timer of the room's own fires
    for seq, move in enumerate(line[:2]):  # the first opens the gate; the second waits
        run_all(_act(user, attempt, seq, move))
    redis.Redis.from_url(settings.REDIS_URL).delete(f"race:gate:{slug}")  # its time is up

    held: list[Any] = []

    def trailing() -> None:
        progress._later(slug)
        held.append(connection.connection)

    thread = threading.Thread(target=trailing)
    thread.start()
    thread.join(30)
    assert held == [None]
