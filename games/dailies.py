"""Deals and daily deals: which deal a day plays, created on demand (PRODUCT.md).

Used by the writes (``services``) and the reads (``selectors``) alike.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.engine import GameCode, parse_variant
from games.engine.codes import MAX_DEAL

from .models import DailyDeal, Deal


def utc_today() -> dt.date:
    return timezone.now().astimezone(dt.UTC).date()


def deal_get(*, code: GameCode) -> Deal:
    deal, _ = Deal.objects.get_or_create(
        code=str(code), defaults={"variant": code.variant_id, "number": code.number}
    )
    return deal


def daily_number(*, date: dt.date, variant: str) -> int:
    """Today's deal number: a keyed hash of the date, so it cannot be guessed from
    the code. The background job of the daily-deals issue replaces the choice
    with proven-winnable deals; this stays the fallback."""
    digest = hmac.new(
        settings.SECRET_KEY.encode(), f"daily:{date.isoformat()}:{variant}".encode(), hashlib.sha256
    ).digest()
    return int.from_bytes(digest[:8], "big") % MAX_DEAL + 1


def daily_deal_get(*, date: dt.date, variant: str) -> DailyDeal:
    """The daily deal of ``date`` and ``variant``, created on demand (PRODUCT.md)."""
    game, variant_letter = parse_variant(variant)
    variant = f"{game}-{variant_letter}"
    daily = DailyDeal.objects.select_related("deal").filter(date=date, variant=variant).first()
    if daily:
        return daily
    code = GameCode(game, variant_letter, daily_number(date=date, variant=variant))
    try:
        with transaction.atomic():
            return DailyDeal.objects.create(date=date, variant=variant, deal=deal_get(code=code))
    except IntegrityError:  # another request made it first
        return DailyDeal.objects.select_related("deal").get(date=date, variant=variant)


def daily_deals_open(*, deal: Deal) -> list[DailyDeal]:
    """The daily deals not yet over (today or later) that deal the same cards as
    ``deal``: the same deal, or — since the variant is not in the shuffle's seed
    (RULES.md C1, ``games/engine/shuffle.py``) — the same game and number with
    another cell count."""
    game = deal.variant.split("-")[0]
    return list(
        DailyDeal.objects.filter(
            deal__number=deal.number, deal__variant__startswith=f"{game}-", date__gte=utc_today()
        )
    )
