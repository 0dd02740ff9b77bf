"""What the games count, for Prometheus (docs/operations.md, "Metrics"): the actions at
their doors (the meter every action goes through — REST view, websocket
consumer — which also writes the action's log line), the refusals, and the
daily deals' preparation. The generic figures and the helpers are
``kit/metrics.py``'s."""

from __future__ import annotations

import re
import time
from types import TracebackType
from typing import Any

from prometheus_client import Counter, Histogram

from kit import logs
from kit.http import describe_error
from kit.metrics import never_raises

action_log = logs.get_logger("games.actions")

TRANSPORTS = ("http", "websocket")
OUTCOMES = (
    "accepted",  # applied
    "duplicate",  # a resend of an applied seq: answered again, nothing applied
    "stale",  # 409 seq_conflict: the client is behind (another tab, a lost answer)
    "refused",  # 422 by the rules, or 409 by the game's state (finished, day over)
    "invalid",  # 400, 413, 415 and any other 4xx: not a well-formed action (request)
    "denied",  # 401/403/404: not signed in, not your game, no such game
    "throttled",  # 429
    "unavailable",  # 503: PostgreSQL or Redis did not answer
    "error",  # 500: our bug
)

ACTIONS = Counter(
    "patience_actions",
    "Actions answered, by transport and outcome.",
    ["transport", "outcome"],
)
ACTION_SECONDS = Histogram(
    "patience_action_seconds",
    "Server time of an action at its door: input parsed, rate limit, the service's"
    " transaction, the answer encoded (HTTP: from DRF's checks on).",
    ["transport"],
    buckets=(0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 1),
)
REFUSALS = Counter(
    "patience_refusals",
    "Actions answered with an error (4xx), by the error's code: the engine's"
    " reason (RULES.md C12) or ours.",
    ["transport", "reason"],
)
DAILY_PREPARATIONS = Counter(
    "patience_daily_preparations",
    "Daily deals stored, by variant and result: proven (a solver's line wins it),"
    " unproven (none found within the effort), on_demand (read before the job made it).",
    ["variant", "result"],
)
DAILY_CANDIDATES_TRIED = Histogram(
    "patience_daily_candidates_tried",
    "Candidates a daily deal's preparation tried before one was proven (or the effort ran out).",
    ["variant"],
    buckets=(1, 2, 3, 5, 10, 20, 50, 100),
)
DAILY_PREPARATION_SECONDS = Histogram(
    "patience_daily_preparation_seconds",
    "Time the solver spent choosing a daily deal.",
    ["variant"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
)

_CODE = re.compile(r"[a-z][a-z0-9_]{0,39}")


def _reason(code: object) -> str:
    """An error code as a label: ours and the engine's are short snake_case
    words; anything else (it should not happen) is ``other``."""
    return code if isinstance(code, str) and _CODE.fullmatch(code) else "other"


def _outcome(status: int, code: str) -> str:
    if status < 300:
        return "accepted"
    if status == 409:
        return "stale" if code == "seq_conflict" else "refused"
    if status == 422:
        return "refused"
    if status in (401, 403, 404):
        return "denied"
    if status == 429:
        return "throttled"
    if 400 <= status < 500:  # 400, 413, 415 (not JSON), 405…: the client's, not ours
        return "invalid"
    return {503: "unavailable"}.get(status, "error")


# Children resolved once: ``labels()`` takes a lock and validates on every call.
_COUNTED = {(t, o): ACTIONS.labels(t, o) for t in TRANSPORTS for o in OUTCOMES}
_TIMED = {t: ACTION_SECONDS.labels(t) for t in TRANSPORTS}


class ActionMeter:
    """One action at its door: times it, counts how it was answered and writes
    its one log line (``games.actions``) — one classification of the answer for
    both, whether the action reached the game or was turned away at the door.

    The websocket consumer wraps its handler (``with ActionMeter("websocket")
    as meter:``): an exception leaving the block is classified as its answer
    will be. The REST view, whose exceptions DRF answers inside its dispatch,
    calls ``answered`` with the response's status and error code instead.
    Set ``duplicate`` when the service says the action was a resend, and
    ``said`` to the action as the engine read it (type, pile ids, count —
    never a card; the service's answer or refusal carries it), which the log
    line carries."""

    __slots__ = ("duplicate", "said", "started", "transport")

    def __init__(self, transport: str, attempt_id: int) -> None:
        self.transport = transport
        self.duplicate = False
        self.said: dict[str, Any] = {}
        self.started = time.perf_counter()
        logs.bind(attempt_id=attempt_id)

    def __enter__(self) -> ActionMeter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc is None:
            self.answered(200)
            return
        described = describe_error(exc) if isinstance(exc, Exception) else None
        if described is None:
            self.answered(500, "server_error")
        else:
            self.answered(described[0], described[1]["error"]["code"])

    @never_raises
    def answered(self, status: int, code: object = None) -> None:
        """Count the answer (``status``; for an error, its ``code``) and its
        time, and log it."""
        _TIMED[self.transport].observe(time.perf_counter() - self.started)
        if status < 300:
            outcome = "duplicate" if self.duplicate else "accepted"
            _COUNTED[self.transport, outcome].inc()
            action_log.info("action", via=self.transport, outcome=outcome, **self.said)
            return
        reason = _reason(code)
        outcome = _outcome(status, reason)
        _COUNTED[self.transport, outcome].inc()
        if status < 500:
            REFUSALS.labels(self.transport, reason).inc()
        action_log.info("action", via=self.transport, outcome=outcome, reason=reason, **self.said)


@never_raises
def daily_prepared(*, variant: str, proven: bool, tried: int, seconds: float) -> None:
    DAILY_PREPARATIONS.labels(variant, "proven" if proven else "unproven").inc()
    DAILY_CANDIDATES_TRIED.labels(variant).observe(tried)
    DAILY_PREPARATION_SECONDS.labels(variant).observe(seconds)


@never_raises
def daily_made_on_demand(*, variant: str) -> None:
    DAILY_PREPARATIONS.labels(variant, "on_demand").inc()
