"""Finished daily results built through the ORM (the engine and the action path
have their own tests), and a player's record as the API reports it."""

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
    user: User,
    daily: DailyDeal,
    *,
    won: bool = True,
    score: int = 100,
    ms: int = 60_000,
    moves: int = 100,
    finished_at: dt.datetime | None = None,
    status: str | None = None,
    verified: bool | None = True,
) -> Attempt:
    attempt = _create_attempt(player=user, deal=daily.deal, daily=daily, ranked=True)
    attempt.status = status or (Attempt.Status.WON if won else Attempt.Status.RESIGNED)
    attempt.won = won
    attempt.score = score
    attempt.elapsed_ms = ms
    attempt.moves = moves
    attempt.finished_at = finished_at or timezone.now()
    attempt.verified = verified
    attempt.save()
    return attempt


def record(client: Any, username: str) -> dict[str, Any]:
    response = client.get(f"/api/players/{username}/")
    assert response.status_code == 200, response.content
    return response.json()
