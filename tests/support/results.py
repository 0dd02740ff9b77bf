"""Finished daily results and practices built through the ORM (the engine and the
action path have their own tests), and a player's record as the API reports it."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import timezone

from accounts.models import User
from games.dailies import daily_deal_get, utc_today
from games.models import Attempt, DailyDeal
from games.services import _create_attempt


def user_of(client: Any) -> User:
    return User.objects.get(username=client.username)


def daily_of(variant: str = "SH1-C4", days_ago: int = 0) -> DailyDeal:
    return daily_deal_get(date=utc_today() - dt.timedelta(days=days_ago), variant=variant)


def finished(
    user: User, daily: DailyDeal, *, verified: bool | None = True, **figures: Any
) -> Attempt:
    """A ranked game of ``daily`` by ``user``, ended with ``figures`` (those of
    ``ended``); its replay check ``verified`` (passed unless told)."""
    attempt = _create_attempt(player=user, deal=daily.deal, daily=daily, ranked=True)
    attempt.verified = verified
    return ended(attempt, **figures)


def practised(user: User, daily: DailyDeal, *, score: int = 500, **figures: Any) -> Attempt:
    """A practice of ``daily``'s deal, started by its code after the day (so tied to
    no daily, as ``attempt_start`` makes it) and ended with ``figures``."""
    attempt = _create_attempt(player=user, deal=daily.deal, daily=None, ranked=False)
    return ended(attempt, score=score, **figures)


def ended(
    attempt: Attempt,
    *,
    won: bool = True,
    score: int = 100,
    ms: int = 60_000,
    moves: int = 100,
    finished_at: dt.datetime | None = None,
    status: str | None = None,
) -> Attempt:
    """``attempt`` over, now or at ``finished_at``: won, else resigned (or ``status``)."""
    attempt.status = status or (Attempt.Status.WON if won else Attempt.Status.RESIGNED)
    attempt.won, attempt.score, attempt.elapsed_ms, attempt.moves = won, score, ms, moves
    attempt.finished_at = finished_at or timezone.now()
    attempt.save()
    return attempt


def record(client: Any, username: str) -> dict[str, Any]:
    response = client.get(f"/api/players/{username}/")
    assert response.status_code == 200, response.content
    return response.json()


def streak(current: int, longest: int, tokens: int = 0, frozen: list[str] | None = None) -> dict:
    """A record's ``streak`` as the API writes it: the days won in a row now and
    at most, the freezes held, and the days (ISO dates) a freeze was spent on."""
    return {"current": current, "longest": longest, "tokens": tokens, "frozen": frozen or []}
