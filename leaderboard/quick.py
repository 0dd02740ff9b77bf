"""Quick race (issue 39): one button puts a player in a public queue, and a race
starts with strangers of a similar race rating — as lichess's Racer does in one
click, but rated (``ratings.py``) and refereed as every race (``races``).

The queue is one seat a player (``models.QuickSeat``), for one variant, with
the player's race rating as it stood when they queued. The waiting page asks
again every 1.5 s (``POST /api/races/quick/``; docs/api.md, "Quick race"):
each ask keeps the seat, and a seat not asked for in ``SEEN_S`` is gone (the
page closed). Matching (``quick_match``) runs on every new seat and at most
once a second on the asks, so it needs no clock of its own — ``make run``,
which runs no beat, matches as production does.

Who races whom is ``quick_groups``, plain Python over the seats: the seat that
has waited longest first, with the others within its rating window (±100 at
first, 15 wider each second waited), nearest first. Eight (``FULL``) start at
once; fewer start when the longest-waiting seat has waited ``QUICK_RACE_WAIT``
(20 s) and at least one other is within its window. Then the next seat. A seat
nobody is near keeps waiting, its window widening, so a lone strong player
meets the field within a minute rather than never.

A matched group is one race (``races.services.race_quick``): a random proven
deal (a fresh secret key for a game that hides cards), started at once with a
10-second countdown, and rated at its end as every race. Quick races are for
accounts: a guest has no rating to match on, and a rating won against guests is
one anyone could farm (``ratings.py``)."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from accounts.services import account_required
from games.engine import MalformedError, parse_variant
from kit.errors import Invalid
from races.models import Race, Racer
from races.services import MIN_CAPACITY, race_quick

from .models import QuickSeat, RaceRating

log = logging.getLogger(__name__)

FULL = 8
"""Racers a quick race starts with at once."""
WINDOW = 100.0
"""± race rating a new seat is matched within."""
WIDENING = 15.0
"""How much wider a seat's window grows each second it waits: ±400 after 20 s."""
SEEN_S = 6.0
"""A seat whose page has not asked for this long is dropped (it asks every 1.5 s)."""
MATCH_EVERY_S = 1
"""Matching runs at most this often on the waiting pages' asks (always on a new seat)."""
DEFAULT_RATING = 1500.0


@dataclass(frozen=True)
class Seat:
    """What matching knows of a seat: who, their rating, seconds waited."""

    player: int
    rating: float
    waited: float


def window(waited: float) -> float:
    """The ± rating a seat that has waited ``waited`` seconds is matched within."""
    return WINDOW + WIDENING * max(0.0, waited)


def quick_groups(seats: Sequence[Seat], *, wait: float) -> list[list[Seat]]:
    """The races to start now from the waiting ``seats`` of one variant, each a
    list of seats, the longest-waiting first (the race's host).

    The seat that has waited longest goes first: the others within its window,
    nearest rating first (then longest waiting), make its race — the ``FULL``
    nearest at once, or all of them (at least one) once it has waited ``wait``
    seconds. A seat that makes no race yet stays; the next seat goes on (a full
    group of others may form while it waits). Each seat is in one race at most."""
    pending = sorted(seats, key=lambda s: (-s.waited, s.player))
    groups: list[list[Seat]] = []
    while pending:
        first, rest = pending[0], pending[1:]
        reach = window(first.waited)
        near = sorted(
            (s for s in rest if abs(s.rating - first.rating) <= reach),
            key=lambda s: (abs(s.rating - first.rating), -s.waited, s.player),
        )
        if len(near) + 1 >= FULL:
            group = [first, *near[: FULL - 1]]
        elif first.waited >= wait and len(near) + 1 >= MIN_CAPACITY:
            group = [first, *near]
        else:
            pending = rest
            continue
        groups.append(group)
        taken = {s.player for s in group}
        pending = [s for s in rest if s.player not in taken]
    return groups


def _variant(text: str) -> str:
    try:
        return parse_variant(text).id
    except MalformedError as exc:
        raise Invalid(exc.code, exc.message, field="variant") from None


def _rating(player: User) -> float:
    rating = RaceRating.objects.filter(player=player, races__gt=0).values_list("rating", flat=True)
    return next(iter(rating), DEFAULT_RATING)


def _still_racing(seat: QuickSeat) -> bool:
    """The seat's race is still the player's: running (or about to) and not over for them."""
    if seat.race_id is None:
        return False
    return Racer.objects.filter(
        race_id=seat.race_id,
        player_id=seat.player_id,
        race__status__in=(Race.Status.OPEN, Race.Status.RUNNING),
        status__in=(Racer.Status.WAITING, Racer.Status.RACING),
    ).exists()


def quick_join(*, player: User, variant: str, now: dt.datetime | None = None) -> dict[str, Any]:
    """Queue ``player`` for a quick race of ``variant``, or keep them queued (the
    waiting page asks again every 1.5 s); returns the queue's answer
    (``quick_status``), with the race once they are matched. A player still in
    the race they were matched to gets it again, whatever ``variant``; another
    variant than their seat's re-queues them (their wait starts again)."""
    account_required(
        player, "Quick races are rated: sign up or sign in to race players of your rating."
    )
    variant = _variant(variant)
    now = now or timezone.now()
    fresh = False
    with transaction.atomic():
        seat = QuickSeat.objects.select_for_update().filter(player=player).first()
        if seat is not None and _still_racing(seat):
            return quick_status(seat, now=now)
        if seat is not None and seat.race_id is None and seat.variant == variant:
            seat.seen_at = now
            seat.save(update_fields=["seen_at"])
        else:
            fresh = True
            fields = {"variant": variant, "rating": _rating(player), "queued_at": now}
            if seat is None:
                try:
                    with transaction.atomic():
                        seat = QuickSeat.objects.create(player=player, seen_at=now, **fields)
                except IntegrityError:  # the same player's other tab queued just now
                    seat = QuickSeat.objects.select_for_update().get(player=player)
            for name, value in {**fields, "seen_at": now, "race": None}.items():
                setattr(seat, name, value)
            seat.save()
    if fresh or _match_due(variant):
        quick_match(variant=variant, now=now)
    seat.refresh_from_db()
    return quick_status(seat, now=now)


def _match_due(variant: str) -> bool:
    """Whether this ask matches ``variant``'s queue: the first ask in
    ``MATCH_EVERY_S``, on any process (the cache away: every ask)."""
    try:
        return bool(cache.add(f"quick-match:{variant}", 1, timeout=MATCH_EVERY_S))
    except Exception:  # a Redis restart: match anyway, it is only more work
        log.warning("quick race: the cache did not answer; matching anyway")
        return True


def quick_leave(*, player: User) -> None:
    """Take ``player`` out of the queue. Once matched the race is theirs: they
    leave it as any race (``races.services.race_leave``)."""
    QuickSeat.objects.filter(player=player, race__isnull=True).delete()


def quick_match(*, variant: str, now: dt.datetime | None = None) -> list[Race]:
    """Start the quick races of ``variant`` the queue holds now
    (``quick_groups``), dropping the seats whose page is gone. One transaction
    with the variant's waiting seats locked: two matchings at once (two daphnes,
    two asks) run one after the other, and a seat is raced once."""
    now = now or timezone.now()
    started: list[Race] = []
    with transaction.atomic():
        rows = list(
            QuickSeat.objects.select_for_update()
            .filter(variant=variant, race__isnull=True)
            .select_related("player")
            .order_by("queued_at", "pk")
        )
        gone = [r.pk for r in rows if (now - r.seen_at).total_seconds() > SEEN_S]
        if gone:
            QuickSeat.objects.filter(pk__in=gone).delete()
        live = {r.player_id: r for r in rows if r.pk not in gone}
        seats = [
            Seat(r.player_id, r.rating, (now - r.queued_at).total_seconds()) for r in live.values()
        ]
        for group in quick_groups(seats, wait=settings.QUICK_RACE_WAIT):
            players = [live[s.player].player for s in group]
            race = race_quick(players=players, variant=variant)
            QuickSeat.objects.filter(player__in=players).update(race=race)
            started.append(race)
    for race in started:
        log.info("quick race %s: %s racers", race.slug, race.capacity)
    return started


def quick_status(seat: QuickSeat, *, now: dt.datetime | None = None) -> dict[str, Any]:
    """The queue's answer to its player: their seat, how many wait for the same
    variant, and the race once matched (its id: the page opens ``/race/{id}/``).
    Never another player's name or rating."""
    now = now or timezone.now()
    waited = max(0.0, (now - seat.queued_at).total_seconds())
    race = Race.objects.filter(pk=seat.race_id).values_list("slug", flat=True).first()
    return {
        "variant": seat.variant,
        "rating": round(seat.rating),
        "queued_at": seat.queued_at.isoformat(),
        "waited_ms": int(waited * 1000),
        "window": round(window(waited)),
        "queue": QuickSeat.objects.filter(variant=seat.variant, race__isnull=True).count(),
        "wait_s": settings.QUICK_RACE_WAIT,
        "full": FULL,
        "race": race,
    }
