"""Logs: one line per record on stdout, JSON in production, readable in a
development run — Django's, Celery's, daphne's and ours alike.

structlog is configured once, from ``settings.LOGGING`` (``logging_config``): its
formatter renders every record of the standard library's loggers too, with the
context bound in ``structlog.contextvars`` (``request_id``, ``user_id``,
``attempt_id``, ``seq``, a socket's ``conn``, a task's ``task``/``task_id``).
Whoever starts a unit of work (a request, a websocket message, a task) clears
that context first, so nothing leaks from one to the next.

What a line must never carry (PRODUCT.md, anti-cheat): a state, a view, a card
that is face down, the stock, a running daily's code. Log ids, codes of
refusals and pile names — never game data. Tracebacks are rendered without
their frames' local variables for the same reason.
"""

from __future__ import annotations

from typing import Any

import structlog
from structlog.typing import Processor

# Added to every line, ours and the standard library's alike.
SHARED: list[Processor] = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    # The one extra field worth keeping (Django's 4xx/5xx lines); others, such
    # as a request object, would print its full path with the query string.
    structlog.stdlib.ExtraAdder(allow=("status_code",)),
    structlog.processors.TimeStamper(fmt="iso", utc=True, key="timestamp"),
]


def _configure_structlog() -> None:
    """structlog's own loggers hand their events to the standard library's, so
    that one handler (``logging_config``) writes every line."""
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *SHARED,
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def formatter(fmt: str) -> structlog.stdlib.ProcessorFormatter:
    """The formatter of ``settings.LOGGING`` (built by ``logging.config``, which
    is also when structlog is configured: once per process, in daphne, the
    worker, beat and ``manage.py`` alike)."""
    _configure_structlog()
    renderer: Processor
    if fmt == "console":
        # Plain tracebacks: a rich one would print the frames' local variables.
        renderer = structlog.dev.ConsoleRenderer(exception_formatter=structlog.dev.plain_traceback)
        tail: list[Processor] = [renderer]
    else:
        tail = [structlog.processors.format_exc_info, structlog.processors.JSONRenderer()]
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=SHARED,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *tail],
    )


def logging_config(*, level: str, fmt: str) -> dict[str, Any]:
    """``settings.LOGGING``: every logger to one stdout handler, at ``level``,
    as JSON lines (``fmt="json"``) or for a terminal (``"console"``)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"structlog": {"()": "config.logs.formatter", "fmt": fmt}},
        "handlers": {
            "stdout": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stdout",
                "formatter": "structlog",
            }
        },
        "root": {"handlers": ["stdout"], "level": level},
        # Django's own handlers (mail to admins, the runserver's console) would
        # write a second, plain line: every record goes to the root's handler.
        "loggers": {
            name: {"handlers": [], "propagate": True} for name in ("django", "django.server")
        },
    }


def bind(**values: Any) -> None:
    """Add ``values`` to the context of every line logged from here on in this
    unit of work (``None`` values are left out)."""
    structlog.contextvars.bind_contextvars(**{k: v for k, v in values.items() if v is not None})


def start(**values: Any) -> None:
    """A new unit of work (a request, a websocket message, a task): forget the
    previous one's context, then bind ``values``."""
    structlog.contextvars.clear_contextvars()
    bind(**values)


def user_id(user: Any) -> int | None:
    """A signed-in user's numeric id, or None (anonymous, or not known yet)."""
    return user.pk if getattr(user, "is_authenticated", False) else None
