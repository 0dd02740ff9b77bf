"""What the player knew, in the review (issue 36, PRODUCT.md "Fair-play review").

After each ranked finish on a game that hides cards, the job
``tasks.judge_knowledge`` (its own Celery queue, ``fairplay``: seconds of solver work
per win must never wait behind a mail, nor a mail behind it, and never run in a
request) asks the engine's test of the win itself, ``games.engine.knew.knew``, over
the attempt's logged actions and the day's proof: the same function as ``python -m
games.engine knew``, so that after the day anyone can run it again on the results
file. It needs no link between accounts: it asks whether the win's decisions fit the
cards its player had not seen.

Judged: every ranked win, and every other result that would rank in its day's top
:data:`TOP` (a loss can still rank high). The verdict is kept in the review's
``signals["knew"]`` and, when flagged, as the reason ``hidden_knowledge`` — weighed
above every timing reason (``fairplay.WEIGHTS``), so a confident hit heads the staff
queue with its decisive positions in words. Recomputing the other signals
(``fairplay.attempt_review``, which runs again when a scout is found later) keeps it.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.engine import EngineError, game_class
from games.engine.knew import DECISIONS, knew

from . import fairplay
from .models import Action, Attempt, Review
from .ranking import RANKING, counted

log = logging.getLogger(__name__)

TOP = 100
"""Results that would rank this high are judged even when not won."""

REASON = "hidden_knowledge"
"""The reason's code (``fairplay.knowledge_reasons``)."""


def hides_cards(attempt: Attempt) -> bool:
    return game_class(attempt.deal.code).hides_cards


def _would_rank(attempt: Attempt) -> bool:
    """Would ``attempt`` rank in its day's top :data:`TOP` (RULES.md C11's order)?"""
    if attempt.won:
        return True
    rows = counted(daily=attempt.daily).exclude(pk=attempt.pk).order_by(*RANKING, "pk")
    last = list(rows.values_list("won", "score", "elapsed_ms", "moves")[TOP - 1 : TOP])
    if not last:
        return True
    [(won, score, elapsed, moves)] = last
    mine = (not attempt.won, -attempt.score, attempt.elapsed_ms or 0, attempt.moves)
    return mine < (not won, -score, elapsed or 0, moves)


def attempt_knowledge(*, attempt_id: int) -> Review | None:
    """Judge a finished ranked attempt (see the module) and store the verdict with its
    review; None when there is nothing to judge (no such attempt, a game that hides
    nothing, a result that would not rank, a log the engine refuses — the replay
    check deals with that)."""
    attempt = fairplay.reviewable(attempt_id)
    if attempt is None or attempt.daily is None or not hides_cards(attempt):
        return None
    if not _would_rank(attempt):
        return None
    actions = list(
        Action.objects.filter(attempt_id=attempt.pk)
        .order_by("seq")
        .values_list("action", flat=True)
    )
    judged = Review.objects.filter(attempt=attempt).only("signals").first()
    if judged is not None and (judged.signals.get("knew") or {}).get("actions") == len(actions):
        return judged  # this very log was judged (a claim reviews it again): the same verdict
    try:
        verdict = knew(
            attempt.deal.code,
            actions,
            attempt.daily.proof,
            limit=settings.FAIRPLAY_KNEW_DECISIONS or DECISIONS,
        )
    except (EngineError, ValueError):
        return None
    with transaction.atomic():
        review = Review.objects.select_for_update().filter(attempt=attempt).first()
        if review is None:  # judged before its review ran
            review = fairplay.attempt_review(attempt_id=attempt.pk)
            assert review is not None
            review = Review.objects.select_for_update().get(pk=review.pk)
        signals = {**review.signals, "knew": {**verdict.to_json(), "actions": len(actions)}}
        reasons = [r for r in review.reasons if r["code"] != REASON] + fairplay.knowledge_reasons(
            signals
        )
        review.signals, review.reasons = signals, reasons
        review.flagged = bool(reasons)
        review.score = fairplay.review_score(reasons)
        review.computed_at = timezone.now()
        review.save(update_fields=["signals", "reasons", "flagged", "score", "computed_at"])
    log.info(
        "attempt %s judged for hidden knowledge: evidence %.1f, solver line share %.0f%%, "
        "%s (%.1f s CPU)",
        attempt.pk,
        verdict.evidence,
        100 * verdict.line_share,
        "flagged" if verdict.flagged else "not flagged",
        verdict.seconds,
    )
    if verdict.flagged:
        fairplay.log_flagged(
            attempt_id=attempt.pk, username=attempt.player.get_username(), reasons=reasons
        )
    return review
