"""The one bounded wait of the tests that drive real processes: ask again every
0.1 s until the answer is truthy, or fail after ``timeout`` seconds saying what
was awaited (and, with ``said``, what the processes printed). No test passes or
fails on how long something took: the bound only stops a test that would hang."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(
    predicate: Callable[[], T],
    what: str,
    timeout: float = 60.0,
    said: Callable[[], str] | None = None,
) -> T:
    """The first truthy answer of ``predicate``."""
    deadline = time.monotonic() + timeout
    while True:
        found = predicate()
        if found:
            return found
        if time.monotonic() >= deadline:
            detail = f"; it printed:\n{said()}" if said is not None else ""
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}{detail}")
        time.sleep(0.1)
