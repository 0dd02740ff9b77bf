"""What the games app holds about a player, for their export, and how long it
keeps the client addresses (issue 28, privacy; docs/operations.md, "Client
addresses").

The export is the player's own: their attempts with the actions as they sent
them, the address and device each ranked one was started from, and staff's
decisions on their results — not the review's signals, whose links name other
accounts. Nothing of a running daily's deal: no code, no engine state, no
resolved action (it can name a card the engine turned), only what the player
sent.

The address and device id of a ranked attempt serve the fair-play review,
which looks across accounts within ``FAIRPLAY_LINK_DAYS`` of a start and is
taken by staff in the days after; after ``ADDRESS_RETENTION_DAYS`` they are
purged, and so is the address a review quoted, leaving its decision, reasons,
signal names and counts.

A deleted account (issue 37, ``player_forget``) keeps its results under its
placeholder name; every copy that wrote its former name takes the placeholder
too: each built results file of a day it is on is re-issued, and the reviews
that named it as a linked player (other players' reviews of the days it
played) say the placeholder."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django.db import transaction
from django.db.models import Q, TextField
from django.db.models.functions import Cast, Concat
from django.utils import timezone

from accounts.models import User
from games.engine import game_class

from .dailies import day_over
from .dayfile import day_results_due
from .models import Action, Attempt, Review
from .selectors import sealed_secret

PURGE_BATCH = 1000
"""Attempts whose addresses one run purges at most: a run stays short; the
next takes the rest."""

PURGED = "an address (purged)"
"""What a review's reason says where it quoted the address."""


def _deal_public(attempt: Attempt) -> bool:
    """Not a running daily's deal, nor a running race's secret one (``sealed_secret``)."""
    if sealed_secret(game_class(attempt.deal.code), sealed=attempt.sealed):
        return False
    return attempt.daily is None or day_over(attempt.daily.date)


def _attempt_json(attempt: Attempt, actions: list[dict[str, Any]]) -> dict[str, Any]:
    public = _deal_public(attempt)
    return {
        "id": attempt.pk,
        "variant": attempt.deal.variant,
        "deal": attempt.deal.code if public else None,
        "daily": attempt.daily.date.isoformat() if attempt.daily else None,
        "ranked": attempt.ranked,
        "status": attempt.status,
        "won": attempt.won,
        "score": attempt.score,
        "moves": attempt.moves,
        "started_at": attempt.started_at.isoformat(),
        "finished_at": attempt.finished_at.isoformat() if attempt.finished_at else None,
        "elapsed_ms": attempt.elapsed_ms,
        "disqualified": attempt.disqualified,
        "address": attempt.address,
        "device": attempt.device,
        "actions": actions,
    }


def _decision_json(review: Review) -> dict[str, Any]:
    """Staff's decision as the player's record shows it: not who took it, not
    the signals (their links name other accounts)."""
    return {
        "attempt": review.attempt_id,
        "decision": review.decision,
        "reason": review.decision_reason,
        "decided_at": review.decided_at.isoformat() if review.decided_at else None,
    }


def player_export(*, user: User) -> dict[str, Any]:
    """The games section of ``user``'s export (accounts/privacy.py)."""
    attempts = list(
        Attempt.objects.filter(player=user).select_related("deal", "daily").order_by("pk")
    )
    logs: dict[int, list[dict[str, Any]]] = {a.pk: [] for a in attempts}
    rows = Action.objects.filter(attempt__player=user).order_by("attempt_id", "seq")
    for attempt_id, seq, sent, ms in rows.values_list("attempt_id", "seq", "sent", "ms"):
        logs[attempt_id].append({"seq": seq, "sent": sent, "ms": ms})
    decided = (
        Review.objects.filter(attempt__player=user)
        .exclude(decision=Review.Decision.UNDECIDED)
        .order_by("attempt_id")
    )
    return {
        "attempts": [_attempt_json(a, logs[a.pk]) for a in attempts],
        "decisions": [_decision_json(r) for r in decided],
    }


def _scrubbed(review: Review, address: str | None) -> None:
    """The review without the address it quoted: the signal kept as a name with
    no value, and the reasons' text saying ``PURGED`` instead."""
    changed = False
    if review.signals.get("address") is not None:
        review.signals["address"] = None
        changed = True
    if address:
        for reason in review.reasons:
            if address in reason.get("text", ""):
                reason["text"] = reason["text"].replace(address, PURGED)
                changed = True
    if changed:
        review.save(update_fields=["signals", "reasons"])


def addresses_purge(*, older_than: dt.timedelta, now: dt.datetime | None = None) -> int:
    """Forget the client address and device id of the attempts started longer
    than ``older_than`` ago, and the address their reviews quoted; at most
    ``PURGE_BATCH`` attempts a run. Returns how many attempts it purged. Safe
    to run twice: a purged attempt is not selected again."""
    cutoff = (now or timezone.now()) - older_than
    held = (
        Attempt.objects.filter(started_at__lt=cutoff)
        .filter(Q(address__isnull=False) | ~Q(device=""))
        .order_by("pk")
    )
    batch = list(held.values_list("pk", "address")[:PURGE_BATCH])
    if not batch:
        return 0
    with transaction.atomic():
        addresses = dict(batch)
        for review in Review.objects.filter(attempt_id__in=addresses).select_for_update():
            _scrubbed(review, addresses[review.attempt_id])
        Attempt.objects.filter(pk__in=addresses).update(address=None, device="")
    return len(batch)


def _renamed(value: Any, former: str, name: str, words: re.Pattern[str]) -> Any:
    """``value`` (a review's signals or reasons, JSON) with ``former`` as a whole
    name — a string that is it, or it as a word in a text — said as ``name``."""
    if isinstance(value, str):
        return name if value == former else words.sub(name, value)
    if isinstance(value, list):
        return [_renamed(v, former, name, words) for v in value]
    if isinstance(value, dict):
        return {k: _renamed(v, former, name, words) for k, v in value.items()}
    return value


def player_forget(*, user: User, former: str) -> list[int]:
    """Take the deleted account ``user``'s former name out of what the games
    app wrote it into: the reviews of the days it played, and the results files
    of the days it is on — marked due to be re-issued (``day_results_due``);
    returns those days' daily ids, for the caller to queue their builds."""
    played = list(
        Attempt.objects.filter(player=user, daily__isnull=False)
        .values_list("daily_id", flat=True)
        .distinct()
    )
    name = user.get_username()
    words = re.compile(rf"(?<![\w@.+-]){re.escape(former)}(?![\w@.+-])")
    with transaction.atomic():
        # Only the reviews whose JSON holds the name at all (one scan in the
        # database), then each whole-name use of it.
        naming = Review.objects.filter(attempt__daily_id__in=played).annotate(
            text=Concat(Cast("signals", TextField()), Cast("reasons", TextField()))
        )
        reviews = naming.filter(text__contains=former).select_for_update(of=("self",))
        for review in reviews.iterator(chunk_size=500):
            signals = _renamed(review.signals, former, name, words)
            reasons = _renamed(review.reasons, former, name, words)
            if signals != review.signals or reasons != review.reasons:
                review.signals, review.reasons = signals, reasons
                review.save(update_fields=["signals", "reasons"])
        on_board = Attempt.objects.filter(player=user, ranked=True, daily_id__in=played)
        return day_results_due(
            daily_ids=list(on_board.values_list("daily_id", flat=True).distinct()),
            reason="deleted",
        )
