"""The Celery app: ``celery -A config worker`` and ``celery -A config beat``.

Its configuration is the ``CELERY_*`` settings (``config/settings.py``), the beat
schedule included; tasks live in each app's ``tasks.py``. Logging is Django's
(``settings.LOGGING``: JSON lines, ``kit/logs.py``), not Celery's own, and
each task's lines carry its name, id, the attempt it is about and the id of the
request that queued it. So Celery's lines pass ``kit.logs.mask_addresses`` as
every other does — a message the worker cannot run is logged whole, its
arguments included — and what a task prints is a log line too.
"""

import inspect
import logging.config
import os
from typing import Any

import structlog
from celery import Celery, signals
from django.conf import settings

from kit import logs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("patience")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.celeryd_init.connect  # the worker, before its first warnings
@signals.setup_logging.connect  # the worker and beat: Celery then leaves the loggers alone
def _logging(**kwargs: Any) -> None:
    """The worker's and beat's lines are the same JSON as daphne's, warnings too
    (``kit.logs.formatter`` takes them into ``logging``)."""
    logging.config.dictConfig(settings.LOGGING)


@signals.celeryd_after_setup.connect
def _prints_logged(**_: Any) -> None:
    """What a task prints is a log line of the worker (WARNING, ``celery.redirected``),
    masked as any: Celery redirects stdout and stderr itself only where it set
    logging up itself (``worker_redirect_stdouts``)."""
    app.log.redirect_stdouts("WARNING")


REQUEST_HEADER = "log_request_id"
"""The message header that carries the id of the request that queued a task."""

_outer: list[dict[str, Any]] = []
"""The context a task ran inside, given back when it ends: a request's, when the
task ran eagerly (``CELERY_EAGER``) within it; empty in a worker."""


@signals.before_task_publish.connect
def _carry_request_id(headers: dict[str, Any], **_: Any) -> None:
    """A task queued while a request (or a task it queued) is handled carries
    that request's id: the worker's lines of it then carry it too."""
    request_id = structlog.contextvars.get_contextvars().get("request_id")
    if request_id is not None:
        headers.setdefault(REQUEST_HEADER, request_id)


@signals.task_prerun.connect
def _task_context(
    task_id: str, task: Any, args: tuple[Any, ...], kwargs: dict[str, Any], **_: Any
) -> None:
    """A task is a unit of work of its own (``kit/logs.py``), with the id of
    the request that queued it."""
    outer = structlog.contextvars.get_contextvars()
    _outer.append(outer)
    try:
        attempt_id = inspect.signature(task.run).bind(*args, **kwargs).arguments.get("attempt_id")
    except TypeError:  # arguments that do not fit: the task itself will say so
        attempt_id = None
    request_id = task.request.get(REQUEST_HEADER) or outer.get("request_id")
    logs.start(task=task.name, task_id=task_id, attempt_id=attempt_id, request_id=request_id)


@signals.task_postrun.connect
def _task_done(**_: Any) -> None:
    logs.start(**(_outer.pop() if _outer else {}))
