"""Writes: starting attempts, applying actions, resigning, making daily deals.

Every write that touches an attempt runs in one transaction with the attempt
row locked, asks the engine, and commits before anyone is told (STYLE.md).
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from config.errors import ApiError
from games.engine import Game, GameCode, action_from_json, load_game, new_game, parse_variant
from games.engine.codes import MAX_DEAL

from . import realtime
from .dailies import daily_deal_get, daily_deals_open, deal_get, utc_today
from .models import Action, Attempt, DailyDeal, Deal


def _refuse_spoilers(*, player: User, deal: Deal) -> None:
    # Practising today's daily deal before finishing the ranked attempt would
    # let a player rehearse the winning line (PRODUCT.md, anti-cheat).
    for daily in daily_deals_open(deal=deal):
        finished = Attempt.objects.filter(player=player, daily=daily, ranked=True).exclude(
            status=Attempt.Status.PLAYING
        )
        if not finished.exists():
            raise ApiError(
                403,
                "daily_not_finished",
                "That deal is a daily deal still running: play your ranked attempt first.",
            )


def _create_attempt(*, player: User, deal: Deal, daily: DailyDeal | None) -> Attempt:
    game = new_game(deal.code)
    return Attempt.objects.create(
        player=player,
        deal=deal,
        daily=daily,
        ranked=daily is not None,
        state=game.to_json(),
    )


def attempt_start(
    *,
    player: User,
    daily: str | None = None,
    random: str | None = None,
    code: str | None = None,
) -> tuple[Attempt, bool]:
    """Start (or, for the daily, find) an attempt. Returns it and whether it is new.

    ``daily``: a variant; the player's single ranked attempt on today's deal —
    asking again returns the same attempt, whose clock started at the first
    opening (RULES.md C11). ``random``: a variant; a practice game on a random
    deal. ``code``: a practice game on that exact deal.
    """
    if daily is not None:
        today = daily_deal_get(date=utc_today(), variant=daily)
        found = Attempt.objects.filter(player=player, daily=today, ranked=True).first()
        if found:
            return found, False
        try:
            with transaction.atomic():
                return _create_attempt(player=player, deal=today.deal, daily=today), True
        except IntegrityError:  # the same player opened it twice at once
            return Attempt.objects.get(player=player, daily=today, ranked=True), False
    if random is not None:
        game, letter = parse_variant(random)
        for _ in range(20):
            deal = deal_get(code=GameCode(game, letter, secrets.randbelow(MAX_DEAL) + 1))
            if not daily_deals_open(deal=deal):
                break
        return _create_attempt(player=player, deal=deal, daily=None), True
    parsed = GameCode.parse(code)
    deal = deal_get(code=parsed)
    _refuse_spoilers(player=player, deal=deal)
    return _create_attempt(player=player, deal=deal, daily=None), True


def _locked_attempt(*, attempt_id: int, player: User) -> Attempt:
    attempt = (
        Attempt.objects.select_for_update(of=("self",))
        .select_related("player", "daily")
        .filter(pk=attempt_id)
        .first()
    )
    if attempt is None:
        raise ApiError(404, "not_found", f"No game {attempt_id}.")
    if attempt.player_id != player.pk:
        raise ApiError(403, "not_yours", "Only the player of a game can act on it.")
    return attempt


PLAY_FIELDS = ["state", "seq", "score", "moves", "won", "updated_at"]
FINISH_FIELDS = ["status", "finished_at", "elapsed_ms", "updated_at"]


def _finish(attempt: Attempt, status: str, now: dt.datetime) -> None:
    attempt.status = status
    attempt.finished_at = now
    # The clock is the server's and stops at the winning move or the resignation (C11).
    attempt.elapsed_ms = attempt.ms_since_start(now)


def _announce(attempt: Attempt, game: Game) -> dict[str, Any]:
    """After commit — never for a change that was rolled back — tell the game's
    sockets, and the day's leaderboard when a ranked attempt ends. Returns a dict
    that, once committed, holds the ``state`` event sent (answers reuse it)."""
    announced: dict[str, Any] = {}
    transaction.on_commit(lambda: announced.update(realtime.game_changed(attempt, game)))
    if attempt.ranked and attempt.finished:
        transaction.on_commit(lambda: realtime.leaderboard_changed(attempt))
    return announced


@dataclass(frozen=True)
class Applied:
    attempt: Attempt
    game: Game
    """The engine's game as committed (saves loading it again to answer)."""
    duplicate: bool
    """The action had been applied already (a resend): nothing was applied now."""
    announced: dict[str, Any] = field(default_factory=dict)
    """The ``state`` event broadcast after commit (empty for a resend)."""


def attempt_apply_action(
    *, attempt_id: int, player: User, seq: int, action: dict[str, Any]
) -> Applied:
    """Apply one action: one transaction, the attempt row locked, ``seq`` checked
    (PRODUCT.md), the engine asked, the action logged — committed before any
    answer. A refusal raises and changes nothing."""
    with transaction.atomic():
        attempt = _locked_attempt(attempt_id=attempt_id, player=player)
        game = load_game(attempt.state)
        parsed = action_from_json(action, game.piles)
        sent = parsed.to_json()
        if seq < attempt.seq:
            done = Action.objects.filter(attempt=attempt, seq=seq).first()
            if done is not None and done.sent == sent:
                return Applied(attempt, game, duplicate=True)
        if seq != attempt.seq:
            raise ApiError(
                409,
                "seq_conflict",
                f"This game has accepted {attempt.seq} actions; send seq {attempt.seq}.",
                seq=attempt.seq,
            )
        if attempt.finished:
            raise ApiError(409, "finished", f"This game is over ({attempt.status}).")
        resolved = game.apply(parsed)
        now = timezone.now()
        Action.objects.create(
            attempt=attempt,
            seq=seq,
            sent=sent,
            action=resolved.to_json(),
            ms=attempt.ms_since_start(now),
            score=game.score,
            moves=game.moves,
        )
        attempt.state = game.to_json()
        attempt.seq = seq + 1
        attempt.score, attempt.moves, attempt.won = game.score, game.moves, game.won
        if game.won:
            _finish(attempt, Attempt.Status.WON, now)
        attempt.save(update_fields=[*PLAY_FIELDS, *FINISH_FIELDS] if game.won else PLAY_FIELDS)
        announced = _announce(attempt, game)
    return Applied(attempt, game, duplicate=False, announced=announced)


def attempt_resign(*, attempt_id: int, player: User) -> Attempt:
    """Give the attempt up: finished, not won, clock stopped."""
    with transaction.atomic():
        attempt = _locked_attempt(attempt_id=attempt_id, player=player)
        if attempt.finished:
            raise ApiError(409, "finished", f"This game is over ({attempt.status}).")
        _finish(attempt, Attempt.Status.RESIGNED, timezone.now())
        attempt.save(update_fields=FINISH_FIELDS)
        _announce(attempt, load_game(attempt.state))
    return attempt
