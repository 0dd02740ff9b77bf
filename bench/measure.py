"""What the benchmarks share to report their figures: percentiles, the
machine's name, and the Celery work still queued on a stack's broker."""

from __future__ import annotations

import asyncio
import os
import platform
import time

import redis

from deploy.processes import QUEUES


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


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


BROKER_QUEUES = tuple(q for queues in QUEUES.values() for q in queues.split(","))
"""Every queue the stack's workers take (issue 38's split: interactive, celery,
heavy, fairplay)."""


def queued(client: redis.Redis, queues: tuple[str, ...] = BROKER_QUEUES) -> int:
    """Celery tasks waiting in Redis on ``queues`` or taken by any worker and not
    yet acknowledged."""
    return sum(int(client.llen(q)) for q in queues) + int(client.hlen("unacked"))


async def drain(client: redis.Redis, limit_s: float = 60.0) -> tuple[float, int]:
    """Wait until every queue is empty and no task is running, at most ``limit_s``:
    (seconds waited, tasks still queued or running then)."""
    began = time.monotonic()
    while time.monotonic() - began < limit_s:
        if queued(client) == 0:
            await asyncio.sleep(0.3)  # the last task's writes
            if queued(client) == 0:
                return time.monotonic() - began, 0
        await asyncio.sleep(0.2)
    return time.monotonic() - began, queued(client)
