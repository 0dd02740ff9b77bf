"""Writes: starting attempts, applying actions, resigning; and what the
background jobs do to attempts: checking finished ones by replay, closing stale
ones, proving a Seahaven position lost.

Every write that touches an attempt runs in one transaction with the attempt
row locked, asks the engine, and commits before anyone is told (STYLE.md).
Tasks are queued on commit too, so none sees a change that was rolled back.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from config.errors import ApiError
from games.engine import (
    EngineError,
    Game,
    GameCode,
    Seahaven,
    action_from_json,
    load_game,
    new_game,
    parse_variant,
)
from games.engine.codes import MAX_DEAL
from games.engine.solver import Outcome, solve

from . import realtime
from .dailies import daily_deal_get, daily_deals_open, day_end, deal_get, utc_today
from .models import Action, Attempt, DailyDeal, Deal
from .selectors import viewer_finished_daily

log = logging.getLogger(__name__)


def _open_daily(*, player: User, deal: Deal) -> DailyDeal | None:
    """The running daily deal that ``deal`` deals the cards of, if any, once the
    player may practise it; practising it before finishing the ranked attempt
    would let a player rehearse the winning line (PRODUCT.md, anti-cheat)."""
    dailies = daily_deals_open(deal=deal)
    for daily in dailies:
        if not viewer_finished_daily(viewer=player, daily=daily):
            raise ApiError(
                403,
                "daily_not_finished",
                "That deal is a daily deal still running: play your ranked attempt first.",
            )
    return dailies[0] if dailies else None


def _create_attempt(
    *, player: User, deal: Deal, daily: DailyDeal | None, ranked: bool, address: str | None = None
) -> Attempt:
    game = new_game(deal.code)
    return Attempt.objects.create(
        player=player, deal=deal, daily=daily, ranked=ranked, state=game.to_json(), address=address
    )


def attempt_start(
    *,
    player: User,
    daily: str | None = None,
    random: str | None = None,
    code: str | None = None,
    practice: bool = False,
    address: str | None = None,
) -> tuple[Attempt, bool]:
    """Start (or, for the daily, find) an attempt. Returns it and whether it is new.

    ``daily``: a variant; the player's single ranked attempt on today's deal —
    asking again returns the same attempt, whose clock started at the first
    opening (RULES.md C11). With ``practice``, a new practice game on today's
    deal for a player whose ranked attempt is over: it is tied to the daily, so
    it names no code and its replay and live view follow the daily's rule.
    ``random``: a variant; a practice game on a random numbered deal. ``code``:
    a practice game on that exact deal. ``address``: the client's, kept with a
    new ranked attempt for the fair-play review (games/fairplay.py).
    """
    if daily is not None:
        today = daily_deal_get(date=utc_today(), variant=daily)
        if practice:
            _open_daily(player=player, deal=today.deal)
            return _create_attempt(player=player, deal=today.deal, daily=today, ranked=False), True
        found = Attempt.objects.filter(player=player, daily=today, ranked=True).first()
        if found:
            return found, False
        try:
            with transaction.atomic():
                attempt = _create_attempt(
                    player=player, deal=today.deal, daily=today, ranked=True, address=address
                )
                return attempt, True
        except IntegrityError:  # the same player opened it twice at once
            return Attempt.objects.get(player=player, daily=today, ranked=True), False
    if practice:
        raise ApiError(400, "invalid", "'practice' goes with 'daily': practise today's deal.")
    if random is not None:
        game, letter = parse_variant(random)
        for _ in range(20):
            deal = deal_get(code=GameCode(game, letter, secrets.randbelow(MAX_DEAL) + 1))
            if not daily_deals_open(deal=deal):
                break
        return _create_attempt(player=player, deal=deal, daily=None, ranked=False), True
    parsed = GameCode.parse(code)
    deal = deal_get(code=parsed)
    # A deal some running daily plays (same cards) is practised as that daily's.
    open_daily = _open_daily(player=player, deal=deal)
    return _create_attempt(player=player, deal=deal, daily=open_daily, ranked=False), True


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
    sockets, and the day's leaderboard when a ranked attempt ends; queue the
    replay check of a finished attempt, or the dead-end proof of a Seahaven
    position worth one. Returns a dict that, once committed, holds the ``state``
    event sent (answers reuse it)."""
    from . import tasks

    announced: dict[str, Any] = {}
    transaction.on_commit(lambda: announced.update(realtime.game_changed(attempt, game)))
    if attempt.finished:
        if attempt.ranked:
            transaction.on_commit(lambda: realtime.leaderboard_changed(attempt))
        tasks.queue_on_commit(tasks.verify_attempt, attempt.pk)
    elif isinstance(game, Seahaven) and worth_proving(game):
        tasks.queue_on_commit(tasks.prove_lost, attempt.pk, attempt.seq)
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
        if attempt.daily is not None and attempt.ranked and attempt.daily.date < utc_today():
            # The ranked game belongs to its UTC day; the housekeeping job closes it.
            raise ApiError(409, "day_over", f"The daily deal of {attempt.daily.date} is over.")
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


# --- background jobs (games/tasks.py) -----------------------------------------------------


def replay_problem(attempt: Attempt) -> str | None:
    """Why the attempt's stored result does not follow from its action log
    replayed from the deal through the engine, or None when it does."""
    game = new_game(attempt.deal.code)
    actions = list(Action.objects.filter(attempt=attempt).order_by("seq"))
    if len(actions) != attempt.seq:
        return f"{len(actions)} actions logged, but seq is {attempt.seq}"
    last_ms = 0
    for index, action in enumerate(actions):
        if action.seq != index:
            return f"action {index} is missing"
        try:
            resolved = game.apply(action_from_json(action.sent, game.piles))
        except EngineError as exc:
            return f"action {index} is refused by the engine ({exc.code})"
        if resolved.to_json() != action.action:
            return f"action {index} resolves to {resolved.to_json()}, logged {action.action}"
        if (game.score, game.moves) != (action.score, action.moves):
            return f"action {index}: score/moves {game.score}/{game.moves} logged otherwise"
        if action.ms < last_ms:
            return f"action {index} is logged before the one it follows"
        last_ms = action.ms
    if load_game(attempt.state) != game:
        return "the stored position is not the replayed one"
    if (game.won, game.score, game.moves) != (attempt.won, attempt.score, attempt.moves):
        return "the stored result is not the replayed one"
    if game.won != (attempt.status == Attempt.Status.WON):
        return f"status {attempt.status} but the replay {'wins' if game.won else 'does not win'}"
    return None


def attempt_verify(*, attempt_id: int) -> bool | None:
    """Replay a finished attempt's action log and record whether it matches what
    was stored (PRODUCT.md, anti-cheat); a failed one leaves the leaderboard.
    Returns the verdict (None: no such finished attempt). Safe to run twice.
    A ranked attempt's fair-play review follows, on the log just checked (one
    message on the queue per finish; a lost check queued again brings it too)."""
    from . import tasks

    attempt = (
        Attempt.objects.select_related("deal", "daily", "player").filter(pk=attempt_id).first()
    )
    if attempt is None or not attempt.finished:
        return None
    problem = replay_problem(attempt)
    verified = problem is None
    if problem is not None:
        log.warning("attempt %s failed its replay check: %s", attempt_id, problem)
    with transaction.atomic():
        changed = (
            Attempt.objects.filter(pk=attempt_id)
            .filter(Q(verified__isnull=True) | Q(verified=not verified))
            .update(verified=verified)
        )
        if changed and attempt.ranked:
            attempt.verified = verified
            transaction.on_commit(lambda: realtime.leaderboard_changed(attempt))
        if attempt.ranked:
            tasks.queue_on_commit(tasks.review_attempt, attempt_id)
    return verified


STALE_PRACTICE = dt.timedelta(days=7)


def attempts_close_stale(*, now: dt.datetime | None = None) -> int:
    """Close, as abandoned with their current score, the daily attempts still open
    when their UTC day has ended (the clock stops at the day's end) and practice
    games untouched for 7 days. Returns how many were closed."""
    now = now or timezone.now()
    stale = Q(ranked=True, daily__date__lt=now.astimezone(dt.UTC).date()) | Q(
        ranked=False, updated_at__lt=now - STALE_PRACTICE
    )
    closed = 0
    for attempt_id in Attempt.objects.filter(stale, status=Attempt.Status.PLAYING).values_list(
        "pk", flat=True
    ):
        with transaction.atomic():
            # Locked and checked again: the player may have finished it meanwhile.
            attempt = (
                Attempt.objects.select_for_update(of=("self",))
                .select_related("player", "daily")
                .filter(stale, pk=attempt_id, status=Attempt.Status.PLAYING)
                .first()
            )
            if attempt is None:
                continue
            end = min(now, day_end(attempt.daily.date)) if attempt.daily else now
            _finish(attempt, Attempt.Status.ABANDONED, end)
            attempt.save(update_fields=FINISH_FIELDS)
            _announce(attempt, load_game(attempt.state))
            closed += 1
    return closed


PROOF_NODES = 30_000
"""Positions a dead-end proof may search (about a second at most; measured in
``bench/solver.py``). A search that runs out proves nothing and says nothing."""


def worth_proving(game: Seahaven) -> bool:
    """Whether a position is tight enough that a proof is likely and cheap: every
    cell is full. Being lost is only ever announced with a proof (issue 5), so
    skipping the others costs nothing but an earlier notice."""
    return not game.won and all(game.piles[cell] for cell in game.cells)


def attempt_prove_lost(*, attempt_id: int, seq: int) -> bool:
    """Search the attempt's position after action ``seq`` for a win; if the
    solver proves there is none, record it and tell the game's sockets ("this
    position can no longer be won"). Anything less — a win found, the budget
    spent, the game moved on — records and says nothing, so the player learns
    no more than the proof (issue 5). Returns whether it was proven lost."""
    attempt = Attempt.objects.select_related("player", "daily").filter(pk=attempt_id).first()
    if attempt is None or attempt.seq != seq or attempt.finished or attempt.lost_seq == seq:
        return False
    game = load_game(attempt.state)
    if solve(game, nodes=PROOF_NODES).outcome is not Outcome.UNWINNABLE:
        return False
    with transaction.atomic():
        if not Attempt.objects.filter(pk=attempt_id, seq=seq, status=Attempt.Status.PLAYING).update(
            lost_seq=seq
        ):
            return False  # the player moved on meanwhile
        attempt.lost_seq = seq
        transaction.on_commit(lambda: realtime.game_changed(attempt, game))
    return True
