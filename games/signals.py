"""What the game services announce, for the code above them to act on.

Imports run one way (docs/architecture.md): the services do not import the
jobs that run them (``games/tasks.py``) nor the leaderboard that ranks their
results. They send these signals instead; the receivers are connected in the
``ready()`` of the app that owns them (``games/apps.py`` for the jobs,
``leaderboard/apps.py`` for the live board). A receiver only queues or
broadcasts: the logic stays in services and selectors (STYLE.md).

Each signal is sent with ``sender=Attempt`` and the ``attempt`` as keyword.
"""

from __future__ import annotations

from django.dispatch import Signal

from games.engine import Game
from kit.commits import after_commit

from .models import Attempt

attempt_finished = Signal()
"""Inside the transaction that ended an attempt (won or resigned): its replay
check is queued on commit (``tasks.verify_attempt``)."""

ranked_attempt_checked = Signal()
"""Inside the transaction of a ranked attempt's replay check: its fair-play
review is queued on commit (``tasks.review_attempt``)."""

position_worth_proving = Signal()
"""Inside the transaction of an action that left a position worth a
dead-end proof (``Game.worth_proving_lost``): the proof is queued on commit."""

result_changed = Signal()
"""After commit: a ranked attempt finished, its replay check changed its verdict
or staff decided on it (``games/fairplay.py``); the day's leaderboard tells its
subscribers (``leaderboard/realtime.py``)."""


sealed_attempt_changed = Signal()
"""After commit: a sealed attempt (a race's, while it runs) took an action, was
resigned or closed. Sent with ``attempt`` and ``game``, the engine game after
it, already in memory, so the race rooms (``races/progress.py``) compute the
racer's progress with no query of the game; never sent for any other attempt,
so a game not in a race pays nothing for it (docs/benchmarks.md)."""


def announce(signal: Signal, attempt: Attempt) -> None:
    """Send ``signal`` about ``attempt`` now."""
    signal.send(sender=Attempt, attempt=attempt)


def announce_result_on_commit(attempt: Attempt) -> None:
    """Send ``result_changed`` once the current transaction commits (never for a
    change rolled back)."""
    after_commit(lambda: announce(result_changed, attempt), after_answer=True)


def announce_sealed_on_commit(attempt: Attempt, game: Game) -> None:
    """Send ``sealed_attempt_changed`` once the current transaction commits."""
    after_commit(
        lambda: sealed_attempt_changed.send(sender=Attempt, attempt=attempt, game=game),
        after_answer=True,
    )
