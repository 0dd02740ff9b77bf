"""Staff decisions on a review: disqualify a result or clear it, each stored
with who took it and why (``games.fairplay``)."""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from kit.commits import Followups
from kit.errors import Conflict, Forbidden, Invalid

from .. import store
from ..followups import result_changed
from ..models import Attempt, Review, ReviewDecision
from ..selectors import no_game
from .lines import REASON_MAX, Thresholds
from .review import _store_review

log = logging.getLogger(__name__)


# --- staff decisions ---------------------------------------------------------------------------


def _staff_reason(reason: str, *, required: bool) -> str:
    if not isinstance(reason, str):
        raise Invalid("invalid", "reason: expected text.")
    reason = reason.strip()
    if required and not reason:
        raise Invalid(
            "reason_required", "Say why: a disqualification needs a reason the player sees."
        )
    if len(reason) > REASON_MAX:
        raise Invalid("reason_too_long", f"A reason has at most {REASON_MAX} characters.")
    return reason


def _locked_reviewable(*, attempt_id: int, staff: User) -> tuple[Attempt, Review]:
    if not (staff.is_authenticated and staff.is_staff and staff.is_active):
        raise Forbidden("not_staff", "Only staff decide fair-play reviews.")
    attempt = store.attempt_locked(attempt_id=attempt_id)
    if attempt is None:
        raise no_game(attempt_id)
    if not attempt.ranked or not attempt.finished:
        raise Conflict(
            "not_reviewable", "Only a finished ranked result is reviewed: this one is not."
        )
    review = Review.objects.filter(attempt=attempt).first()
    if review is None:  # decided before the job ran (or its message was lost)
        review = _store_review(attempt, Thresholds.from_settings())
    return attempt, review


def _decide(review: Review, *, decision: str, staff: User, reason: str) -> None:
    now = timezone.now()
    review.decision, review.decided_by, review.decided_at = decision, staff, now
    review.decision_reason = reason
    review.save(update_fields=["decision", "decided_by", "decided_at", "decision_reason"])
    ReviewDecision.objects.create(
        review=review,
        decision=decision,
        reason=reason,
        staff=staff,
        staff_username=staff.get_username(),
        decided_at=now,
    )


def attempt_disqualify(*, attempt_id: int, staff: User, reason: str) -> Review:
    """Take a ranked result off its leaderboard, for ``reason`` (required; the
    player's record shows it). The standings are recomputed by the leaderboard
    query and pushed to the day's subscribers after commit; the decision is
    stored with the staff user and logged. Disqualifying a result already
    disqualified changes and logs nothing."""
    reason = _staff_reason(reason, required=True)
    with transaction.atomic():
        attempt, review = _locked_reviewable(attempt_id=attempt_id, staff=staff)
        if attempt.disqualified:
            return review
        Attempt.objects.filter(pk=attempt.pk).update(disqualified=True)
        attempt.disqualified = True
        _decide(review, decision=Review.Decision.DISQUALIFIED, staff=staff, reason=reason)
        log.warning(
            "attempt %s of %s (%s %s) disqualified by %s: %s",
            attempt.pk,
            attempt.player.get_username(),
            attempt.daily.date if attempt.daily else "-",
            attempt.daily.variant if attempt.daily else "-",
            staff.get_username(),
            reason,
        )
        with Followups() as after:
            result_changed(after, attempt)
    return review


def review_clear(*, attempt_id: int, staff: User, reason: str = "") -> Review:
    """Staff looked and the result is fine. A result disqualified before is put
    back on the board (pushed live like a new finish). Clearing a result already
    cleared changes and logs nothing."""
    reason = _staff_reason(reason, required=False)
    with transaction.atomic():
        attempt, review = _locked_reviewable(attempt_id=attempt_id, staff=staff)
        if review.decision == Review.Decision.CLEARED and not attempt.disqualified:
            return review
        reinstated = attempt.disqualified
        if reinstated:
            Attempt.objects.filter(pk=attempt.pk).update(disqualified=False)
            attempt.disqualified = False
            with Followups() as after:
                result_changed(after, attempt)
        _decide(review, decision=Review.Decision.CLEARED, staff=staff, reason=reason)
        log.info(
            "attempt %s of %s cleared by %s%s%s",
            attempt.pk,
            attempt.player.get_username(),
            staff.get_username(),
            " (reinstated on the leaderboard)" if reinstated else "",
            f": {reason}" if reason else "",
        )
    return review
