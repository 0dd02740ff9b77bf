"""``make bench-api`` runs out of the box (issue 17, deliverable 9): from a shell
with nothing set, for a handful of actions, it prints its figures, exits 0 and
leaves nothing behind — no process, no database. It has broken before without
anyone noticing (a setting production requires, its own rate limits, a shared
Redis database); this keeps it from rotting. It measures nothing here."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from deploy.processes import admin_sql
from tests.support.api import requires_postgres
from tests.support.stack import ROOT, group_alive

pytestmark = requires_postgres

NEWCOMER = ("PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR")
"""The environment a newcomer's shell passes on: none of the settings the tests set."""


def test_bench_api_runs_out_of_the_box_and_leaves_nothing_behind() -> None:
    env = {name: os.environ[name] for name in NEWCOMER if name in os.environ}
    bench = subprocess.Popen(
        [sys.executable, "bench/api.py", "--actions", "5"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its daphne and redis-server join its group
    )
    try:
        out, _ = bench.communicate(timeout=180)
        assert bench.returncode == 0, out
        assert "actions : 5 of 5 in" in out, out
        for line in ("server time", "round trip", "throughput:", "target server p99"):
            assert line in out, out
        assert not group_alive(bench.pid), "a process of the bench outlived it"
        database = f"patience_bench_{bench.pid}"
        assert not admin_sql(f"SELECT 1 FROM pg_database WHERE datname = '{database}'")
    finally:
        if group_alive(bench.pid):
            os.killpg(bench.pid, signal.SIGKILL)
