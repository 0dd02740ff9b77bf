"""The Celery app: ``celery -A config worker`` and ``celery -A config beat``.

Its configuration is the ``CELERY_*`` settings (``config/settings.py``), the beat
schedule included; tasks live in each app's ``tasks.py``. Logging is Django's
(``settings.LOGGING``: JSON lines, ``config/logs.py``), not Celery's own, and
each task's lines carry its name, id and the attempt it is about.
"""

import inspect
import logging.config
import os
from typing import Any

from celery import Celery, signals
from django.conf import settings

from config import logs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("patience")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.celeryd_init.connect  # the worker, before its first warnings
@signals.setup_logging.connect  # the worker and beat: Celery then leaves the loggers alone
def _logging(**kwargs: Any) -> None:
    """The worker's and beat's lines are the same JSON as daphne's, warnings too."""
    logging.captureWarnings(True)
    logging.config.dictConfig(settings.LOGGING)


@signals.task_prerun.connect
def _task_context(
    task_id: str, task: Any, args: tuple[Any, ...], kwargs: dict[str, Any], **_: Any
) -> None:
    """A task is a unit of work of its own (``config/logs.py``)."""
    try:
        attempt_id = inspect.signature(task.run).bind(*args, **kwargs).arguments.get("attempt_id")
    except TypeError:  # arguments that do not fit: the task itself will say so
        attempt_id = None
    logs.start(task=task.name, task_id=task_id, attempt_id=attempt_id)


@signals.task_postrun.connect
def _task_done(**_: Any) -> None:
    logs.start()
