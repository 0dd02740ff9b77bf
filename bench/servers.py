"""What the benchmarks (and the tests that start real servers) share: a scratch
PostgreSQL database, migrating it, real daphne processes, free ports,
percentiles, the machine's name. (Run from the repo root: ``python bench/X.py``;
tests import it as ``bench.servers``.)"""

from __future__ import annotations

import http.client
import os
import platform
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parents[1]
DAPHNE = str(Path(sys.executable).parent / "daphne")  # the venv running this
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


def migrate(env: dict[str, str]) -> None:
    """Run the migrations with ``env`` (its DATABASE_URL names the database)."""
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )


def start_daphne(port: int, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """One daphne on 127.0.0.1:``port`` with ``env``, its output appended to ``log``."""
    with log.open("ab") as out:
        return subprocess.Popen(
            [DAPHNE, "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} CPU(s), {platform.system()} {platform.release()}"


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
