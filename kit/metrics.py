"""What every part of the service counts, for Prometheus (docs/operations.md, "Metrics"):
the generic figures — websockets open, broadcasts the channel layer refused,
Celery tasks' runtimes — and the helpers an app's own figures are written with
(``never_raises``). Each app declares its own figures beside its code
(``games/metrics.py``: actions, refusals, the daily deals).

Every layer that counts imports this module, so it sits under the apps with
the web kit (``pyproject.toml``) and imports nothing of them. How the figures
are read — the ``/metrics`` endpoint, the worker's port, the Celery queue depth
read at scrape time — is ``config/exporter.py``.

With ``PROMETHEUS_MULTIPROC_DIR`` set (production: several daphnes and a
prefork worker), prometheus-client keeps each process's values in a file of
that directory and a scrape sums them; unset (``make run``, the in-process
tests), they live in this process. Label values come from bounded sets — our
own codes, variants, task names — never from what a client sent: a deal code
or a card can never become a label.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics

log = logging.getLogger(__name__)

disable_created_metrics()  # no ``*_created`` series: they double the output, nothing reads them
if settings.METRICS_DIR:  # prometheus-client writes there from the first metric on
    Path(settings.METRICS_DIR).mkdir(parents=True, exist_ok=True)

SOCKET_KINDS = ("game", "watch", "leaderboard", "race")
"""A game socket of its player, of a spectator; a day's leaderboard; a race room's."""

WEBSOCKETS_OPEN = Gauge(
    "patience_websockets_open",
    "Websockets open now, by kind (game: its player; watch: a spectator; leaderboard).",
    ["kind"],
    multiprocess_mode="livesum",
)
CHANNEL_SEND_FAILURES = Counter(
    "patience_channel_send_failures",
    "Broadcasts the channel layer (Redis) refused; each is healed by a snapshot.",
    ["group"],
)
CELERY_TASK_SECONDS = Histogram(
    "patience_celery_task_seconds",
    "Runtime of a Celery task, by task and final state.",
    ["task", "state"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300),
)


def never_raises(count: Callable[..., None]) -> Callable[..., None]:
    """A figure must never break what it counts (a full disk under the
    multiprocess directory, say): a failure to count is a warning."""

    @functools.wraps(count)
    def counted(*args: Any, **kwargs: Any) -> None:
        try:
            count(*args, **kwargs)
        except Exception:
            log.warning("metrics: %s not counted", count.__name__, exc_info=True)

    return counted


# Children resolved once: ``labels()`` takes a lock and validates on every call.
_OPEN = {kind: WEBSOCKETS_OPEN.labels(kind) for kind in SOCKET_KINDS}


@never_raises
def socket_opened(kind: str) -> None:
    _OPEN[kind].inc()


@never_raises
def socket_closed(kind: str) -> None:
    _OPEN[kind].dec()


@never_raises
def channel_send_failed(group: str) -> None:
    """A broadcast to ``group`` (``game.<id>``, ``leaderboard.<date>.<variant>``)
    failed: counted by the group's kind, never its name."""
    kind = group.partition(".")[0]
    CHANNEL_SEND_FAILURES.labels(kind if kind in ("game", "leaderboard") else "other").inc()
