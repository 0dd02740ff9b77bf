"""The ack first (issue 38): what an action's commit asks of Redis or the
broker — a job queued (the replay check of a finished game), a dead-end proof,
a race's progress — runs after the socket's answer is sent, never before it;
and it still runs, once, after it."""

from __future__ import annotations

import threading

import pytest
from django.db import transaction

from games import tasks
from kit.commits import after_commit, answers_first, run_all
from tests.support.sockets import new_player, socket_for, start

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.asyncio
async def test_a_resignation_is_acked_before_its_replay_check_is_queued(make_player, monkeypatch):
    client = await new_player(make_player)
    game = await start(client, code="SH1-C4-AAAAAJ2")
    released, queued = threading.Event(), []

    def slow_delay(attempt_id: int, *args: object) -> None:
        # The broker held up: the work waits until the test has its ack (or 5 s).
        released.wait(5)
        queued.append((attempt_id, released.is_set()))

    monkeypatch.setattr(tasks.verify_attempt, "delay", slow_delay)
    sock = socket_for(f"/ws/games/{game['id']}/", client)
    connected, _ = await sock.connect()
    assert connected
    assert (await sock.recv())["type"] == "snapshot"
    await sock.send({"type": "resign"})
    reply = await sock.recv(timeout=3)  # before the fix: the ack waited behind the queue
    assert reply["type"] == "ack" and reply["game"]["status"] == "resigned"
    assert queued == []  # not yet: held up after the answer, not before it
    released.set()
    for _ in range(50):
        if queued:
            break
        await sock.receive_nothing(timeout=0.1)
    assert queued == [(game["id"], True)]  # queued once, after the ack
    await sock.disconnect()


def test_work_after_the_answer_waits_for_the_door_and_is_never_run_for_a_rollback(db):
    ran: list[str] = []
    with answers_first() as waiting:
        with transaction.atomic():
            after_commit(lambda: ran.append("broadcast"))  # at the commit, as ever
            after_commit(lambda: ran.append("queued"), after_answer=True)
        with pytest.raises(RuntimeError), transaction.atomic():
            after_commit(lambda: ran.append("rolled back"), after_answer=True)
            raise RuntimeError
    assert ran == ["broadcast"] and len(waiting) == 1
    run_all(waiting)
    assert ran == ["broadcast", "queued"]
    # No door asking: the work runs at the commit.
    with transaction.atomic():
        after_commit(lambda: ran.append("at once"), after_answer=True)
    assert ran[-1] == "at once"
