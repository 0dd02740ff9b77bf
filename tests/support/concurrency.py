"""Calls made at the same moment: each on a thread of its own (and so on a
database connection of its own, closed after), all released together by a
barrier, as two requests or two job runs meet in production."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection


def at_once(calls: list[Callable[[], Any]], *, timeout: float = 30) -> list[Any]:
    """Run each call on its own thread, all released together; their results, in
    order. Every thread must end within ``timeout`` seconds, and an exception
    raised by a call fails the test here, naming what each call gave."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)
    raised: list[BaseException] = []

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = calls[index]()
        except BaseException as exc:  # reported by the assertion below
            results[index] = exc
            raised.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    assert not any(thread.is_alive() for thread in threads), f"a call ran past {timeout} s"
    assert not raised, results
    return results
