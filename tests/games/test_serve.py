"""``make run``'s server (``manage.py serve``, issue 39): its log's last line is
the address to open — once the server answers, and again once today's deals
are dealt. Before, a start with the deals already dealt ended on runserver's
banner, and a first start said the address only a minute later."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from deploy.processes import free_port, migrate, server_env

ROOT = Path(__file__).resolve().parents[2]


def serve_until_open(tmp_path: Path, database: str) -> list[str]:
    """``manage.py serve`` on ``database`` until its log names the address; its lines."""
    env = {**os.environ, **server_env(database, None), "DEBUG": "1"}
    env.pop("REDIS_URL", None)
    port = free_port()
    log = tmp_path / f"serve-{port}.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "serve", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 20  # dealing takes about a minute
            while time.monotonic() < deadline and "Open http" not in log.read_text():
                assert server.poll() is None, log.read_text()
                time.sleep(0.2)
            time.sleep(0.5)
            said = log.read_text()  # before the server is stopped (its own last words)
        finally:
            server.terminate()
            server.wait(timeout=10)
    return [line for line in said.splitlines() if line.strip()]


def test_the_log_ends_with_the_address_to_open(tmp_path):
    database = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    migrate(server_env(database, None))
    lines = serve_until_open(tmp_path, database)
    assert lines[-1].startswith("Open http://127.0.0.1:"), lines[-3:]
