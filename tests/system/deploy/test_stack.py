"""``make stack`` (``python -m deploy.stack``) restarts a process that dies, as
compose's ``restart: unless-stopped`` does, instead of stopping the whole set
(issue 17, deliverable 10); Ctrl-C or SIGTERM still stops everything.

The real command as a subprocess, in a session of its own (so every process it
starts is in its process group): a daphne and the Celery worker are killed with
SIGKILL; the daphne answers on its port again and the worker started in its
place runs a replay check; then SIGTERM stops the stack, which leaves no
process and drops its database."""

from __future__ import annotations

import os
import secrets
import shutil
import signal

import pytest

from deploy.client import Client
from deploy.processes import admin_sql
from tests.support.api import requires_postgres
from tests.support.stack import fresh_database, group_alive, make_stack, two_free_ports
from tests.support.waiting import wait_for

pytestmark = [
    requires_postgres,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server"),
]

UP = 300.0  # migrate and prepare_dailies on a fresh database, on a busy machine
WAIT = 60.0  # every other bounded wait


def healthy(port: int) -> bool:
    try:
        return Client(port, keep_alive=False, timeout=5).request("GET", "/healthz").status == 200
    except OSError:
        return False


def test_make_stack_starts_a_killed_daphne_and_worker_again_and_stops_cleanly() -> None:
    database = fresh_database("stack")
    port = two_free_ports()
    with make_stack(database, port) as (stack, output):

        def said() -> str:
            return output.text

        wait_for(lambda: "Ctrl-C stops them all." in output.text, "the stack", UP, said)
        daphne = output.find(rf"^daphne 1: +http://127\.0\.0\.1:{port}/ \(pid (\d+)\)$")
        worker = output.find(r"^worker: +pid (\d+)$")
        assert daphne and worker, output.text
        player = Client(port + 1)
        player.sign_up(f"stack{secrets.token_hex(3)}", "a long passphrase here")

        os.kill(int(daphne.group(1)), signal.SIGKILL)
        os.kill(int(worker.group(1)), signal.SIGKILL)

        again = r"^\S+ {} started again \(pid (\d+)\)$"
        new_daphne = wait_for(lambda: output.find(again.format("daphne 1")), "daphne 1", WAIT, said)
        wait_for(lambda: output.find(again.format("worker")), "a worker", WAIT, said)
        assert new_daphne.group(1) != daphne.group(1)
        wait_for(lambda: healthy(port), "daphne 1 to answer /healthz again", WAIT, said)
        assert stack.poll() is None  # the rest of the set ran on

        # The restarted worker runs the replay check that a finished game queues.
        at_first = player.at(port)
        game = at_first.expect("POST", "/api/games/", {"random": "SH1-C4"}, status=201)
        at_first.expect("POST", f"/api/games/{game['id']}/resign/")
        wait_for(
            lambda: at_first.expect("GET", f"/api/games/{game['id']}/")["verified"] is True,
            "the restarted worker to check the resigned game",
            WAIT,
            said,
        )
        player.close()
        at_first.close()

        stack.send_signal(signal.SIGTERM)
        assert stack.wait(timeout=WAIT) == 0, output.text
        wait_for(lambda: not group_alive(stack.pid), "every process to stop", 20, said)
        assert not admin_sql(f"SELECT 1 FROM pg_database WHERE datname = '{database}'")
