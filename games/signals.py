"""What the games announce to the apps above them, which the games do not
import (docs/architecture.md): the day's leaderboard (``leaderboard/realtime.py``)
and the race rooms (``races/progress.py``) connect receivers in their own
``ready()``. A receiver only queues or broadcasts: the logic stays in services
and selectors (STYLE.md). Both are sent after commit, from the one
registration of the change's followups (``games/followups.py``); what the games'
own jobs do next is queued there by name, never by a signal.
"""

from __future__ import annotations

from django.dispatch import Signal

result_changed = Signal()
"""After commit: a ranked attempt finished, its replay check changed its verdict,
staff decided on it or an account claimed it; the day's leaderboard tells its
subscribers. Sent with ``sender=Attempt`` and ``attempt``."""


sealed_attempt_changed = Signal()
"""After commit: a sealed attempt (a race's, while it runs) took an action, was
resigned or closed. Sent with ``sender=Attempt``, ``attempt`` and ``game``, the
engine game after it, already in memory, so the race rooms compute the racer's
progress with no query of the game; never sent for any other attempt, so a
game not in a race pays nothing for it (docs/benchmarks.md)."""
