"""The accounts' figures (docs/operations.md, "Metrics"): the reminders sent."""

from __future__ import annotations

from prometheus_client import Counter

from kit.metrics import never_raises

REMINDER_OUTCOMES = ("sent", "gone", "retry", "failed", "refused", "no_address")

REMINDERS = Counter(
    "patience_reminders",
    "Reminders of the new daily by channel (push: per device) and outcome: sent, "
    "gone (the push service answered 404/410: removed), retry (429/5xx/no answer: "
    "tried again later), failed, refused (endpoint off the public net), no_address.",
    ["channel", "outcome"],
)


@never_raises
def reminder_counted(channel: str, outcome: str, n: int = 1) -> None:
    if outcome in REMINDER_OUTCOMES:
        REMINDERS.labels(channel, outcome).inc(n)
