"""What a change to an attempt sets off once it is committed: the ``state`` event
to its sockets, the game cache, a race's progress, the day's leaderboard and
results file, the jobs that check, review and prove it — gathered while the
change is made and handed to its transaction in one registration
(``kit.commits.Followups``), one per change (issue 40).

The jobs are queued by name (the names below, the tasks' own in
``games/tasks.py``): the services never import the module that runs them, and
no signal goes from the games to their own jobs. The apps above hear of a
change by the signals of ``games/signals.py`` (the leaderboard, the race rooms).
"""

from __future__ import annotations

from django.conf import settings

from games.engine import Game, game_class
from kit.commits import Followups, queue_now

from . import dayfile, realtime, signals, store
from .models import Attempt
from .proofs import queue_proof

VERIFY_ATTEMPT = "games.tasks.verify_attempt"
REVIEW_ATTEMPT = "games.tasks.review_attempt"
JUDGE_KNOWLEDGE = "games.tasks.judge_knowledge"
BUILD_DAY_RESULTS = "games.tasks.build_day_results"


def attempt_changed(
    attempt: Attempt, game: Game, *, origin: str | None = None, keep: bool = False
) -> str:
    """Inside the transaction that changed ``attempt`` (now ``game``): the
    ``state`` event to the game's sockets but ``origin`` (the socket whose
    message made the change: its answer carries the same object), the game
    cached (``keep``: the change is in a transaction still; ``store.GAMES``), a
    race's progress, a ranked result for the day's leaderboard, the replay check
    of a finished attempt and the dead-end proof of a position worth one. Returns
    the player's encoded attempt object, for the answer."""
    with Followups() as after:
        text = realtime.game_published(attempt, game, after, origin=origin)
        if keep and not attempt.finished:
            after.at_commit(lambda: store.GAMES.put(attempt, game))
        if attempt.sealed:  # in a race (races/): its progress, from this game in memory
            after.later(
                lambda: signals.sealed_attempt_changed.send(
                    sender=Attempt, attempt=attempt, game=game
                )
            )
        if attempt.finished:
            if attempt.ranked:
                result_changed(after, attempt)
            after.queue(VERIFY_ATTEMPT, attempt.pk)
        elif game.worth_proving_lost():
            queue_proof(after, attempt.pk)
    return text


def result_changed(after: Followups, attempt: Attempt) -> None:
    """A ranked result finished, its replay check changed its verdict, staff
    decided on it or an account claimed it: once committed, the day's
    leaderboard tells its subscribers (``signals.result_changed``) and a day
    that is over has its results file built again. One indexed query per ranked
    result that changes; a running day has no file, so never more."""

    def tell() -> None:
        signals.result_changed.send(sender=Attempt, attempt=attempt)
        if attempt.ranked and attempt.daily_id is not None:
            for daily_id in dayfile.day_results_due(daily_ids=[attempt.daily_id], reason="changed"):
                queue_now(BUILD_DAY_RESULTS, daily_id, True, "changed")

    after.later(tell)


def attempt_checked(after: Followups, attempt: Attempt) -> None:
    """A ranked attempt's replay check ran (or an account claimed a checked
    one): its fair-play review, and what its player knew in a game that hides
    cards (``FAIRPLAY_KNEW``), queued once committed."""
    after.queue(REVIEW_ATTEMPT, attempt.pk)
    if settings.FAIRPLAY_KNEW and game_class(attempt.deal.code).hides_cards:
        after.queue(JUDGE_KNOWLEDGE, attempt.pk)
