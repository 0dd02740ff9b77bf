"""Deals and daily deals: which deal a day plays, proven winnable (issue 5), and
kept secret until the day is over (issue 13, PRODUCT.md "Fair daily deals").

Each day's ranked deals are long-code deals (RULES.md C2b): their 128-bit keys
come from HMAC-SHA256 of the date, variant and candidate index under
``DAILY_DEAL_SECRET`` — a secret of their own, not ``SECRET_KEY`` — so nobody
without it can compute, enumerate or index them, and nothing can be learnt
from the public numbered deals. The preparation job (``daily_deal_prepare``,
run by Celery beat and by ``manage.py prepare_dailies``) tries the candidates
in order; the first one a solver proves winnable becomes the day's deal, stored
with the solver's line ("proof") and its length ("par", the best known line —
not necessarily the shortest). Everything is decided by the secret, the date
and node budgets, never by the clock, so a second run (another worker, a retry)
picks the same deals and changes nothing.

Reading a day that the job has not prepared (``daily_deal_get``) never waits
for a solver. A day being dealt — queued for preparation or in it, a mark in the
shared cache (``daily_deals_mark``; ``manage.py prepare_dailies --queue`` at start,
issue 38) — is refused 409 ``being_dealt`` with the seconds to wait, so the
service answers from its first second and shows each deal once it is proven;
any other missing day takes its first candidate unproven, logged — the day is
never left without a deal (the mark lapses after ``DEALING_S``: a heavy worker
down does not hold the lobby shut). Used by the writes (``services``) and the
reads (``selectors``) alike.

What is published when: ``commitment`` (SHA-256 of the code), ``par`` and the
predicted difficulty (``predicted``: counts only) from the start of the day,
``code`` and ``proof`` once it is over (``day_over``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.engine import (
    ALL_VARIANTS,
    VARIANTS,
    Effort,
    GameCode,
    new_game,
    parse_variant,
    predict,
    solve,
)
from games.engine.solver import Outcome
from kit.errors import Conflict

from . import metrics
from .daily_keys import candidate_codes
from .models import DailyDeal, Deal

log = logging.getLogger(__name__)

DAYS_AHEAD = 3
"""Today and the next two days are prepared."""


def utc_today() -> dt.date:
    return timezone.now().astimezone(dt.UTC).date()


def day_end(date: dt.date) -> dt.datetime:
    """00:00 UTC after the day ``date``: its ranked games' clocks stop, its deals
    are revealed."""
    return dt.datetime.combine(date + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC)


def day_over(date: dt.date) -> bool:
    """Whether the day ``date`` (UTC) has ended: its deals are no longer secret."""
    return date < utc_today()


def commitment(code: GameCode | str) -> str:
    """SHA-256 (hex) of the full code string: published while the day runs, so
    anyone can check the code revealed afterwards (PRODUCT.md)."""
    return hashlib.sha256(str(code).encode("ascii")).hexdigest()


def deal_get(*, code: GameCode) -> Deal:
    deal, _ = Deal.objects.get_or_create(
        code=str(code),
        defaults={"variant": code.variant_id, "number": None if code.long else code.number},
    )
    return deal


def _canonical(variant: str) -> tuple[str, str]:
    parsed = parse_variant(variant)
    return parsed.game, parsed.id


def daily_candidates(*, date: dt.date, variant: str) -> Iterator[GameCode]:
    """The deals ``date`` may play in ``variant``, in the order they are tried:
    long codes keyed by ``DAILY_DEAL_SECRET`` (``games/daily_keys.py``). Keys
    never repeat in practice (2^-128), so no day can share another's deal."""
    return candidate_codes(secret=settings.DAILY_DEAL_SECRET.encode(), date=date, variant=variant)


def prove(
    code: GameCode, *, nodes: int, seconds: float | None = None
) -> tuple[Outcome, list[dict[str, object]] | None]:
    """Search the deal ``code`` from its start: the outcome and, when solved, the
    winning line as JSON actions — replayed through the engine first, which is
    the judge of a proof (a line that does not win is logged and counts as
    unknown). The daily deals and the practice pool (``games/practice.py``)
    prove their deals so."""
    game = new_game(code)
    result = solve(game, nodes=nodes, seconds=seconds)
    if result.outcome is not Outcome.SOLVED:
        return result.outcome, None
    for action in result.line:
        game.apply(action)
    if not game.won:
        log.error("solver line for commitment %s does not win", commitment(code)[:16])
        return Outcome.UNKNOWN, None
    return Outcome.SOLVED, [a.to_json() for a in result.line]


@dataclass(frozen=True)
class Choice:
    code: GameCode
    proof: list[dict[str, object]] | None
    tried: int


def daily_deal_choose(*, date: dt.date, variant: str, effort: Effort | None = None) -> Choice:
    """Try the day's candidates in order; the first one a solver proves winnable
    wins, else the first one whose search ran out of budget (never one proven
    unwinnable while another is left), else the first candidate."""
    _, variant = _canonical(variant)
    effort = effort or VARIANTS[variant][1].effort  # the game's declaration
    started = time.perf_counter()
    fallback: GameCode | None = None
    first: GameCode | None = None
    tried = 0
    for code in daily_candidates(date=date, variant=variant):
        if tried >= effort.candidates or time.perf_counter() - started > effort.seconds:
            break
        tried += 1
        first = first or code
        outcome, line = prove(code, nodes=effort.nodes)
        if line is not None:
            return Choice(code, line, tried)
        if outcome is Outcome.UNKNOWN and fallback is None:
            fallback = code
    chosen = fallback or first
    assert chosen is not None
    log.warning(
        "no winnable deal proven for %s %s after %d candidates (%.1f s): commitment %s unproven",
        date,
        variant,
        tried,
        time.perf_counter() - started,
        commitment(chosen)[:16],
    )
    return Choice(chosen, None, tried)


def predicted(*, code: GameCode, variant: str) -> dict[str, object]:
    """The published prediction of a proven deal's difficulty (issue 27): counts
    and a level only (``games/engine/difficulty.py``), the proof searched again
    within the variant's node budget."""
    return predict(code, nodes=VARIANTS[variant][1].effort.nodes).to_json()


def _store(
    *, date: dt.date, variant: str, choice: Choice, prediction: dict[str, object] | None = None
) -> DailyDeal:
    proof = choice.proof
    try:
        with transaction.atomic():
            return DailyDeal.objects.create(
                date=date,
                variant=variant,
                deal=deal_get(code=choice.code),
                proven=proof is not None,
                proof=proof,
                par=len(proof) if proof is not None else None,
                tried=choice.tried,
                predicted=prediction,
            )
    except IntegrityError:  # another worker or request stored the day first
        return DailyDeal.objects.select_related("deal").get(date=date, variant=variant)


DEALING_S = 600
"""A day marked being dealt when its preparation is queued stays so this long at
most (a heavy worker busy or down: then it is made on demand, unproven)."""

PREPARING_S = 180
"""… and while it is prepared, this long at most: above a task's hard time limit
(``CELERY_TASK_TIME_LIMIT``, 150 s), so a killed preparation does not hold it."""

DEALING_RETRY_S = 5
"""The wait a ``being_dealt`` refusal asks for (a deal takes seconds to a minute)."""


def _dealing_key(date: dt.date, variant: str) -> str:
    return f"daily-dealing:{date.isoformat()}:{variant}"


def daily_deals_mark(
    *, start: dt.date | None = None, days: int = DAYS_AHEAD, seconds: int = DEALING_S
) -> int:
    """Mark each day from ``start`` (today) for ``days`` days and each variant
    that has no deal yet as being dealt, for ``seconds``: until its preparation,
    queued, has stored it, reading it is refused 409 ``being_dealt`` rather than
    made unproven on demand. Returns how many were marked. A cache that does not
    answer marks nothing (logged): such a day is then made on demand, as before."""
    start = start or utc_today()
    dates = [start + dt.timedelta(days=offset) for offset in range(days)]
    stored = set(DailyDeal.objects.filter(date__in=dates).values_list("date", "variant"))
    missing = [(d, v) for d in dates for v in ALL_VARIANTS if (d, v) not in stored]
    try:
        cache.set_many({_dealing_key(d, v): 1 for d, v in missing}, timeout=seconds)
    except Exception as exc:
        log.warning("daily deals not marked being dealt: %s: %s", type(exc).__name__, exc)
        return 0
    return len(missing)


def being_dealt(*, date: dt.date, variant: str) -> bool:
    """Whether the day's deal is marked being dealt (``daily_deals_mark``, or its
    preparation running); False while the cache does not answer."""
    try:
        return cache.get(_dealing_key(date, variant)) is not None
    except Exception:
        return False


def _dealing(date: dt.date, variant: str, seconds: int | None) -> None:
    """Mark (``seconds``) or unmark (None) one day's deal; a cache away is let be."""
    try:
        if seconds is None:
            cache.delete(_dealing_key(date, variant))
        else:
            cache.set(_dealing_key(date, variant), 1, timeout=seconds)
    except Exception:
        log.warning("daily deal %s %s: the cache did not answer", date, variant)


def daily_deal_prepare(*, date: dt.date, variant: str, effort: Effort | None = None) -> DailyDeal:
    """The daily deal of ``date`` and ``variant``, chosen and proven now if it
    does not exist yet — marked being dealt meanwhile (``being_dealt``). A day
    once stored is never changed: players may have started it."""
    _, variant = _canonical(variant)
    daily = DailyDeal.objects.select_related("deal").filter(date=date, variant=variant).first()
    if daily is not None:
        return daily
    _dealing(date, variant, PREPARING_S)
    try:
        return _prepare(date=date, variant=variant, effort=effort)
    finally:
        _dealing(date, variant, None)


def _prepare(*, date: dt.date, variant: str, effort: Effort | None) -> DailyDeal:
    started = time.perf_counter()
    choice = daily_deal_choose(date=date, variant=variant, effort=effort)
    # How hard it is, published beside the commitment: an unproven deal has none.
    prediction = predicted(code=choice.code, variant=variant) if choice.proof else None
    daily = _store(date=date, variant=variant, choice=choice, prediction=prediction)
    seconds = time.perf_counter() - started
    metrics.daily_prepared(
        variant=variant, proven=choice.proof is not None, tried=choice.tried, seconds=seconds
    )
    # The log names the commitment, not the key: logs travel further than the secret.
    log.info(
        "daily deal %s %s: commitment %s, %s, %d candidate(s) tried",
        date,
        variant,
        commitment(daily.deal.code)[:16],
        f"par {daily.par}" if daily.proven else "unproven",
        daily.tried,
    )
    return daily


def daily_deals_prepare(*, start: dt.date | None = None, days: int = DAYS_AHEAD) -> list[DailyDeal]:
    """Every variant's daily deal from ``start`` (today) for ``days`` days."""
    start = start or utc_today()
    return [
        daily_deal_prepare(date=start + dt.timedelta(days=offset), variant=variant)
        for offset in range(days)
        for variant in ALL_VARIANTS
    ]


def daily_deal_get(*, date: dt.date, variant: str) -> DailyDeal:
    """The daily deal of ``date`` and ``variant`` (PRODUCT.md: created on demand
    if the job has not made it yet). On demand nothing is solved — a request
    never waits for a solver: a day being dealt (``being_dealt``) is refused 409
    ``being_dealt`` with the seconds to wait (``params.wait``), any other takes its
    first candidate, unproven."""
    _, variant = _canonical(variant)
    daily = DailyDeal.objects.select_related("deal").filter(date=date, variant=variant).first()
    if daily is not None:
        return daily
    if being_dealt(date=date, variant=variant):
        raise Conflict(
            "being_dealt",
            f"The daily deals of {date} are being dealt: they appear within a minute.",
            params={"wait": DEALING_RETRY_S},
        )
    code = next(daily_candidates(date=date, variant=variant))
    log.warning("daily deal %s %s made on demand, unproven: is beat running?", date, variant)
    metrics.daily_made_on_demand(variant=variant)
    return _store(date=date, variant=variant, choice=Choice(code, None, 0))


def open_daily_cards() -> set[str]:
    """Every code that deals the same cards as a daily deal not yet over (today or
    later), in any cell count: the deals practice must not hand out at random
    (``games/practice.py``). One query; a dozen dailies at most."""
    return {
        str(code)
        for stored in DailyDeal.objects.filter(date__gte=utc_today()).values_list(
            "deal__code", flat=True
        )
        for code in GameCode.parse(stored).same_cards()
    }


def daily_deals_open(*, deal: Deal) -> list[DailyDeal]:
    """The daily deals not yet over (today or later) that deal the same cards as
    ``deal``: the same deal, or — since the cell count is not in the shuffle's
    seed (RULES.md C1, C2b) — the same game and deal with another cell count."""
    same = [str(code) for code in GameCode.parse(deal.code).same_cards()]
    return list(
        DailyDeal.objects.filter(deal__code__in=same, date__gte=utc_today()).select_related("deal")
    )
