"""Issue 38, deliverable 4: a crowd of spectators opening a race room's socket at
once all get in while the actions' threads are all busy (the openings' reads run
on threads of their own, ``kit.sockets.connect_sync_to_async``), and the race is
built once per room version between them (``races.realtime.race_event_kept``).
Also: ``bench/race.py`` fails a run whose sockets did not all open."""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import datetime as dt
import threading
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from bench import race as bench_race
from kit import sockets as kit_sockets
from races import realtime, services
from tests.support.api import act
from tests.support.search import winning_line
from tests.support.sockets import Socket, new_player, socket_for

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

CODE = "SH1-C4-AAAAAAE"
CROWD = 100


def send(client: Any, path: str, body: Any = None, status: int = 200) -> dict[str, Any]:
    response = client.send(path, body)
    assert response.status_code == status, response.content
    return response.json()


@pytest.fixture(autouse=True)
def _fresh_budgets():
    kit_sockets.FRAMES.forget()


@pytest.fixture
def builds(monkeypatch) -> list[int]:
    """The versions of every race view built."""
    built: list[int] = []
    view = realtime.race_view

    def counted(race: Any) -> Any:
        made = view(race)
        built.append(made.race["version"])
        return made

    monkeypatch.setattr(realtime, "race_view", counted)
    return built


async def crowd(slug: str, n: int) -> list[Socket]:
    socks = [socket_for(f"/ws/races/{slug}/") for _ in range(n)]
    opened = await asyncio.gather(*(sock.connect(timeout=8) for sock in socks))
    assert all(ok for ok, _ in opened)
    return socks


async def test_a_crowd_of_spectators_opens_while_the_actions_threads_are_busy(make_player, builds):
    host, rival = await new_player(make_player), await new_player(make_player)
    slug = (await sync_to_async(send)(host, "/api/races/", {"code": CODE}, 201))["id"]
    # Every thread actions run on (the loop's default pool) held, as by a flood of them.
    loop = asyncio.get_running_loop()
    busy = concurrent.futures.ThreadPoolExecutor(2)
    loop.set_default_executor(busy)
    gate = threading.Event()
    held = [loop.run_in_executor(None, gate.wait, 30) for _ in range(2)]
    socks: list[Socket] = []
    try:
        socks += await crowd(slug, CROWD)
        firsts = await asyncio.gather(*(sock.recv(timeout=5) for sock in socks))
        assert {(m["type"], m["v"]) for m in firsts} == {("race", 0)}
    finally:
        gate.set()
        await asyncio.gather(*held)
    assert builds == [0]  # one build for the hundred

    # A change: built once as it is announced, and the next crowd takes that one.
    await sync_to_async(send)(rival, f"/api/races/{slug}/join/")
    for sock in socks[:3]:
        assert (await sock.recv(timeout=5))["v"] == 1
    more = await crowd(slug, CROWD // 2)
    firsts = await asyncio.gather(*(sock.recv(timeout=5) for sock in more))
    assert {(m["type"], m["v"]) for m in firsts} == {("race", 1)}
    assert [m["race"]["racers"][-1]["player"] for m in firsts[:1]] == [rival.username]
    assert builds == [0, 1]
    await asyncio.gather(*(sock.disconnect() for sock in [*socks, *more]))


async def test_a_running_race_is_built_again_after_a_progress_frame(
    make_player, builds, monkeypatch
):
    """While a race runs its racers' progress moves without a room change: a view
    kept from before the room's last ``progress`` frame is built again, and a
    socket opening after a racer's last move shows that move (CI once saw a
    reconnect show 0 moves when the view was kept for a second)."""
    host, rival = await new_player(make_player), await new_player(make_player)
    slug = (await sync_to_async(send)(host, "/api/races/", {"code": CODE}, 201))["id"]
    await sync_to_async(send)(rival, f"/api/races/{slug}/join/")
    socks = await crowd(slug, 1)
    monkeypatch.setattr(services, "COUNTDOWN", dt.timedelta(0))
    await sync_to_async(send)(host, f"/api/races/{slug}/start/")
    start = await socks[0].until(lambda m: m["type"] == "race" and m["race"]["status"] == "running")
    built = len(builds)
    socks += await crowd(slug, 2)
    assert len(builds) == built  # the start's own build, kept
    attempt = (await sync_to_async(host.get)(f"/api/races/{slug}/")).json()["you"]["attempt"]
    move = winning_line(CODE)[0]
    assert (await sync_to_async(act)(host, attempt, 0, move)).status_code == 200
    await socks[0].until(lambda m: m["type"] == "progress")
    late = (await crowd(slug, 1))[0]
    first = await late.recv(timeout=5)
    assert len(builds) == built + 1 and first["v"] == start["v"]
    shown = next(r for r in first["race"]["racers"] if r["player"] == host.username)
    assert shown["progress"]["moves"] == 1
    await asyncio.gather(*(sock.disconnect() for sock in [*socks, late]))


class _Racer:
    def __init__(self, connected: bool, failed: str = "") -> None:
        self.connected, self.failed = connected, failed


async def test_the_race_bench_fails_when_sockets_did_not_open():
    args = argparse.Namespace(spectators=3)
    good = {
        "racers": [_Racer(True), _Racer(True)],
        "counts": [{"connected": 1, "progress": 4}] * 3,
        "latencies": [1.0],
    }
    assert bench_race.failures(args, good) == []
    no_spectators = {**good, "counts": [{"failed": 1}] * 3}
    problems = bench_race.failures(args, no_spectators)
    assert any("spectators: 0 of 3" in p for p in problems)
    assert any("fan-out 0" in p for p in problems)
    dropped = {**good, "racers": [_Racer(True), _Racer(False, "InvalidStatus: 503")]}
    assert any("1 of 2 opened" in p for p in bench_race.failures(args, dropped))
    assert bench_race.failures(args, {**good, "latencies": []}) == ["no action was acknowledged"]
