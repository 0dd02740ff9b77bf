"""What the metrics add to one action (a benchmark, not a test).

    python bench/metrics.py

Times, with ``time.perf_counter_ns`` over many repetitions, exactly what an
action now does more at its door (``games.metrics.ActionMeter``): the meter
made, the answer counted (a counter and a histogram), in both modes —
prometheus-client's multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``, as in
production: each write goes to a memory-mapped file) and in-process (``make
run``). Also a refusal (its reason's child looked up) and a websocket opened
and closed. Median and 99th percentile per row, in microseconds.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPEAT = 20_000


def measure() -> None:
    """In a process whose environment chose the mode before prometheus-client loaded."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DEBUG", "1")
    # The meter also writes the action's log line: filtered out here (INFO under
    # WARNING), so the figures are the metrics' own.
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from bench.measure import percentile
    from games import metrics
    from kit import metrics as kit_metrics

    def accepted() -> None:
        with metrics.ActionMeter("websocket", 1):
            pass

    def refused() -> None:
        metrics.ActionMeter("http", 1).answered(422, "not_allowed")

    def socket() -> None:
        kit_metrics.socket_opened("game")
        kit_metrics.socket_closed("game")

    mode = "multiprocess" if os.environ.get("PROMETHEUS_MULTIPROC_DIR") else "in-process"
    for name, step in (
        ("accepted action", accepted),
        ("refused action", refused),
        ("socket", socket),
    ):
        for _ in range(1000):  # warm: children made, files mapped
            step()
        samples = []
        for _ in range(REPEAT):
            start = time.perf_counter_ns()
            step()
            samples.append((time.perf_counter_ns() - start) / 1000)
        print(
            f"{mode:<13} {name:<16} median {statistics.median(samples):6.2f} µs"
            f"   p99 {percentile(samples, 0.99):6.2f} µs"
        )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--measure":
        measure()
        return
    with tempfile.TemporaryDirectory(prefix="metrics-") as directory:
        for extra in ({"PROMETHEUS_MULTIPROC_DIR": directory}, {}):
            env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
            subprocess.run(
                [sys.executable, __file__, "--measure"], env={**env, **extra}, check=True
            )


if __name__ == "__main__":
    main()
