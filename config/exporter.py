"""How the figures of ``kit/metrics.py`` and each app's ``metrics.py`` are read
(docs/operations.md, "Metrics").

- ``GET /metrics`` on every daphne, only with ``Authorization: Bearer
  <METRICS_TOKEN>`` (404 when no token is set, 401 without one, 403 with a
  wrong one; compared in constant time). nginx answers 404 for it: Prometheus
  scrapes each daphne inside the network, never through the public entry.
- The Celery worker serves no HTTP, so it opens ``METRICS_PORT`` (the same
  token) once its pool is up. Its tasks' runtimes are timed here, by Celery's
  signals, in whichever process runs them.
- A scrape reads the whole ``PROMETHEUS_MULTIPROC_DIR`` (every process of
  the container or pod), first forgetting the open-socket gauges of processes
  that are gone (a killed daphne never said goodbye), and asks the broker for
  the queue depth then — nothing is counted on the action path for it.

The worker imports this module (``CELERY_IMPORTS``); daphne through the URLs.
"""

from __future__ import annotations

import glob
import hmac
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import redis
from celery import current_app, signals
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from kombu.transport.redis import PRIORITY_STEPS
from kombu.transport.redis import Channel as RedisChannel
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.registry import Collector

from kit import metrics
from kit.http import error_body

log = logging.getLogger(__name__)

BROKER_TIMEOUT = 1.0


# --- what a scrape reads ------------------------------------------------------------


class QueueCollector(Collector):
    """Celery's queues on the Redis broker, read when scraped: messages waiting
    (``LLEN`` of each queue's priority lists, as kombu keeps them) and messages
    taken by a worker but not yet acknowledged (kombu's ``unacked`` hash: a
    killed worker's task waits there for the visibility timeout)."""

    def describe(self) -> Iterable[GaugeMetricFamily]:
        return [
            GaugeMetricFamily("patience_celery_queue_length", "", labels=["queue"]),
            GaugeMetricFamily("patience_celery_unacked", ""),
            GaugeMetricFamily("patience_celery_broker_up", ""),
        ]

    def collect(self) -> Iterator[GaugeMetricFamily]:
        url = settings.CELERY_BROKER_URL
        if not url.startswith(("redis://", "rediss://", "unix://")):
            return  # the embedded default: tasks run in-process, there is no queue
        up = GaugeMetricFamily(
            "patience_celery_broker_up", "1 when the broker answered this scrape, else 0."
        )
        try:
            queues, unacked = _read_broker(url)
        except Exception as exc:  # a scrape must answer; the gauge says what failed
            log.warning("metrics: the broker did not answer (%s)", type(exc).__name__)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        length = GaugeMetricFamily(
            "patience_celery_queue_length",
            "Tasks waiting in a Celery queue (read from the broker at scrape time).",
            labels=["queue"],
        )
        for name, size in queues.items():
            length.add_metric([name], size)
        yield length
        yield GaugeMetricFamily(
            "patience_celery_unacked",
            "Tasks taken by a worker and not yet acknowledged.",
            value=unacked,
        )


def _queue_names() -> list[str]:
    """The queues a worker may be asked to take: the app's, and those its routes send
    tasks to (``CELERY_TASK_ROUTES``: ``interactive``, ``heavy``, ``fairplay``, issue
    38), though no worker here declared them."""
    routes = current_app.conf.task_routes or {}
    routed = {r["queue"] for r in routes.values() if isinstance(r, dict) and "queue" in r}
    return sorted(set(current_app.amqp.queues) | routed) or [current_app.conf.task_default_queue]


def _read_broker(url: str) -> tuple[dict[str, int], int]:
    names = _queue_names()
    client = redis.Redis.from_url(
        url, socket_timeout=BROKER_TIMEOUT, socket_connect_timeout=BROKER_TIMEOUT
    )
    try:
        with client.pipeline(transaction=False) as pipe:
            for name in names:
                for priority in PRIORITY_STEPS:
                    pipe.llen(f"{name}{RedisChannel.sep}{priority}" if priority else name)
            pipe.hlen(RedisChannel.unacked_key)
            sizes = pipe.execute()
    finally:
        client.close()
    steps = len(PRIORITY_STEPS)
    queues = {name: sum(sizes[i * steps : (i + 1) * steps]) for i, name in enumerate(names)}
    return queues, sizes[-1]


def _forget_dead_processes(path: str) -> None:
    """Drop the live gauges (open sockets) of processes that no longer run:
    ``mark_process_dead`` for a daphne or pool process killed without a word.
    Their counters stay, so that sums never go backwards."""
    for name in glob.glob(os.path.join(path, "gauge_live*_*.db")):
        try:
            pid = int(name.rsplit("_", 1)[1][: -len(".db")])
            os.kill(pid, 0)
        except ValueError:
            continue  # not a file of prometheus-client's
        except ProcessLookupError:
            multiprocess.mark_process_dead(pid, path)
        except PermissionError:
            pass  # alive, another user's


def scrape() -> bytes:
    """The text exposition of every figure this process (or, in multiprocess
    mode, its container's processes) holds, and the broker's queues."""
    if settings.METRICS_DIR:
        _forget_dead_processes(settings.METRICS_DIR)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, settings.METRICS_DIR)
    else:
        registry = CollectorRegistry()
        registry.register(_Default())
    registry.register(QueueCollector())
    return generate_latest(registry)


class _Default(Collector):
    """The process's own registry (metrics, process and GC figures), for a
    scrape registry that also holds the broker's collector."""

    def collect(self) -> Iterable[Any]:
        return REGISTRY.collect()


# --- who may read it ------------------------------------------------------------------


def _authorized(header: str) -> int:
    """200, 401 (no bearer token) or 403 (a wrong one) for an ``Authorization``
    header (a latin-1 string, as WSGI and ASGI give it)."""
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        return 401
    # Bytes, so that any character compares (a str with non-ASCII would raise).
    expected = settings.METRICS_TOKEN.encode()
    return 200 if hmac.compare_digest(given.strip().encode("latin-1", "replace"), expected) else 403


DENIED = {
    401: ("not_authenticated", "Send Authorization: Bearer <METRICS_TOKEN>."),
    403: ("forbidden", "Wrong metrics token."),
}


@never_cache
def metrics_view(request: HttpRequest) -> HttpResponse:
    """``GET /metrics``: the figures, for the bearer of ``METRICS_TOKEN``."""
    if not settings.METRICS_TOKEN:
        return JsonResponse(error_body("not_found", "No such page."), status=404)
    status = _authorized(request.headers.get("Authorization", ""))
    if status != 200:
        response = JsonResponse(error_body(*DENIED[status]), status=status)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    if request.method not in ("GET", "HEAD"):
        return JsonResponse(error_body("method_not_allowed", "GET /metrics."), status=405)
    return HttpResponse(scrape(), content_type=CONTENT_TYPE_PLAIN_0_0_4)


def _wsgi_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
    """The worker's port: the same answer as ``metrics_view``, on any path."""
    status = _authorized(environ.get("HTTP_AUTHORIZATION", "")) if settings.METRICS_TOKEN else 200
    if status != 200:
        start_response(
            f"{status} {'Unauthorized' if status == 401 else 'Forbidden'}",
            [("Content-Type", "text/plain"), ("WWW-Authenticate", 'Bearer realm="metrics"')],
        )
        return [DENIED[status][1].encode()]
    body = scrape()
    start_response("200 OK", [("Content-Type", CONTENT_TYPE_PLAIN_0_0_4)])
    return [body]


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass  # every scrape would be a line in the worker's log


def serve(port: int) -> WSGIServer:
    """Serve the figures on ``port`` (all addresses) from a daemon thread."""
    server = make_server("", port, _wsgi_app, server_class=_Server, handler_class=_Quiet)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    return server


# --- the worker ---------------------------------------------------------------------


@signals.worker_ready.connect
def _serve_worker_metrics(**kwargs: Any) -> None:
    """Open ``METRICS_PORT`` in the worker's main process once its pool is up
    (so the pool's processes, forked before, do not hold the socket)."""
    if settings.METRICS_PORT:
        serve(settings.METRICS_PORT)
        log.info("metrics on port %d", settings.METRICS_PORT)


_started: dict[str, float] = {}


@signals.task_prerun.connect
def _task_started(task_id: str | None = None, **kwargs: Any) -> None:
    if task_id is not None:
        _started[task_id] = time.perf_counter()


@signals.task_postrun.connect
def _task_ended(
    task_id: str | None = None, task: Any = None, state: str | None = None, **kwargs: Any
) -> None:
    started = _started.pop(task_id, None) if task_id is not None else None
    if started is None or task is None:
        return
    try:
        metrics.CELERY_TASK_SECONDS.labels(task.name, (state or "unknown").lower()).observe(
            time.perf_counter() - started
        )
    except Exception:  # a figure must not fail a task
        log.warning("metrics: task runtime not recorded", exc_info=True)
