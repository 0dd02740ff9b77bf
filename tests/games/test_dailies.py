"""The daily-deal job (issues 5 and 13): secret long-code candidates, proven
winnable, deterministic, idempotent, never a day without a deal."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import importlib
import itertools
from io import StringIO

import pytest
from django.apps import apps
from django.conf import settings
from django.core.management import CommandError, call_command
from django.test import override_settings

from games.dailies import (
    Effort,
    commitment,
    daily_candidates,
    daily_deal_choose,
    daily_deal_get,
    daily_deal_prepare,
    daily_deals_prepare,
)
from games.engine import ALL_VARIANTS, GameCode, replay
from games.models import DailyDeal, Deal

DAY = dt.date(2026, 11, 29)

pytestmark = pytest.mark.django_db


def first(n: int, date: dt.date, variant: str) -> list[str]:
    return [str(c) for c in itertools.islice(daily_candidates(date=date, variant=variant), n)]


def test_candidates_are_a_keyed_hash_of_the_date():
    assert first(5, DAY, "SH1-C4") == first(5, DAY, "sh1-c4")
    assert len(set(first(50, DAY, "SH1-C4"))) == 50
    assert first(5, DAY, "SH1-C4") != first(5, DAY + dt.timedelta(days=1), "SH1-C4")
    assert first(5, DAY, "SH1-C4") != first(5, DAY, "SH1-C2")
    with override_settings(DAILY_DEAL_SECRET="another-secret"):
        other = first(5, DAY, "SH1-C4")
    assert set(other).isdisjoint(first(5, DAY, "SH1-C4"))


def test_candidates_are_secret_long_codes_not_public_numbered_deals():
    """RULES.md C2b: a daily is a 26-character key — HMAC-SHA256 of the date,
    variant and index under DAILY_DEAL_SECRET, its first 128 bits — never one of
    the million numbered deals anyone can index."""
    for variant in ALL_VARIANTS:
        for index, text in enumerate(first(20, DAY, variant)):
            code = GameCode.parse(text)
            assert code.long and code.variant_id == variant and len(code.deal) == 26
            digest = hmac.new(
                settings.DAILY_DEAL_SECRET.encode(),  # tests/settings.py
                f"daily:{DAY.isoformat()}:{variant}:{index}".encode(),
                hashlib.sha256,
            ).digest()
            assert code.number == int.from_bytes(digest[:16], "big")


def test_rotating_secret_key_changes_no_deal():
    """The daily deals' secret is their own (PRODUCT.md): rotating SECRET_KEY
    (sessions, CSRF) must not move a single deal."""
    before = first(5, DAY, "EH1-N")
    with override_settings(SECRET_KEY="rotated-secret-key"):
        assert first(5, DAY, "EH1-N") == before
        assert daily_deal_choose(date=DAY, variant="SH1-C4") == daily_deal_choose(
            date=DAY, variant="SH1-C4"
        )


@pytest.mark.parametrize("variant", ["SH1-C4", "EH1-N"])
def test_prepared_deal_is_proven_by_a_line_the_engine_wins(variant):
    daily = daily_deal_prepare(date=DAY, variant=variant)
    assert daily.proven and daily.proof
    assert daily.par == len(daily.proof)
    assert daily.deal.code.startswith(variant)
    game = replay(daily.deal.code, daily.proof)
    assert game.won


def test_preparation_is_deterministic_and_depends_on_the_secret():
    chosen = daily_deal_choose(date=DAY, variant="SH1-C4")
    assert daily_deal_choose(date=DAY, variant="SH1-C4") == chosen
    assert str(chosen.code) in first(chosen.tried, DAY, "SH1-C4")
    with override_settings(DAILY_DEAL_SECRET="another-secret"):
        other = daily_deal_choose(date=DAY, variant="SH1-C4")
    assert other.code != chosen.code


def test_the_hard_variant_settles_many_candidates_and_finds_a_winnable_one():
    """With one cell few deals are winnable (issue 5): the job proves most
    candidates unwinnable on its way to one it proves winnable."""
    daily = daily_deal_prepare(date=DAY, variant="SH1-C1")
    assert daily.proven, "no winnable 1-cell deal proven within the job's effort"
    assert replay(daily.deal.code, daily.proof).won
    assert daily.tried >= 1


def test_preparing_twice_changes_nothing():
    days = daily_deals_prepare(start=DAY, days=1)
    assert [d.variant for d in days] == list(ALL_VARIANTS)
    before = list(DailyDeal.objects.order_by("pk").values())
    deals = Deal.objects.count()
    again = daily_deals_prepare(start=DAY, days=1)
    assert [d.pk for d in again] == [d.pk for d in days]
    assert list(DailyDeal.objects.order_by("pk").values()) == before
    assert Deal.objects.count() == deals


def test_a_day_is_never_left_empty_when_nothing_is_proven():
    """No candidate proven within the effort: the first one whose search ran out
    of budget is taken, unproven, and the day has its deal."""
    hopeless = Effort(nodes=1, candidates=3, seconds=60)
    daily = daily_deal_prepare(date=DAY, variant="SH1-C2", effort=hopeless)
    assert not daily.proven and daily.par is None and daily.proof is None
    assert daily.deal.code in first(3, DAY, "SH1-C2")
    assert DailyDeal.objects.filter(date=DAY, variant="SH1-C2").count() == 1


def test_reading_a_day_the_job_has_not_prepared_makes_it_at_once_unproven():
    daily = daily_deal_get(date=DAY, variant="SH1-C4")
    assert not daily.proven and daily.tried == 0
    assert daily.deal.code == first(1, DAY, "SH1-C4")[0]
    # The job later leaves it alone: players may have started it.
    assert daily_deal_prepare(date=DAY, variant="SH1-C4").pk == daily.pk
    assert not DailyDeal.objects.get(pk=daily.pk).proven


def _forget_numbered_future_days():
    migration = importlib.import_module("games.migrations.0004_long_codes")
    migration.forget_numbered_future_days(apps, None)


def test_upgrade_prepares_again_the_days_not_started_that_had_numbered_deals():
    """Issue 13: days not yet started that were prepared with a (public) numbered
    deal are prepared again with a key; today and past days keep theirs."""
    today = dt.datetime.now(dt.UTC).date()
    numbered = {}
    for offset in (-1, 0, 1, 2):
        date = today + dt.timedelta(days=offset)
        code = GameCode("EH1", "N", 100 + offset)
        deal = Deal.objects.create(variant="EH1-N", number=code.number, code=str(code))
        numbered[date] = DailyDeal.objects.create(date=date, variant="EH1-N", deal=deal)
    _forget_numbered_future_days()
    kept = set(DailyDeal.objects.values_list("date", flat=True))
    assert kept == {today - dt.timedelta(days=1), today}
    again = daily_deal_get(date=today + dt.timedelta(days=1), variant="EH1-N")
    assert GameCode.parse(again.deal.code).long


def test_the_command_prepares_and_reports():
    out = StringIO()
    call_command("prepare_dailies", "--date", DAY.isoformat(), "--days", "1", stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == len(ALL_VARIANTS)
    assert all(line.startswith(DAY.isoformat()) for line in lines)
    assert DailyDeal.objects.filter(date=DAY).count() == len(ALL_VARIANTS)
    # A past day is named by its code; a day not over only by its commitment.
    assert all(d.deal.code in out.getvalue() for d in DailyDeal.objects.filter(date=DAY))
    today = dt.datetime.now(dt.UTC).date()
    out = StringIO()
    call_command("prepare_dailies", "--days", "1", stdout=out)
    for daily in DailyDeal.objects.filter(date=today):
        assert daily.deal.code not in out.getvalue()
        assert commitment(daily.deal.code)[:16] in out.getvalue()
    with pytest.raises(CommandError, match="--date"):
        call_command("prepare_dailies", "--date", "2026-13-01")
    with pytest.raises(CommandError, match="--days"):
        call_command("prepare_dailies", "--days", "0")
