"""The practice pool (issue 24): "New deal" deals a numbered deal the solver
proved winnable, unless the player asks for any deal (which may be impossible:
the solver finds 87 % of random 2-cell and 97 % of 1-cell Seahaven deals lost).

Proving takes time — a 1-cell Seahaven deal is won in about one random deal in
thirty, an Easy Harp proof takes a second or more (README, *Background jobs*)
— so a beat job (``tasks.fill_practice_pools``) keeps ``POOL_SIZE`` proven
numbered deals per variant in ``ProvenDeal``, and a New deal draws one of them
at random. A pool not yet filled (a fresh machine, ``make run``, which runs no
beat) is searched into by the request itself, within ``INLINE_SECONDS``: what
it proves joins the pool, and only if nothing is proven and the pool is empty
is the deal a random one, said as not proven (``Drawn.proven``).

Numbered deals are public, so nothing here is secret; but a deal some daily
not yet over deals (the same cards, any cell count) is never handed out at
random (``dailies.open_daily_cards``): its practice belongs to the daily's rule.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from games.engine import VARIANTS, GameCode, parse_variant
from games.engine.codes import MAX_DEAL

from .dailies import deal_get, open_daily_cards, prove
from .models import Deal, ProvenDeal

log = logging.getLogger(__name__)

POOL_SIZE = 300
"""Proven deals kept per variant: a player meets the same one again about once
in 300 New deals. The job stops adding there."""

FILL_SECONDS = 60.0
"""One fill task's solver time for one variant, well under the tasks' time
limit (``CELERY_TASK_SOFT_TIME_LIMIT``): a pool is filled over a few runs
(Easy Harp: about 50 proofs a run)."""

INLINE_BELOW = 20
"""A pool with fewer proven deals than this is searched into by the New deal
request itself, so a fresh machine's first deals vary and are proven."""

INLINE_SECONDS = 1.5
"""What a New deal request may spend searching: a few 1-cell Seahaven proofs,
about one Easy Harp proof (median 1.2 s, bench/practice.py)."""


@dataclass(frozen=True)
class Drawn:
    deal: Deal
    proven: bool
    """The solver proved the deal winnable (False: any deal, may be impossible)."""


def _canonical(variant: str) -> str:
    return parse_variant(variant).id


def _random_codes(variant: str, blocked: set[str]) -> Iterator[GameCode]:
    """Random numbered deals of ``variant``, none a running daily's cards."""
    game, letter = parse_variant(variant)
    while True:
        code = GameCode(game, letter, secrets.randbelow(MAX_DEAL) + 1)
        if str(code) not in blocked:
            yield code


def _add(code: GameCode, par: int) -> Deal:
    """Store a proven deal in its variant's pool (again: nothing changes)."""
    deal = deal_get(code=code)
    try:
        with transaction.atomic():
            ProvenDeal.objects.get_or_create(
                deal=deal, defaults={"variant": deal.variant, "par": par}
            )
    except IntegrityError:  # another process stored it at the same moment
        pass
    return deal


def _search(variant: str, *, seconds: float, blocked: set[str], want: int) -> Iterator[Deal]:
    """Prove random numbered deals of ``variant`` for ``seconds`` at most (each
    search within the variant's daily node budget and the time left), storing
    each proven one; stop after ``want``."""
    nodes = VARIANTS[variant][1].effort.nodes
    deadline = time.perf_counter() + seconds
    found = 0
    for code in _random_codes(variant, blocked):
        left = deadline - time.perf_counter()
        if left <= 0 or found >= want:
            return
        _, line = prove(code, nodes=nodes, seconds=left)
        if line is not None:
            found += 1
            yield _add(code, len(line))


def pool_fill(*, variant: str, size: int = POOL_SIZE, seconds: float = FILL_SECONDS) -> int:
    """Add proven deals to ``variant``'s pool until it holds ``size`` (or
    ``seconds`` of search are spent). Returns how many were added: none once
    the pool is full, so a second run changes nothing."""
    variant = _canonical(variant)
    missing = size - ProvenDeal.objects.filter(variant=variant).count()
    if missing <= 0:
        return 0
    started = time.perf_counter()
    added = sum(
        1 for _ in _search(variant, seconds=seconds, blocked=open_daily_cards(), want=missing)
    )
    log.info(
        "practice pool %s: %d proven deal(s) added in %.1f s, %d still missing",
        variant,
        added,
        time.perf_counter() - started,
        missing - added,
    )
    return added


def practice_deal_draw(*, variant: str, proven: bool = True) -> Drawn:
    """A deal for "New deal" in ``variant``: with ``proven`` one the solver proved
    winnable, drawn at random from the pool (searched into first while the pool
    is small); else, or when nothing could be proven and the pool is empty, any
    random numbered deal. Never a deal a daily not yet over deals."""
    variant = _canonical(variant)
    blocked = open_daily_cards()
    if not proven:
        return Drawn(deal_get(code=next(_random_codes(variant, blocked))), proven=False)
    pool = ProvenDeal.objects.filter(variant=variant).exclude(deal__code__in=blocked)
    if pool.count() < INLINE_BELOW:
        for deal in _search(variant, seconds=INLINE_SECONDS, blocked=blocked, want=1):
            return Drawn(deal, proven=True)
    chosen = pool.select_related("deal").order_by("?").first()
    if chosen is not None:
        return Drawn(chosen.deal, proven=True)
    log.warning("practice pool %s empty and no deal proven in %.1f s", variant, INLINE_SECONDS)
    return Drawn(deal_get(code=next(_random_codes(variant, blocked))), proven=False)
