"""Writes: starting attempts, applying actions, resigning; and what the
background jobs do to attempts: checking finished ones by replay, closing stale
ones, proving a Seahaven position lost.

Every write that touches an attempt runs in one transaction with the attempt
row locked, asks the engine, and commits before anyone is told (STYLE.md).
Tasks are queued on commit too, so none sees a change that was rolled back.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from games.engine import (
    EngineError,
    GameCode,
    load_game,
    new_game,
    solve,
)
from games.engine.solver import Outcome
from kit import logs
from kit.commits import Followups
from kit.errors import Conflict, Invalid, Refusal, as_refusal

from . import events, realtime, store
from .dailies import daily_deal_get, daily_deals_open, day_end, deal_get, utc_today
from .followups import attempt_changed, attempt_checked, result_changed
from .models import Action, Attempt, DailyDeal, Deal
from .practice import practice_deal_draw
from .selectors import attempt_check_player, attempt_json

log = logging.getLogger(__name__)


DAILY_RUNNING = (
    "That deal is a daily deal whose day is still running: it opens for practice, to"
    " everyone, once its day ends (00:00 UTC)."
)


def _refuse_running_daily(*, deal: Deal) -> None:
    """No practice copy of a daily not yet over (``deal`` or the same cards in
    another cell count), for anyone, before or after their ranked attempt: with
    undo it would show every hidden card, for a second account to play
    (PRODUCT.md, anti-cheat: "A daily's deal opens for practice (to everyone)
    only once its day is over")."""
    if daily_deals_open(deal=deal):
        raise Conflict("daily_running", DAILY_RUNNING)


def _create_attempt(
    *,
    player: User,
    deal: Deal,
    daily: DailyDeal | None,
    ranked: bool,
    address: str | None = None,
    device: str = "",
    proven: bool | None = None,
) -> Attempt:
    game = new_game(deal.code)
    return Attempt.objects.create(
        player=player,
        deal=deal,
        daily=daily,
        ranked=ranked,
        state=game.to_json(),
        address=address,
        device=device,
        proven=proven,
    )


def attempt_start(
    *,
    player: User,
    daily: str | None = None,
    random: str | None = None,
    code: str | None = None,
    practice: bool = False,
    any_deal: bool = False,
    address: str | None = None,
    device: str = "",
) -> tuple[Attempt, bool]:
    """Start (or, for the daily, find) an attempt. Returns it and whether it is new.

    ``daily``: a variant; the player's single ranked attempt on today's deal —
    asking again returns the same attempt, whose clock started at the first
    opening (RULES.md C11). With ``practice``: refused (409 ``daily_running``),
    whoever asks — today's deal is practised once its day is over, by its code
    revealed then. ``random``: a variant; a practice game on a numbered deal the
    solver proved winnable, drawn from the practice pool (``games/practice.py``),
    or with ``any_deal`` on any random numbered deal (which may be impossible);
    the attempt's ``proven`` says which it got. ``code``: a practice game on
    that exact deal — refused (409 ``daily_running``) while a daily dealing the
    same cards is not over. ``address`` and ``device`` (the device id cookie,
    games/device.py): the client's, kept with a new ranked attempt for the
    fair-play review (games/fairplay.py).
    """
    if daily is not None:
        today = daily_deal_get(date=utc_today(), variant=daily)
        if practice:  # today's deal: its day runs until 00:00 UTC
            raise Conflict("daily_running", DAILY_RUNNING)
        found = Attempt.objects.filter(player=player, daily=today, ranked=True).first()
        if found:
            return found, False
        try:
            with transaction.atomic():
                attempt = _create_attempt(
                    player=player,
                    deal=today.deal,
                    daily=today,
                    ranked=True,
                    address=address,
                    device=device,
                )
                return attempt, True
        except IntegrityError:  # the same player opened it twice at once
            return Attempt.objects.get(player=player, daily=today, ranked=True), False
    if practice:
        raise Invalid("invalid", "'practice' goes with 'daily'.")
    if random is not None:
        drawn = practice_deal_draw(variant=random, proven=not any_deal)
        attempt = _create_attempt(
            player=player, deal=drawn.deal, daily=None, ranked=False, proven=drawn.proven
        )
        return attempt, True
    if any_deal:
        raise Invalid("invalid", "'any' goes with 'random': any numbered deal, maybe impossible.")
    parsed = GameCode.parse(code)
    deal = deal_get(code=parsed)
    # A deal some daily not yet over deals (the same cards): not before its day ends.
    _refuse_running_daily(deal=deal)
    return _create_attempt(player=player, deal=deal, daily=None, ranked=False), True


def _locked_for(*, attempt_id: int, player: User) -> Attempt:
    """The attempt lock (``store.attempt_locked``), for its player only."""
    attempt = store.attempt_locked(attempt_id=attempt_id)
    attempt_check_player(
        attempt_id=attempt_id, player_id=attempt.player_id if attempt else None, player=player
    )
    assert attempt is not None
    attempt.player = player
    return attempt


FINISH_FIELDS = ["status", "finished_at", "elapsed_ms", "updated_at"]


def _finish(attempt: Attempt, status: str, now: dt.datetime) -> None:
    attempt.status = status
    attempt.finished_at = now
    # The clock is the server's and stops at the winning move or the resignation (C11).
    attempt.elapsed_ms = attempt.ms_since_start(now)


class ActionRefused(Refusal):
    """A refusal of one action (a kind of ``kit.errors``: this class is mixed into
    it, see ``_refused``), knowing what it refused: ``seq``, and ``action`` as the
    engine read it (type, pile ids, count; None when it could not read it) for
    the door's log line (``games.metrics.ActionMeter``)."""

    seq: int
    action: dict[str, Any] | None


@functools.cache
def _refused_kind(kind: type[Refusal]) -> type[ActionRefused]:
    # Still the kind (its status at the doors, ``except Conflict``) and an ActionRefused.
    return type(kind.__name__, (kind, ActionRefused), {"__module__": __name__})


def _refused(exc: Exception, *, seq: int, action: dict[str, Any] | None) -> Exception:
    """``exc`` as the refusal of action ``seq`` it is answered as; ``exc`` itself
    when it is no refusal (a bug, the database gone)."""
    refusal = as_refusal(exc)
    if refusal is None:
        return exc
    refused = _refused_kind(type(refusal))(refusal.code, refusal.message, **refusal.extra)
    refused.seq, refused.action = seq, action
    return refused


@dataclass(frozen=True)
class Applied:
    attempt: Attempt
    """The attempt as committed (its ``state`` column not read: see ``store.GAMES``)."""
    duplicate: bool
    """The action had been applied already (a resend): nothing was applied now."""
    game_text: str
    """The attempt object of PRODUCT.md as its player sees it, JSON-encoded: the
    answer, and (unless a resend) what the ``state`` event carried."""
    action: dict[str, Any]
    """The action as the engine read it (type, pile ids, count), for the log line."""


# --- the action path ------------------------------------------------------------------------
#
# Every action runs this, so it is written for its cost (issue 14, issue 38). An
# action on a game this process played last is checked by the engine against
# the cached game and written by one compare-and-set statement in autocommit —
# one round trip (``store.action_swap``); when the row moved meanwhile, or the
# engine refuses the action (its answer must say the row's truth: a resend, a
# seq conflict, a game over), it goes the locked way: the attempt row locked and
# read by one prepared statement without its 5 KB state, the log row and the
# attempt written by one more (two on SQLite; ``games/store.py``). The answer is
# encoded once either way.


def _swapped(
    *, attempt_id: int, player: User, seq: int, action: dict[str, Any], origin: str | None
) -> Applied | None:
    """Action ``seq`` applied to the game this process committed last, if it has
    it at that seq and the row has not moved since; None when it does not
    apply so (the locked way answers then, exactly as it always has)."""
    entry = store.GAMES.take_entry(attempt_id)
    if entry is None:
        return None
    attempt, game = entry
    if (
        attempt.player_id != player.pk
        or attempt.seq != seq
        or attempt.finished
        or (attempt.ranked and attempt.daily and attempt.daily.date < utc_today())
        or (attempt.sealed and attempt.started_at > timezone.now())
    ):
        store.GAMES.put(attempt, game)  # the locked way answers these, from the row
        return None
    try:
        parsed = game.parse_action(action)
        resolved = game.resolve(parsed)
    except Exception:
        store.GAMES.put(attempt, game)  # unchanged; the locked way says why, from the row
        return None
    sent = parsed.to_json()
    was = (attempt.started_at, attempt.seq)
    game.play(resolved)
    now = timezone.now()
    attempt.player = player
    attempt.seq = seq + 1
    attempt.score, attempt.moves, attempt.won = game.score, game.moves, game.won
    attempt.updated_at = now
    if game.won:
        _finish(attempt, Attempt.Status.WON, now)
    resolved_json = resolved.to_json()
    if not store.action_swap(
        attempt=attempt, was=was, seq=seq, now=now, game=game, sent=sent, resolved=resolved_json
    ):
        return None  # the row moved (another process, a job): the cached game is stale
    game_text = attempt_changed(attempt, game, origin=origin)
    if not attempt.finished:
        store.GAMES.put(attempt, game)  # committed already (autocommit)
    return Applied(attempt, False, game_text, sent)


def attempt_apply_action(
    *,
    attempt_id: int,
    player: User,
    seq: int,
    action: dict[str, Any],
    origin: str | None = None,
) -> Applied:
    """Apply one action: ``seq`` checked (PRODUCT.md), the engine asked, the
    action logged — committed before any answer; by one compare-and-set
    statement on a game this process has (``_swapped``), else in a transaction
    with the attempt row locked. A refusal raises an ``ActionRefused`` of its
    kind and changes nothing. ``origin``: the socket that sent it (a channel name), which gets
    the answer and not the ``state`` event."""
    logs.bind(attempt_id=attempt_id, seq=seq)
    swapped = _swapped(attempt_id=attempt_id, player=player, seq=seq, action=action, origin=origin)
    if swapped is not None:
        return swapped
    sent: dict[str, Any] | None = None
    try:
        with transaction.atomic():
            attempt = _locked_for(attempt_id=attempt_id, player=player)
            game = store.game_of(attempt)
            try:
                parsed = game.parse_action(action)
                sent = parsed.to_json()
                if seq < attempt.seq and store.action_sent(attempt=attempt, seq=seq) == sent:
                    view = attempt_json(attempt, viewer=player, duplicate=True, game=game)
                    store.GAMES.put(attempt, game)  # unchanged: nothing was applied
                    return Applied(attempt, True, events.encode(view), sent)
                if seq != attempt.seq:
                    raise Conflict(
                        "seq_conflict",
                        f"This game has accepted {attempt.seq} actions; send seq {attempt.seq}.",
                        seq=attempt.seq,
                    )
                if attempt.finished:
                    raise Conflict("finished", f"This game is over ({attempt.status}).")
                if attempt.ranked and attempt.daily and attempt.daily.date < utc_today():
                    # The ranked game belongs to its UTC day; the housekeeping job closes it.
                    raise Conflict("day_over", f"The daily deal of {attempt.daily.date} is over.")
                if attempt.sealed and attempt.started_at > timezone.now():
                    # A race's countdown (races/): every racer's clock starts at once.
                    raise Conflict("not_started", "The race has not started yet.")
                resolved = game.resolve(parsed)
            except BaseException:
                store.GAMES.put(attempt, game)  # unchanged: nothing was applied
                raise
            game.play(resolved)
            now = timezone.now()
            attempt.seq = seq + 1
            attempt.score, attempt.moves, attempt.won = game.score, game.moves, game.won
            attempt.updated_at = now  # as written: the action's server time (races/progress.py)
            if game.won:
                _finish(attempt, Attempt.Status.WON, now)
            store.action_write(
                attempt=attempt, seq=seq, now=now, game=game, sent=sent, resolved=resolved.to_json()
            )
            game_text = attempt_changed(attempt, game, origin=origin, keep=True)
    except Exception as exc:
        refused = _refused(exc, seq=seq, action=sent)
        if refused is exc:
            raise
        raise refused from exc
    return Applied(attempt, False, game_text, sent)


def attempt_resign(*, attempt_id: int, player: User, origin: str | None = None) -> Applied:
    """Give the attempt up: finished, not won, clock stopped. ``origin`` as for
    ``attempt_apply_action``."""
    with transaction.atomic():
        attempt = _locked_for(attempt_id=attempt_id, player=player)
        if attempt.finished:
            raise Conflict("finished", f"This game is over ({attempt.status}).")
        game = store.game_of(attempt)
        _finish(attempt, Attempt.Status.RESIGNED, timezone.now())
        attempt.save(update_fields=FINISH_FIELDS)
        game_text = attempt_changed(attempt, game, origin=origin)
    return Applied(attempt, False, game_text, {"type": "resign"})


# --- guests (issue 24) ----------------------------------------------------------------------


def attempts_claim(*, guest: User, account: User) -> dict[str, list[Any]]:
    """A guest's games become ``account``'s, once the guest's session signed up or
    signed in (``accounts.signals.guest_claimed``). A daily attempt moves only if
    the account has no ranked attempt on that daily — one ranked attempt per
    person (PRODUCT.md, anti-cheat) — and then it counts exactly as if the
    account had played it: the same clock, replay check and fair-play review
    (run again, on the account: its age and addresses are what the review
    weighs). A daily the account has played keeps the guest's games of it with
    the guest, its practice included. On sign-up the guest *is* the account:
    nothing moves, its results come onto the boards.

    Returns ``{"claimed": [attempt ids], "kept": [{"attempt", "date", "variant",
    "reason"}]}``."""
    claimed: list[int] = []
    kept: list[dict[str, Any]] = []
    with transaction.atomic():
        # Locked in id order, as every other lock of several attempts would be.
        ids = Attempt.objects.filter(player=guest).order_by("pk").values_list("pk", flat=True)
        attempts = [a for a in (store.attempt_locked(attempt_id=pk) for pk in ids) if a]
        played = set()
        if guest.pk != account.pk:
            dailies = {a.daily_id for a in attempts if a.ranked}
            played = set(
                Attempt.objects.filter(player=account, ranked=True, daily__in=dailies).values_list(
                    "daily_id", flat=True
                )
            )
        for attempt in sorted(attempts, key=lambda a: not a.ranked):  # ranked ones first
            if attempt.daily_id in played:
                if attempt.ranked:
                    kept.append(_kept(attempt))
                continue
            if guest.pk != account.pk:
                try:
                    with transaction.atomic():  # the account may start that daily meanwhile
                        Attempt.objects.filter(pk=attempt.pk).update(player=account)
                except IntegrityError:
                    played.add(attempt.daily_id)
                    kept.append(_kept(attempt))
                    continue
            attempt.player = account
            claimed.append(attempt.pk)
            if attempt.ranked and attempt.finished:
                with Followups() as after:
                    result_changed(after, attempt)
                    if attempt.verified is not None:  # checked: review it again, as the account's
                        attempt_checked(after, attempt)
    return {"claimed": sorted(claimed), "kept": kept}


def attempts_of_guests_delete(*, guest_ids: list[int]) -> int:
    """Delete the games of the guests ``guest_ids`` (with their action log,
    reviews and analyses), as the guest purge deletes the guests
    (``accounts.signals.guests_purging``; ``Attempt.player`` is PROTECT). Only a
    guest's: a guest's games are on no board (``ranking.counted``), an
    account's are never deleted. Returns how many games went."""
    doomed = Attempt.objects.filter(player_id__in=guest_ids, player__is_guest=True)
    _total, by_model = doomed.delete()
    return int(by_model.get(Attempt._meta.label, 0))


def attempts_of_guests_expire(*, ended_before: dt.datetime, batch: int) -> int:
    """Delete at most ``batch`` of the guests' practice games that ended before
    ``ended_before`` (with their action log, reviews and analyses), the guests
    staying (issue 38; ``accounts.services.guest_games_purge``). Only what no
    board and no claim waits for: never a daily (a guest's ranked attempt stays
    until an account claims it or the guest is purged: PRODUCT.md, anti-cheat),
    a game going on, a race's (``races.models.Racer.attempt``: a race keeps its
    racers' games) or an account's. The guests are locked first, as a sign-up
    and the guest purge lock them, then their games in id order, as a claim
    locks them: a guest that signs up or in meanwhile keeps what it claimed.
    Returns how many games went."""
    old = Attempt.objects.filter(
        ranked=False, daily__isnull=True, finished_at__lt=ended_before, racer__isnull=True
    ).exclude(status=Attempt.Status.PLAYING)
    found = list(old.filter(player__is_guest=True).values_list("pk", "player_id")[:batch])
    if not found:
        return 0
    with transaction.atomic():
        guests = User.objects.select_for_update().filter(
            pk__in={player for _pk, player in found}, is_guest=True
        )
        guest_ids = list(guests.order_by("pk").values_list("pk", flat=True))
        locked = old.select_for_update(of=("self",)).filter(
            pk__in=[pk for pk, _player in found], player_id__in=guest_ids
        )
        ids = list(locked.order_by("pk").values_list("pk", flat=True))
        _total, by_model = Attempt.objects.filter(pk__in=ids).delete()
    return int(by_model.get(Attempt._meta.label, 0))


def _kept(attempt: Attempt) -> dict[str, Any]:
    assert attempt.daily is not None
    return {
        "attempt": attempt.pk,
        "date": attempt.daily.date.isoformat(),
        "variant": attempt.daily.variant,
        "reason": "You already have a ranked attempt on this daily deal: one each.",
    }


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
            resolved = game.apply(game.parse_action(action.sent))
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
        if attempt.ranked:
            with Followups() as after:
                if changed:
                    attempt.verified = verified
                    result_changed(after, attempt)
                attempt_checked(after, attempt)
    return verified


STALE_PRACTICE = dt.timedelta(days=7)


def _stale(attempt: Attempt, now: dt.datetime) -> bool:
    """``attempt`` (locked) is still open past its day (ranked) or untouched for
    ``STALE_PRACTICE`` (practice): the condition of ``attempts_close_stale``."""
    if attempt.status != Attempt.Status.PLAYING:
        return False
    if attempt.ranked:
        return attempt.daily is not None and attempt.daily.date < now.astimezone(dt.UTC).date()
    return attempt.updated_at < now - STALE_PRACTICE


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
            # Locked and checked again: the player may have played or finished it meanwhile.
            attempt = store.attempt_locked(attempt_id=attempt_id)
            if attempt is None or not _stale(attempt, now):
                continue
            end = min(now, day_end(attempt.daily.date)) if attempt.daily else now
            _finish(attempt, Attempt.Status.ABANDONED, end)
            attempt.save(update_fields=FINISH_FIELDS)
            attempt_changed(attempt, store.game_of(attempt))
            closed += 1
    return closed


PROOF_NODES = 30_000
"""Positions a dead-end proof may search (about a second at most; measured in
``bench/solver.py``). A search that runs out proves nothing and says nothing."""


def attempt_prove_lost(*, attempt_id: int, seq: int | None = None) -> bool:
    """Search the attempt's position after action ``seq`` (None: its position now,
    if ``Game.worth_proving_lost``) for a win; if the solver proves there is none, record
    it and tell the game's sockets ("this position can no longer be won").
    Anything less — a win found, the budget spent, the game moved on — records
    and says nothing, so the player learns no more than the proof (issue 5).
    Returns whether it was proven lost."""
    attempt = Attempt.objects.select_related("player", "daily").filter(pk=attempt_id).first()
    if attempt is None:
        return False
    latest = seq is None
    seq = attempt.seq if seq is None else seq
    if attempt.seq != seq or attempt.finished or attempt.lost_seq == seq:
        return False
    game = load_game(attempt.state)
    if latest and not game.worth_proving_lost():
        return False  # the player moved on to a position not worth a proof
    if solve(game, nodes=PROOF_NODES).outcome is not Outcome.UNWINNABLE:
        return False
    with transaction.atomic():
        if not Attempt.objects.filter(pk=attempt_id, seq=seq, status=Attempt.Status.PLAYING).update(
            lost_seq=seq
        ):
            return False  # the player moved on meanwhile
        attempt.lost_seq = seq
        with Followups() as after:
            realtime.game_published(attempt, game, after)
    return True
