"""Writes: starting attempts, applying actions, resigning; and what the
background jobs do to attempts: checking finished ones by replay, closing stale
ones, proving a Seahaven position lost.

Every write that touches an attempt runs in one transaction with the attempt
row locked, asks the engine, and commits before anyone is told (STYLE.md).
Tasks are queued on commit too, so none sees a change that was rolled back.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import threading
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from games.engine import (
    EngineError,
    Game,
    GameCode,
    load_game,
    new_game,
    solve,
)
from games.engine.solver import Outcome
from kit import logs
from kit.errors import Conflict, Forbidden, Invalid

from . import realtime, signals
from .dailies import daily_deal_get, daily_deals_open, day_end, deal_get, utc_today
from .models import Action, Attempt, DailyDeal, Deal, log_month
from .practice import practice_deal_draw
from .selectors import attempt_check_player, attempt_json, viewer_finished_daily

log = logging.getLogger(__name__)


def _open_daily(*, player: User, deal: Deal) -> DailyDeal | None:
    """The running daily deal that ``deal`` deals the cards of, if any, once the
    player may practise it; practising it before finishing the ranked attempt
    would let a player rehearse the winning line (PRODUCT.md, anti-cheat)."""
    dailies = daily_deals_open(deal=deal)
    for daily in dailies:
        if not viewer_finished_daily(viewer=player, daily=daily):
            raise Forbidden(
                "daily_not_finished",
                "That deal is a daily deal still running: play your ranked attempt first.",
            )
    return dailies[0] if dailies else None


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
    opening (RULES.md C11). With ``practice``, a new practice game on today's
    deal for a player whose ranked attempt is over: it is tied to the daily, so
    it names no code and its replay and live view follow the daily's rule.
    ``random``: a variant; a practice game on a numbered deal the solver proved
    winnable, drawn from the practice pool (``games/practice.py``), or with
    ``any_deal`` on any random numbered deal (which may be impossible); the
    attempt's ``proven`` says which it got. ``code``:
    a practice game on that exact deal. ``address`` and ``device`` (the device id
    cookie, games/device.py): the client's, kept with a new ranked attempt for
    the fair-play review (games/fairplay.py).
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
        raise Invalid("invalid", "'practice' goes with 'daily': practise today's deal.")
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
    attempt_check_player(
        attempt_id=attempt_id, player_id=attempt.player_id if attempt else None, player=player
    )
    assert attempt is not None
    return attempt


FINISH_FIELDS = ["status", "finished_at", "elapsed_ms", "updated_at"]


def _finish(attempt: Attempt, status: str, now: dt.datetime) -> None:
    attempt.status = status
    attempt.finished_at = now
    # The clock is the server's and stops at the winning move or the resignation (C11).
    attempt.elapsed_ms = attempt.ms_since_start(now)


def _announce(attempt: Attempt, game: Game, origin: str | None = None) -> str:
    """Inside the transaction: build the ``state`` event — the attempt object as its
    player sees it, encoded once — and have it sent to the game's sockets on
    commit (never for a change rolled back), but not to ``origin``, the socket
    whose message made the change (its answer carries the same object). Announce
    (``games/signals.py``) a ranked result for the day's leaderboard, and a
    finished attempt or a position worth a dead-end proof for the jobs
    that check and prove them. Returns the encoded attempt object, for the answer."""
    game_text = realtime.encode(attempt_json(attempt, viewer=attempt.player, game=game))
    event = realtime.state_text(attempt.seq, game_text)
    group = realtime.game_group(attempt.pk)
    transaction.on_commit(lambda: realtime.publish(group, event, skip=origin))
    if attempt.finished:
        if attempt.ranked:
            signals.announce_result_on_commit(attempt)
        signals.announce(signals.attempt_finished, attempt)
    elif game.worth_proving_lost():
        signals.announce(signals.position_worth_proving, attempt)
    return game_text


@dataclass(frozen=True)
class Applied:
    attempt: Attempt
    """The attempt as committed (its ``state`` column not read: see ``GAMES``)."""
    duplicate: bool
    """The action had been applied already (a resend): nothing was applied now."""
    game_text: str
    """The attempt object of PRODUCT.md as its player sees it, JSON-encoded: the
    answer, and (unless a resend) what the ``state`` event carried."""


# --- the action path ------------------------------------------------------------------------
#
# Every action runs this, so it is written for its cost (issue 14): the attempt
# row is locked and read by one prepared statement without its 5 KB state (a
# process keeps the engine games it played, see ``GameCache``), the log row and
# the attempt are written by two more, and the answer is encoded once.

_A = Attempt._meta.db_table
_D = DailyDeal._meta.db_table
_LOCK_COLUMNS = (
    "id",
    "player_id",
    "deal_id",
    "daily_id",
    "ranked",
    "status",
    "seq",
    "score",
    "moves",
    "won",
    "started_at",
    "finished_at",
    "elapsed_ms",
    "verified",
    "lost_seq",
    "proven",
)
# In the model's field order: ``Attempt.from_db`` reads the values in that order.
assert list(_LOCK_COLUMNS) == [
    f.attname for f in Attempt._meta.concrete_fields if f.attname in _LOCK_COLUMNS
]
_LOCK_SQL = (
    f"SELECT {', '.join(f'a.{c}' for c in _LOCK_COLUMNS)}, d.date, d.variant"
    f" FROM {_A} a LEFT JOIN {_D} d ON d.id = a.daily_id WHERE a.id = %s"
)
_STATE_SQL = f"SELECT state FROM {_A} WHERE id = %s"
_LOG_SQL = (
    f"INSERT INTO {Action._meta.db_table} (attempt_id, seq, month, sent, action, ms, score, moves)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)
_WRITE_SQL = (
    f"UPDATE {_A} SET state = %s, seq = %s, score = %s, moves = %s, won = %s, status = %s,"
    " finished_at = %s, elapsed_ms = %s, updated_at = %s WHERE id = %s"
)


def _aware(moment: dt.datetime | None) -> dt.datetime | None:
    # PostgreSQL answers aware datetimes; SQLite naive ones, in UTC.
    return moment.replace(tzinfo=dt.UTC) if moment and moment.tzinfo is None else moment


def _lock_for_action(*, attempt_id: int, player: User) -> Attempt:
    """The attempt row locked, read without its state: an Attempt whose ``state``
    is deferred (read only if asked), with its player and daily deal."""
    lock = " FOR UPDATE OF a" if connection.features.has_select_for_update_of else ""
    with connection.cursor() as cursor:
        cursor.execute(_LOCK_SQL + lock, [attempt_id])
        row = cursor.fetchone()
    values = dict(zip(_LOCK_COLUMNS, row or (), strict=False))
    attempt_check_player(attempt_id=attempt_id, player_id=values.get("player_id"), player=player)
    values["started_at"] = _aware(values["started_at"])
    values["finished_at"] = _aware(values["finished_at"])
    attempt = Attempt.from_db(connection.alias, list(values), list(values.values()))
    attempt.player = player
    if attempt.daily_id is not None:
        date, variant = row[len(_LOCK_COLUMNS) :]
        if isinstance(date, str):
            date = dt.date.fromisoformat(date)
        attempt.daily = DailyDeal.from_db(
            connection.alias, ["id", "date", "variant"], [attempt.daily_id, date, variant]
        )
    return attempt


class GameCache:
    """The engine games this process played last, so that an action need not read
    and rebuild its game from the stored state (5 KB; ~0.3 ms). An entry is the
    game after ``seq`` actions of one attempt; it is trusted only when the
    attempt's locked row says the same ``seq`` and start — any process may have
    applied an action since, and then the row is read. A game is taken out
    while an action changes it and put back once that is committed, so a
    rolled-back change is never kept."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.games: dict[int, tuple[tuple[dt.datetime, int], Game]] = {}
        self.lock = threading.Lock()

    def take(self, attempt: Attempt) -> Game | None:
        with self.lock:
            entry = self.games.pop(attempt.pk, None)
        if entry is None or entry[0] != (attempt.started_at, attempt.seq):
            return None
        return entry[1]

    def put(self, attempt: Attempt, game: Game) -> None:
        with self.lock:
            self.games.pop(attempt.pk, None)
            self.games[attempt.pk] = ((attempt.started_at, attempt.seq), game)
            while len(self.games) > self.size:
                del self.games[next(iter(self.games))]


GAMES = GameCache(size=4096)


def _game_of(attempt: Attempt) -> Game:
    """The attempt's game, from this process's cache or else from its stored state."""
    game = GAMES.take(attempt)
    if game is None:
        with connection.cursor() as cursor:
            cursor.execute(_STATE_SQL, [attempt.pk])
            (state,) = cursor.fetchone()
        game = load_game(json.loads(state) if isinstance(state, str) else state)
    return game


def attempt_apply_action(
    *,
    attempt_id: int,
    player: User,
    seq: int,
    action: dict[str, Any],
    origin: str | None = None,
    said: dict[str, Any] | None = None,
) -> Applied:
    """Apply one action: one transaction, the attempt row locked, ``seq`` checked
    (PRODUCT.md), the engine asked, the action logged — committed before any
    answer. A refusal raises and changes nothing. ``origin``: the socket that
    sent it (a channel name), which gets the answer and not the ``state`` event.
    ``said``, when given, gets the action as the engine read it (type, pile ids,
    count; nothing of one it could not read) for the door's log line
    (``games.metrics.ActionMeter``)."""
    logs.bind(attempt_id=attempt_id, seq=seq)
    with transaction.atomic():
        attempt = _lock_for_action(attempt_id=attempt_id, player=player)
        game = _game_of(attempt)
        try:
            parsed = game.parse_action(action)
            sent = parsed.to_json()
            if said is not None:
                said.update(sent)
            if seq < attempt.seq:
                done = Action.objects.filter(attempt=attempt, seq=seq).first()
                if done is not None and done.sent == sent:
                    view = attempt_json(attempt, viewer=player, duplicate=True, game=game)
                    GAMES.put(attempt, game)  # unchanged: nothing was applied
                    return Applied(attempt, duplicate=True, game_text=realtime.encode(view))
            if seq != attempt.seq:
                raise Conflict(
                    "seq_conflict",
                    f"This game has accepted {attempt.seq} actions; send seq {attempt.seq}.",
                    seq=attempt.seq,
                )
            if attempt.finished:
                raise Conflict("finished", f"This game is over ({attempt.status}).")
            if attempt.daily is not None and attempt.ranked and attempt.daily.date < utc_today():
                # The ranked game belongs to its UTC day; the housekeeping job closes it.
                raise Conflict("day_over", f"The daily deal of {attempt.daily.date} is over.")
            resolved = game.resolve(parsed)
        except BaseException:
            GAMES.put(attempt, game)  # unchanged: nothing was applied
            raise
        game.play(resolved)
        now = timezone.now()
        attempt.seq = seq + 1
        attempt.score, attempt.moves, attempt.won = game.score, game.moves, game.won
        if game.won:
            _finish(attempt, Attempt.Status.WON, now)
        ops = connection.ops
        adapt_json, adapt_time = ops.adapt_json_value, ops.adapt_datetimefield_value
        with connection.cursor() as cursor:
            cursor.execute(
                _LOG_SQL,
                [
                    attempt.pk,
                    seq,
                    # The partition key: a function of the attempt (games/partitions.py).
                    ops.adapt_datefield_value(log_month(attempt.started_at)),
                    adapt_json(sent, None),
                    adapt_json(resolved.to_json(), None),
                    attempt.ms_since_start(now),
                    game.score,
                    game.moves,
                ],
            )
            cursor.execute(
                _WRITE_SQL,
                [
                    adapt_json(game.to_json(), None),
                    attempt.seq,
                    attempt.score,
                    attempt.moves,
                    attempt.won,
                    attempt.status,
                    adapt_time(attempt.finished_at),
                    attempt.elapsed_ms,
                    adapt_time(now),
                    attempt.pk,
                ],
            )
        game_text = _announce(attempt, game, origin)
        if not attempt.finished:
            transaction.on_commit(lambda: GAMES.put(attempt, game))
    return Applied(attempt, duplicate=False, game_text=game_text)


def attempt_resign(*, attempt_id: int, player: User, origin: str | None = None) -> Attempt:
    """Give the attempt up: finished, not won, clock stopped. ``origin`` as for
    ``attempt_apply_action``."""
    with transaction.atomic():
        attempt = _locked_attempt(attempt_id=attempt_id, player=player)
        if attempt.finished:
            raise Conflict("finished", f"This game is over ({attempt.status}).")
        _finish(attempt, Attempt.Status.RESIGNED, timezone.now())
        attempt.save(update_fields=FINISH_FIELDS)
        _announce(attempt, load_game(attempt.state), origin)
    return attempt


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
        attempts = list(
            Attempt.objects.select_for_update(of=("self",))
            .select_related("daily")
            .filter(player=guest)
            .order_by("pk")
        )
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
                signals.announce_result_on_commit(attempt)
                if attempt.verified is not None:  # checked: review it again, as the account's
                    signals.announce(signals.ranked_attempt_checked, attempt)
    return {"claimed": sorted(claimed), "kept": kept}


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
        if changed and attempt.ranked:
            attempt.verified = verified
            signals.announce_result_on_commit(attempt)
        if attempt.ranked:
            signals.announce(signals.ranked_attempt_checked, attempt)
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
        transaction.on_commit(lambda: realtime.game_changed(attempt, game))
    return True
