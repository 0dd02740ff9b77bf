"""Dead-end proofs leave a process together (issue 38): the actions that reach a
tight position within ``PROOF_BATCH_S`` cost their doors a set insertion; one
Redis round trip marks the batch pending and one job carries it to the heavy
queue, where a real worker proves each. Before, each such action made a cache
round trip and sent a Celery message of its own (13.9 % of daphne's CPU a
websocket action in ``make bench-cost``, py-spy)."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import pytest
import redis
from django.conf import settings

from deploy.processes import QUEUES
from games import proofs
from games.models import Attempt
from tests.support.api import act, requires_postgres, requires_redis, start
from tests.support.celery_worker import real_broker, workers
from tests.support.search import lost_deal

pytestmark = [requires_postgres, requires_redis, pytest.mark.django_db(transaction=True)]


def heavy_jobs(broker: redis.Redis) -> list[tuple[str, list]]:
    """The tasks waiting on the heavy queue: (name, args)."""
    found = []
    for raw in broker.lrange("heavy", 0, -1):
        message = json.loads(raw)
        args, _, _ = json.loads(base64.b64decode(message["body"]))
        found.append((message["headers"]["task"], args))
    return found


def sent(batch: float) -> None:
    """Until the process's wanted proofs are on the broker (the batch's timer ran
    and its job was sent: a loaded machine once read the queue in between)."""
    deadline = time.monotonic() + batch + 20
    while not proofs.PROOFS.idle():
        assert time.monotonic() < deadline, "the proofs were never sent"
        time.sleep(0.05)


def test_proofs_wanted_together_leave_as_one_job_a_worker_proves(
    make_player, tmp_path: Path, monkeypatch
):
    # A window no three actions can overrun on a loaded machine (0.25 s by default).
    monkeypatch.setattr(proofs, "PROOF_BATCH_S", 3.0)
    code, move = lost_deal()
    players = [make_player() for _ in range(3)]
    games = [start(p, code=code) for p in players]
    broker = redis.Redis.from_url(settings.REDIS_URL)
    with real_broker(), workers(tmp_path) as start_worker:
        for player, game in zip(players, games, strict=True):
            assert act(player, game["id"], 0, move.to_json()).status_code == 200
        sent(proofs.PROOF_BATCH_S)
        ids = sorted(g["id"] for g in games)
        assert heavy_jobs(broker) == [("games.tasks.prove_lost_each", [ids])]
        # Pending: a later action of theirs in a tight spot queues nothing more.
        undo, again = {"type": "undo"}, move.to_json()
        assert act(players[0], games[0]["id"], 1, undo).status_code == 200
        assert act(players[0], games[0]["id"], 2, again).status_code == 200
        sent(proofs.PROOF_BATCH_S)
        assert len(heavy_jobs(broker)) == 1

        start_worker("--pool", "solo", queues=QUEUES["heavy"])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            lost = dict(Attempt.objects.filter(pk__in=ids).values_list("pk", "lost_seq"))
            if all(lost.values()):
                break
            time.sleep(0.2)
        # The first game's proof ran on its position then: after its third action.
        assert lost == {games[0]["id"]: 3, games[1]["id"]: 1, games[2]["id"]: 1}
        for player, game in zip(players, games, strict=True):
            assert player.get(f"/api/games/{game['id']}/").json()["unwinnable"] is True
