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

Nor a full client address (issue 28, privacy): logs are kept by the platform
(docker's json-file, rotated: docs/operations.md), beyond the database's
``ADDRESS_RETENTION_DAYS``. So every line, ours and the libraries' alike, its
traceback included, passes ``mask_addresses`` last: each IP address written in
it becomes its network — an IPv4 address its /24 (``203.0.113.0/24``), an IPv6
one its /48 (``2001:db8:1::/48``). Enough to see that lines come from one
network, never whose device: not an address of a person, and nothing to keep.
Only the exact addresses a server listens on (``LISTENING``: ``127.0.0.1``,
``0.0.0.0``, ``::1``, ``::``) stay as written, so that an operator reads where a
daphne listens. Any other address is masked, the rest of the loopback range
included (issue 37): a client on ``127.0.20.2`` is a client, and daphne's own
warnings name each connection's (``<WebSocketProtocol client=['127.0.20.0/24',
43101] …>``), as do Celery's lines of a message it cannot run (its arguments).

Lines that never pass here: Twisted's (daphne runs with ``-v 0``, which sends
them nowhere), Celery's few plain ones as it stops (``worker: Warm shutdown``:
no address), and nginx's error log, masked by ``deploy/nginx-mask.sed`` as
here (docs/operations.md, "Log retention"). Python's warnings are taken into
``logging`` (``formatter``), so they pass here too.
"""

from __future__ import annotations

import ipaddress
import logging
import re
import sys
from typing import Any

import structlog
from structlog.typing import EventDict, Processor

# Added to every line, ours and the standard library's alike.
SHARED: list[Processor] = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.processors.TimeStamper(fmt="iso", utc=True, key="timestamp"),
]
FOREIGN: list[Processor] = [
    *SHARED,
    structlog.stdlib.add_logger_name,
    # The one extra field worth keeping (Django's 4xx/5xx lines); others, such
    # as a request object, would print its full path with the query string.
    structlog.stdlib.ExtraAdder(allow=("status_code",)),
]


# Candidates only: each is checked by ``ipaddress`` before it is masked, so a
# clock (``12:04:05``), a version (``1.2.3``) or a date stays as written.
_CANDIDATE = re.compile(
    r"(?<![\w.:])(?:"
    r"(?:\d{1,3}\.){3}\d{1,3}(?!\w|\.\d)"  # IPv4, maybe with a :port after it
    r"|[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:(?<=:)(?:\d{1,3}\.){3}\d{1,3})?"  # IPv6
    r"(?![\w:]|\.\d))"
)
IPV4_PREFIX, IPV6_PREFIX = 24, 48
"""What a masked address keeps: its /24, its /48 (issue 28)."""
LISTENING = frozenset(ipaddress.ip_address(a) for a in ("127.0.0.1", "0.0.0.0", "::1", "::"))
"""The addresses left as written: where a server listens, no one's (issue 37)."""


def _masked(found: re.Match[str]) -> str:
    text = found.group(0)
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return text  # a clock, a ratio, a version: not an address
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    if address in LISTENING:
        return text  # where a server listens; another loopback address may be a client's
    prefix = IPV4_PREFIX if address.version == 4 else IPV6_PREFIX
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))


def mask_text(text: str) -> str:
    """``text`` with every IP address in it replaced by its network (/24, /48)."""
    if "." not in text and ":" not in text:
        return text  # most texts: no address can be in them
    return _CANDIDATE.sub(_masked, text)


def mask_addresses(logger: Any, method: str, event: EventDict) -> EventDict:
    """The processor every line passes last before it is rendered: each text in
    it (the event, the context, a traceback) with its addresses masked. About
    3 µs a line where no text holds a dot or a colon (an action's line), against
    6 µs for its JSON rendering (measured on the shared 2-core machine)."""
    for key, value in event.items():
        if value.__class__ is str and ("." in value or ":" in value) and key != "timestamp":
            event[key] = _CANDIDATE.sub(_masked, value)
    return event


def _renderers(fmt: str) -> list[Processor]:
    if fmt == "console":
        # Plain tracebacks: a rich one would print the frames' local variables.
        return [
            structlog.processors.format_exc_info,
            mask_addresses,
            structlog.dev.ConsoleRenderer(exception_formatter=structlog.dev.plain_traceback),
        ]
    return [
        structlog.processors.format_exc_info,
        mask_addresses,
        structlog.processors.JSONRenderer(),
    ]


def formatter(fmt: str, level: str) -> structlog.stdlib.ProcessorFormatter:
    """The formatter of ``settings.LOGGING`` for the standard library's records
    (built by ``logging.config``, which is also when structlog is configured:
    once per process, in daphne, the worker, beat and ``manage.py`` alike).

    structlog's own lines (``get_logger``: a request's, an action's — two per
    action) are rendered and written straight to stdout, not through
    ``logging``: about the cost of a plain ``logging`` line, where a record
    through this formatter (made, then copied) costs two to four times that.

    Python's warnings are taken into ``logging`` here too: printed as they are,
    to stderr, they would pass no masking (a ``ResourceWarning`` names a
    socket's peer) and be the one line that is not JSON."""
    logging.captureWarnings(True)
    structlog.configure(
        processors=[*SHARED, _logger_name, *_renderers(fmt)],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level)),
        logger_factory=structlog.WriteLoggerFactory(file=sys.stdout),
        cache_logger_on_first_use=True,
    )
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=FOREIGN,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *_renderers(fmt)],
    )


def get_logger(name: str) -> Any:
    """A structlog logger whose lines say ``"logger": name``."""
    return structlog.get_logger(logger_name=name)


def _logger_name(logger: Any, method: str, event: EventDict) -> EventDict:
    event["logger"] = event.pop("logger_name", "-")  # the key is ``get_logger``'s argument
    return event


def logging_config(*, level: str, fmt: str) -> dict[str, Any]:
    """``settings.LOGGING``: every logger to one stdout handler, at ``level``,
    as JSON lines (``fmt="json"``) or for a terminal (``"console"``)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"structlog": {"()": "kit.logs.formatter", "fmt": fmt, "level": level}},
        "handlers": {
            "stdout": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stdout",
                "formatter": "structlog",
            }
        },
        "filters": {"one_warning_line": {"()": "kit.logs.OneWarningLine"}},
        "root": {"handlers": ["stdout"], "level": level},
        # Django's own handlers (mail to admins, the runserver's console) would
        # write a second, plain line: every record goes to the root's handler.
        "loggers": {
            **{name: {"handlers": [], "propagate": True} for name in ("django", "django.server")},
            # Daphne's DEBUG lines name each connection's client address, which is
            # never logged (docs/operations.md, "Logs and errors"): its INFO and above only.
            "daphne": {"level": max(logging.INFO, logging.getLevelName(level.upper()))},
            # A request naming a host we do not serve (a scanner's, every few
            # seconds): the client's doing, so one warning line, no traceback.
            "django.security.DisallowedHost": {
                "handlers": [],
                "propagate": True,
                "filters": ["one_warning_line"],
            },
        },
    }


class OneWarningLine(logging.Filter):
    """A record made a plain warning: its level lowered, its traceback dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.WARNING:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True


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
