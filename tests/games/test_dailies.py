"""The daily-deal job (issue 5): keyed candidates, proven winnable, deterministic,
idempotent, never a day without a deal."""

from __future__ import annotations

import datetime as dt
import itertools
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from games.dailies import (
    Effort,
    daily_candidates,
    daily_deal_choose,
    daily_deal_get,
    daily_deal_prepare,
    daily_deals_prepare,
)
from games.engine import GameCode, replay
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
    with override_settings(SECRET_KEY="another-secret"):
        other = first(5, DAY, "SH1-C4")
    assert set(other).isdisjoint(first(5, DAY, "SH1-C4"))


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
    with override_settings(SECRET_KEY="another-secret"):
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
    assert [d.variant for d in days] == ["EH1-N", "SH1-C4", "SH1-C2", "SH1-C1"]
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


def test_a_daily_never_deals_the_cards_of_another_daily():
    """The cell count is not in the shuffle's seed (RULES.md C1): SH1-C1 and SH1-C2
    of one number are the same cards, so a number another daily deal uses is
    skipped (no spoilers between variants, no repeats)."""
    wanted = GameCode.parse(first(1, DAY, "SH1-C2")[0])
    same_cards = GameCode("SH1", "C1", wanted.number)
    DailyDeal.objects.create(
        date=DAY - dt.timedelta(days=30),
        variant="SH1-C1",
        deal=Deal.objects.create(variant="SH1-C1", number=wanted.number, code=str(same_cards)),
    )
    daily = daily_deal_get(date=DAY, variant="SH1-C2")
    assert daily.deal.code == first(2, DAY, "SH1-C2")[1]


def test_the_command_prepares_and_reports():
    out = StringIO()
    call_command("prepare_dailies", "--date", DAY.isoformat(), "--days", "1", stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 4
    assert all(line.startswith(DAY.isoformat()) for line in lines)
    assert DailyDeal.objects.filter(date=DAY).count() == 4
    with pytest.raises(CommandError, match="--date"):
        call_command("prepare_dailies", "--date", "2026-13-01")
    with pytest.raises(CommandError, match="--days"):
        call_command("prepare_dailies", "--days", "0")
