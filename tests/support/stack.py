"""The stack (``make stack``: ``python -m deploy.stack``) as a subprocess: the
checkout it runs from, two consecutive free ports for its two daphnes, its
output read as it comes, and whether its process group still has a process;
and ``deploy.stack.Stack`` in process, on a database of a test's own."""

from __future__ import annotations

import os
import random
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from deploy.processes import drop_database
from deploy.stack import Stack

ROOT = Path(__file__).resolve().parents[2]


def two_free_ports() -> int:
    """A port P such that P and P + 1 are free (``--port P`` with two daphnes),
    below the kernel's range of ephemeral ports: the stack binds them seconds
    after this pick (after its migrations), and a port from that range could be
    taken meanwhile as the local end of any connection the other test processes
    open (CI saw daphne's "Address already in use" once)."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    picks = random.Random()
    for _ in range(200):
        port = picks.randrange(max(1024, low - 12000), low - 2)
        with socket.socket() as first, socket.socket() as second:
            try:
                first.bind(("127.0.0.1", port))
                second.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
            return port
    raise RuntimeError("no two consecutive free ports")


class Output:
    """The stack's standard output, read line by line on a thread of its own."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        assert process.stdout is not None
        self.thread = threading.Thread(target=self._read, args=(process.stdout,), daemon=True)
        self.thread.start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.append(line.rstrip("\n"))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def find(self, pattern: str) -> re.Match[str] | None:
        return re.search(pattern, self.text, re.MULTILINE)


def group_alive(group: int) -> bool:
    """Whether process group ``group`` (the stack's session) still has a process."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def fresh_database(name: str) -> str:
    """A database name no other run uses: ``patience_<name>_<8 hex digits>``."""
    return f"patience_{name}_{secrets.token_hex(4)}"


def throwaway_stack(name: str, **options: Any) -> Stack:
    """A ``Stack`` on a fresh database (dropped on exit), with no days' deals
    queued at its start unless ``prepare=True``; ``options`` are the Stack's."""
    return Stack(database=fresh_database(name), **{"prepare": False, **options})


@contextmanager
def make_stack(database: str, port: int) -> Iterator[tuple[subprocess.Popen[str], Output]]:
    """``make stack`` (``python -m deploy.stack --fresh --drop``) on ``database``, its
    daphnes on ``port`` and ``port + 1``, in a session of its own (every process it
    starts is in its process group), its output read as it comes. On leaving, any
    process of the group still running is killed and the database dropped."""
    command = ["-m", "deploy.stack", "--database", database, "--fresh", "--drop"]
    stack = subprocess.Popen(
        [sys.executable, *command, "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        yield stack, Output(stack)
    finally:
        if group_alive(stack.pid):
            os.killpg(stack.pid, signal.SIGKILL)
            stack.wait(timeout=10)
        drop_database(database)
