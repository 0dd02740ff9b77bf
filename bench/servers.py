"""What the benchmarks share: a scratch PostgreSQL database, real daphne
processes, free ports, percentiles. (Run from the repo root: ``python bench/X.py``.)"""

from __future__ import annotations

import http.client
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = ROOT / ".venv" / "bin"
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


def answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def admin_sql(sql: str) -> Any:
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        cursor = conn.execute(sql)
        return cursor.fetchall() if cursor.description else None


def drop_database(name: str) -> None:
    # FORCE (PostgreSQL 13+) ends connections a killed server may have left open.
    admin_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def create_database(name: str) -> str:
    """A fresh, empty database ``name``; returns the server's version string."""
    drop_database(name)
    admin_sql(f"CREATE DATABASE {name}")
    return str(admin_sql("SELECT version()")[0][0])


def wait_until_up(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    limit = time.monotonic() + 30
    while time.monotonic() < limit:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited ({process.returncode}):\n{log.read_text()[-3000:]}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/api/auth/me/")
            if conn.getresponse().status == 200:
                conn.close()
                return
            conn.close()
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"daphne did not answer within 30 s:\n{log.read_text()[-3000:]}")


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM to all at once (daphne may wait up to 10 s for its sockets), then kill."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    limit = time.monotonic() + 15
    for process in processes:
        try:
            process.wait(timeout=max(0.1, limit - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
