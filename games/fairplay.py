"""Fair-play review (PRODUCT.md "Fair daily deals", issue 13).

Seahaven Towers shows every card, so a second account (or a program) can solve
the daily offline and play the line back; Easy Harp hides its cards, but a
player who somehow knows them plays without ever looking. The engine cannot
refuse such play — every move is legal — so after each ranked finish a
background job (``tasks.review_attempt``) computes signals from the attempt's
action log, timed by the server (``Action.ms``), and flags outliers with
readable reasons. Staff look at flagged results in the admin and may
disqualify one (it leaves the board, the standings are pushed live, the
player's record shows it) or clear it. **Nothing is removed automatically**,
and every decision is stored with who took it.

The signals (``log_signals``, pure: an action log in, numbers out):

- ``median_gap_ms``, ``min_gap_ms``: time between consecutive actions. People
  take seconds to find a move; a script takes milliseconds.
- ``undos``, ``take_backs``: exploration. A player who looks undoes, or takes a
  card back from a foundation; a solver's line replayed does neither.
- ``solver_line``: the resolved actions are exactly the daily's ``proof``.
- Easy Harp, ``passes`` (turns of the waste back into the stock) and
  ``progress_share`` (of the moves of cards, the share that sends a card to a
  foundation or turns up a face-down card): someone who never needs to look at
  a card before using it wins with no undo, few passes and little shuffling
  between columns. The solver itself (which knows every card) needs 4 to 7
  passes and 76–90 % progress moves on the deals measured; a player who looks
  and explores usually needs more passes and more column moves. The thresholds
  are the game's own, in its declaration (``GameSpec.never_looked``): a game
  that hides no card declares none.

Then, from the database (``attempt_signals``): the win against ``par``, the
account's age (created on the daily's own UTC day) and how many accounts played
the same daily from the client address that started this attempt.

**Across accounts** (issue 25: the second-account cheat). A scout account
opens the Easy Harp daily, draws every stock card and uncovers the columns
with undo, then resigns; a main account wins with what it learned, at a
person's pace, from elsewhere. One game alone shows nothing, so
``cross_signals`` looks at the other accounts of the day:

- the *scout pattern* (``explore``, pure): a ranked daily not won, resigned or
  abandoned (closed when its day ends, or idle ``FAIRPLAY_SCOUT_IDLE_MIN``
  minutes while a win is reviewed), whose player saw most of the hidden cards
  with many undos;
- a win after it whose resolved line (what stayed after the undos) runs through
  the positions the scout visited (``line_shared``, pure), or which needed no
  exploration (few undos, near ``par``) from an account linked to the scout or
  dormant;
- the *device id* cookie (``games/device.py``) and the address shared by two
  accounts within ``FAIRPLAY_LINK_DAYS`` days: links, named in the reasons;
  a device shared is a reason of its own, an address shared by two is not (a
  household);
- a win far better than ``par`` by a dormant account (made days before, few games).

Each reason has a weight (``WEIGHTS``); the review's ``score`` is their sum and
orders the staff queue. Both orders of events are handled: a scout reviewed
after the win reviews the win again.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import itertools
import logging
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from games.engine import SPECS, EngineError, Game, Move, NeverLooked, new_game
from kit.api import RateThrottle
from kit.errors import Conflict, Forbidden, Invalid

from . import signals, store
from .models import Action, Attempt, Review, ReviewDecision
from .selectors import no_game

log = logging.getLogger(__name__)

MIN_TIMED_GAPS = 5
"""Timing is judged only on games with at least this many gaps between actions:
a median of two gaps says nothing."""

REASON_MAX = 500
"""Longest reason staff may give (characters)."""


def _declared_never_looked() -> dict[str, NeverLooked]:
    return {p: spec.never_looked for p, spec in SPECS.items() if spec.never_looked}


@dataclass(frozen=True)
class Thresholds:
    """What flags a result; the defaults and meanings are in config/settings.py,
    but ``never_looked``, which each game declares (``GameSpec.never_looked``)."""

    min_median_ms: int
    min_gap_ms: int
    same_address: int
    never_looked: dict[str, NeverLooked] = field(default_factory=_declared_never_looked)
    """By game code prefix (``"EH1"``): the games that hide cards."""

    @classmethod
    def from_settings(cls) -> Thresholds:
        return cls(
            min_median_ms=settings.FAIRPLAY_MIN_MEDIAN_MS,
            min_gap_ms=settings.FAIRPLAY_MIN_GAP_MS,
            same_address=settings.FAIRPLAY_SAME_ADDRESS,
        )


WEIGHTS = {
    "fast_median": 3,
    "fast_gap": 2,
    "solver_line": 5,
    "par_no_exploration": 3,
    "never_looked": 4,
    "new_account": 1,
    "shared_address": 3,
    "scout_pattern": 1,
    "scout_line": 5,
    "scout_then_win": 4,
    "shared_device": 2,
    "dormant_strong_win": 2,
}
"""How much each reason weighs in a review's ``score`` (the queue's order): a
pattern alone (one account's exploration, a shared browser) weighs little, a
win that uses another account's exploration most."""


@dataclass(frozen=True)
class CrossThresholds:
    """What flags across accounts; the defaults and meanings are in config/settings.py."""

    scout_seen: float = 0.95
    scout_undos: int = 10
    scout_idle_min: int = 30
    scout_shared: float = 0.5
    known_par: float = 1.15
    known_undos: int = 10
    link_days: int = 7
    dormant_days: int = 2
    dormant_games: int = 2
    dormant_par: float = 1.1

    @classmethod
    def from_settings(cls) -> CrossThresholds:
        return cls(
            scout_seen=settings.FAIRPLAY_SCOUT_SEEN,
            scout_undos=settings.FAIRPLAY_SCOUT_UNDOS,
            scout_idle_min=settings.FAIRPLAY_SCOUT_IDLE_MIN,
            scout_shared=settings.FAIRPLAY_SCOUT_SHARED,
            known_par=settings.FAIRPLAY_KNOWN_PAR,
            known_undos=settings.FAIRPLAY_KNOWN_UNDOS,
            link_days=settings.FAIRPLAY_LINK_DAYS,
            dormant_days=settings.FAIRPLAY_DORMANT_DAYS,
            dormant_games=settings.FAIRPLAY_DORMANT_GAMES,
            dormant_par=settings.FAIRPLAY_DORMANT_PAR,
        )


# --- signals: pure functions over the action log ---------------------------------------------


def _resolved(code: str, actions: Sequence[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """``actions`` replayed through the engine, in their resolved form (or None if
    the engine refuses one)."""
    game = new_game(code)
    try:
        return [game.apply(game.parse_action(a)).to_json() for a in actions]
    except (EngineError, ValueError):
        return None


def log_signals(
    *,
    code: str,
    actions: Sequence[dict[str, Any]],
    ms: Sequence[int],
    proof: Sequence[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Signals of one attempt from its action log: ``actions`` (resolved, as the
    engine recorded them) and ``ms`` (server time of each, since the start), and
    the daily's solver line ``proof`` if it has one."""
    gaps = [later - earlier for earlier, later in itertools.pairwise(ms)]
    game = new_game(code)
    undos = take_backs = draws = passes = card_moves = progress = 0
    replayed = True
    for data in actions:
        try:
            resolved = game.apply(game.parse_action(data))
        except (EngineError, ValueError):
            replayed = False  # a log the engine refuses: the replay check deals with it
            break
        kind = resolved.type
        if kind == "undo":
            undos += 1
            continue
        step = game.history[-1]
        if kind == "stock":
            passes += step.passed
            draws += not step.passed
            continue
        assert isinstance(resolved, Move)
        card_moves += 1
        take_backs += resolved.source[0] == "f"
        # Progress: a card reaches a foundation, or a face-down card turns up.
        progress += resolved.target[0] == "f" or step.turned
    solver_line = False
    if proof:
        line = _resolved(code, proof)
        solver_line = line is not None and list(actions) == line
    return {
        "actions": len(actions),
        "median_gap_ms": round(statistics.median(gaps)) if gaps else None,
        "min_gap_ms": min(gaps) if gaps else None,
        "gaps": len(gaps),
        "undos": undos,
        "take_backs": take_backs,
        "stock_draws": draws,
        "passes": passes,
        "card_moves": card_moves,
        "progress_share": round(progress / card_moves, 3) if card_moves else None,
        "hidden_cards": game.hides_cards,
        "game": game.code.game,
        "solver_line": solver_line,
        "replayed": replayed,
    }


def flag_reasons(signals: dict[str, Any], thresholds: Thresholds) -> list[dict[str, str]]:
    """The reasons ``signals`` are worth a look, each ``{"code", "text"}``; empty
    when nothing stands out."""
    reasons: list[dict[str, str]] = []

    def flag(code: str, text: str) -> None:
        reasons.append({"code": code, "text": text})

    timed = (signals.get("gaps") or 0) >= MIN_TIMED_GAPS
    median, least = signals.get("median_gap_ms"), signals.get("min_gap_ms")
    if timed and median is not None and median < thresholds.min_median_ms:
        flag(
            "fast_median",
            f"median time between actions {median} ms (flagged under "
            f"{thresholds.min_median_ms} ms)",
        )
    if timed and least is not None and least < thresholds.min_gap_ms:
        flag(
            "fast_gap",
            f"two consecutive actions {least} ms apart (flagged under {thresholds.min_gap_ms} ms)",
        )
    won = bool(signals.get("won"))
    clean = signals.get("undos") == 0 and signals.get("take_backs") == 0
    if signals.get("solver_line"):
        flag("solver_line", "played exactly the solver's winning line for this daily (its proof)")
    par, moves = signals.get("par"), signals.get("moves")
    if won and clean and par is not None and moves is not None and moves <= par:
        flag(
            "par_no_exploration",
            f"won in {moves} moves, par {par}, with no undo and no take-back from a foundation",
        )
    share = signals.get("progress_share")
    game = signals.get("game")
    blind = thresholds.never_looked.get(game) if isinstance(game, str) else None
    if (
        won
        and clean
        and blind is not None
        and signals.get("passes", 0) <= blind.max_passes
        and share is not None
        and share >= blind.min_progress
    ):
        flag(
            "never_looked",
            f"{SPECS[str(game)].title} won with no undo or take-back, {signals['passes']} "
            f"turns of the waste (at most {blind.max_passes}) and {share:.0%} of card moves "
            f"making progress (at least {blind.min_progress:.0%}): play that never "
            "needed to look at a card",
        )
    if signals.get("joined_same_day"):
        flag("new_account", f"account created on {signals['joined']}, the daily's own day")
    accounts = signals.get("same_address_accounts") or 0
    if accounts >= thresholds.same_address:
        flag(
            "shared_address",
            f"{accounts} accounts played this daily from {signals['address']} (flagged from "
            f"{thresholds.same_address})",
        )
    return reasons


# --- across accounts: pure functions over two action logs ------------------------------------

Layout = tuple[object, ...]


def _layout(game: Game) -> Layout:
    """Where every card lies and which are face down: a position, whatever the
    score, move count or undo history that led to it — and whichever column or
    foundation spot holds what (a king put in another empty column, an ace on
    the other spot of its suit, is the same position)."""
    columns = sorted((tuple(c.id for c in game.piles[p]), game.down[p]) for p in game.columns)
    foundations = sorted(tuple(c.id for c in game.piles[p]) for p in game.foundations)
    others = tuple(
        tuple(c.id for c in game.piles[p])
        for p in game.pile_ids
        if p not in game.down and p not in game.foundations
    )
    return tuple(columns), tuple(foundations), others


def _visible(game: Game) -> set[int]:
    """The ids of the cards the player sees now (what the engine's player view
    shows: ``Game.face_down``)."""
    return {c.id for pid, pile in game.piles.items() for c in pile[game.face_down(pid) :]}


@dataclass(frozen=True)
class Exploration:
    """What one player's log uncovered of a deal (``explore``)."""

    hidden: int
    """Cards hidden at the deal (face down or in the stock)."""
    seen: int
    """Of those, how many the player saw face up at some moment, undone or not."""
    stock: int
    stock_seen: int
    undos: int
    foundation: int
    """Cards on the foundations at the end: the result the exploration led to."""
    visited: frozenset[Layout]
    """Every position reached by moving a card, undone branches included."""
    line: tuple[Layout, ...]
    """The positions of the resolved line (what stayed after the undos), card moves only."""

    def numbers(self) -> dict[str, int]:
        return {
            "explored_hidden": self.hidden,
            "explored_seen": self.seen,
            "explored_stock": self.stock,
            "explored_stock_seen": self.stock_seen,
            "explored_foundation": self.foundation,
        }


def explore(code: str, actions: Sequence[dict[str, Any]]) -> Exploration | None:
    """Replay ``actions`` through the engine and record what the player saw and
    where they went (None: the engine refuses the log). Stock draws alone are
    not positions of the line: every player draws the same stock in the same
    order, so those positions say nothing about who knew what."""
    game = new_game(code)
    hidden = {c.id for pid, pile in game.piles.items() for c in pile[: game.face_down(pid)]}
    stock = {c.id for c in game.piles.get("s", [])}
    seen: set[int] = set()
    visited: set[Layout] = set()
    line: list[Layout | None] = []  # None: a stock draw, kept so an undo pops it
    undos = 0
    for data in actions:
        try:
            resolved = game.apply(game.parse_action(data))
        except (EngineError, ValueError):
            return None
        seen.update(_visible(game) & hidden)
        if resolved.type == "undo":
            undos += 1
            if line:
                line.pop()
            continue
        if resolved.type == "stock":
            line.append(None)
            continue
        layout = _layout(game)
        visited.add(layout)
        line.append(layout)
    return Exploration(
        hidden=len(hidden),
        seen=len(seen & hidden),
        stock=len(stock),
        stock_seen=len(seen & stock),
        undos=undos,
        foundation=sum(len(game.piles[f]) for f in game.foundations),
        visited=frozenset(visited),
        line=tuple(layout for layout in line if layout is not None),
    )


def is_scout(found: Exploration, *, won: bool, thresholds: CrossThresholds) -> bool:
    """The scout pattern: not won, most hidden cards seen, with many undos: a look
    at the whole deal that the result does not account for."""
    return (
        not won
        and found.hidden > 0
        and found.seen >= thresholds.scout_seen * found.hidden
        and found.undos >= thresholds.scout_undos
    )


def line_shared(winner: Exploration, scout: Exploration) -> float:
    """The share of the winner's resolved line that runs through positions the
    scout reached. Two people playing apart part ways within a few moves (a
    position is every card's place); a line learned from the scout's
    exploration keeps meeting it."""
    if not winner.line:
        return 0.0
    return round(sum(layout in scout.visited for layout in winner.line) / len(winner.line), 3)


def cross_reasons(signals: dict[str, Any], thresholds: CrossThresholds) -> list[dict[str, str]]:
    """The cross-account reasons of ``signals`` (``cross_signals`` added to the
    log's), each ``{"code", "text"}``; empty when nothing stands out."""
    reasons: list[dict[str, str]] = []

    def flag(code: str, text: str) -> None:
        reasons.append({"code": code, "text": text})

    if signals.get("scout"):
        flag(
            "scout_pattern",
            f"{signals['status']} after seeing {signals['explored_seen']} of the "
            f"{signals['explored_hidden']} hidden cards ({signals['explored_stock_seen']} of "
            f"{signals['explored_stock']} stock cards) with {signals['undos']} undos, "
            f"{signals['explored_foundation']} cards on the foundations at the end",
        )
    links = signals.get("links") or []
    linked = f"; linked: {', '.join(links)}" if links else ""
    won, moves, par = bool(signals.get("won")), signals.get("moves"), signals.get("par")
    known = (
        won
        and par is not None
        and moves is not None
        and moves <= thresholds.known_par * par
        and signals.get("undos", 0) <= thresholds.known_undos
    )
    for scout in signals.get("scouts") or []:
        who = f"{scout['player']}'s game #{scout['attempt']}"
        if scout["shared"] >= thresholds.scout_shared:
            flag(
                "scout_line",
                f"{scout['shared']:.0%} of the winning line runs through positions {who} "
                f"explored before giving up (it saw {scout['seen']} hidden cards, "
                f"{scout['undos']} undos; flagged from {thresholds.scout_shared:.0%}){linked}",
            )
        elif known and (links or signals.get("dormant")):
            flag(
                "scout_then_win",
                f"won in {moves} moves (par {par}) with {signals['undos']} undos after {who} "
                f"saw {scout['seen']} hidden cards with {scout['undos']} undos and gave up"
                f"{linked or '; a dormant account'}",
            )
    devices = signals.get("device_accounts") or []
    if devices:
        flag(
            "shared_device",
            f"this browser (device id) also started ranked games of {', '.join(devices)} "
            f"within {thresholds.link_days} days",
        )
    if (
        won
        and signals.get("dormant")
        and signals.get("hidden_cards")
        and par is not None
        and moves is not None
        and moves <= thresholds.dormant_par * par
    ):
        flag(
            "dormant_strong_win",
            f"a win by an account made {signals['account_days']} days before with only "
            f"{signals['earlier_games']} earlier games: {moves} moves, par {par} (flagged "
            f"at or under {thresholds.dormant_par:g} x par)",
        )
    return reasons


def review_score(reasons: Sequence[dict[str, str]]) -> int:
    return sum(WEIGHTS.get(reason["code"], 1) for reason in reasons)


# --- the client address ----------------------------------------------------------------------


def client_address(request: Any) -> str | None:
    """The client address of a request exactly as the throttles see it
    (``kit.api.RateThrottle``: X-Forwarded-For only from ``NUM_PROXIES``
    proxies), or None when it is not an IP address."""
    ident = RateThrottle().get_ident(request)
    try:
        return str(ipaddress.ip_address((ident or "").strip()))
    except ValueError:
        return None


# --- the review: signals stored with the attempt ------------------------------------------------


def attempt_signals(attempt: Attempt, cross: CrossThresholds | None = None) -> dict[str, Any]:
    """Every signal of a finished ranked attempt: its log's, the database's, and
    those across accounts (``cross_signals``)."""
    daily = attempt.daily
    assert daily is not None  # ranked attempts always have one
    logged = list(attempt.actions.order_by("seq").values_list("action", "ms"))
    actions = [action for action, _ in logged]
    signals = log_signals(
        code=attempt.deal.code,
        actions=actions,
        ms=[ms for _, ms in logged],
        proof=daily.proof,
    )
    joined = attempt.player.date_joined.astimezone(dt.UTC).date()
    accounts = 0
    if attempt.address:
        accounts = (
            Attempt.objects.filter(daily=daily, ranked=True, address=attempt.address)
            .values("player_id")
            .distinct()
            .count()
        )
    signals = {
        **signals,
        "won": attempt.won,
        "status": attempt.status,
        "moves": attempt.moves,
        "par": daily.par,
        "elapsed_ms": attempt.elapsed_ms,
        "joined": joined.isoformat(),
        "joined_same_day": joined == daily.date,
        "address": attempt.address,
        "same_address_accounts": accounts,
    }
    cross = cross or CrossThresholds.from_settings()
    return {**signals, **cross_signals(attempt, actions, signals, cross)}


def _other_accounts(attempt: Attempt, days: int, **same: Any) -> list[str]:
    """Names of the other accounts whose ranked games started with ``same`` (a
    device or address) within ``days`` days of this attempt's start."""
    window = dt.timedelta(days=days)
    names = (
        Attempt.objects.filter(
            ranked=True,
            started_at__gte=attempt.started_at - window,
            started_at__lte=attempt.started_at + window,
            **same,
        )
        .exclude(player_id=attempt.player_id)
        .values_list("player__username", flat=True)
        .distinct()
    )
    return sorted(names)


def _logged_actions(attempt_id: int) -> list[dict[str, Any]]:
    return list(
        Action.objects.filter(attempt_id=attempt_id)
        .order_by("seq")
        .values_list("action", flat=True)
    )


def cross_signals(
    attempt: Attempt,
    actions: Sequence[dict[str, Any]],
    signals: dict[str, Any],
    thresholds: CrossThresholds,
) -> dict[str, Any]:
    """The signals across accounts: the other accounts on this attempt's device
    and address, whether the account is dormant, and on a hidden-card daily the
    scout pattern (not won) or the scouts whose exploration the win meets."""
    daily = attempt.daily
    assert daily is not None
    devices = (
        _other_accounts(attempt, thresholds.link_days, device=attempt.device)
        if attempt.device
        else []
    )
    addresses = (
        _other_accounts(attempt, thresholds.link_days, address=attempt.address)
        if attempt.address
        else []
    )
    links = [f"same browser as {name}" for name in devices] + [
        f"same address as {name} within {thresholds.link_days} days"
        for name in addresses
        if name not in devices
    ]
    account_days = (daily.date - attempt.player.date_joined.astimezone(dt.UTC).date()).days
    earlier = Attempt.objects.filter(
        player_id=attempt.player_id, started_at__lt=attempt.started_at
    ).count()
    out: dict[str, Any] = {
        "device_accounts": devices,
        "address_accounts": addresses,
        "links": links,
        "account_days": account_days,
        "earlier_games": earlier,
        "dormant": account_days >= thresholds.dormant_days and earlier <= thresholds.dormant_games,
        "scout": False,
        "scouts": [],
    }
    if not signals.get("hidden_cards"):
        return out  # every card shows: nothing to scout
    found = explore(attempt.deal.code, actions)
    if found is None:
        return out  # a log the engine refuses: the replay check deals with it
    out.update(found.numbers())
    if not attempt.won:
        out["scout"] = attempt.finished and is_scout(found, won=False, thresholds=thresholds)
        return out
    idle = timezone.now() - dt.timedelta(minutes=thresholds.scout_idle_min)
    candidates = (
        Attempt.objects.filter(daily=daily, ranked=True, won=False)
        .exclude(player_id=attempt.player_id)
        .filter(started_at__lte=attempt.finished_at or timezone.now())
        .filter(
            Q(review__signals__scout=True)
            | Q(
                status=Attempt.Status.PLAYING, updated_at__lte=idle, seq__gte=thresholds.scout_undos
            )
        )
        .select_related("player")
        .order_by("pk")
    )
    for other in candidates:
        scout = explore(attempt.deal.code, _logged_actions(other.pk))
        if scout is None or not is_scout(scout, won=False, thresholds=thresholds):
            continue
        out["scouts"].append(
            {
                "attempt": other.pk,
                "player": other.player.get_username(),
                "seen": scout.seen,
                "undos": scout.undos,
                "shared": line_shared(found, scout),
            }
        )
    return out


def _store_review(attempt: Attempt, thresholds: Thresholds) -> Review:
    cross = CrossThresholds.from_settings()
    signals = attempt_signals(attempt, cross)
    reasons = flag_reasons(signals, thresholds) + cross_reasons(signals, cross)
    # Only the computed part is written: a staff decision already taken stays.
    review, _ = Review.objects.update_or_create(
        attempt=attempt,
        defaults={
            "signals": signals,
            "reasons": reasons,
            "flagged": bool(reasons),
            "score": review_score(reasons),
            "computed_at": timezone.now(),
        },
    )
    if reasons:
        log_flagged(attempt_id=attempt.pk, username=attempt.player.get_username(), reasons=reasons)
    return review


def log_flagged(*, attempt_id: int, username: str, reasons: list[dict[str, str]]) -> None:
    """The line a flagged result is logged with. Its reasons may quote the client
    address (``shared_address``): the review keeps it for staff until
    ``ADDRESS_RETENTION_DAYS`` (games/privacy.py), the log line only its network —
    every line's addresses are masked by the logging setup (kit/logs.py
    ``mask_addresses``), as logs are kept elsewhere and longer (issue 28)."""
    log.info(
        "attempt %s (%s) flagged for review: %s",
        attempt_id,
        username,
        "; ".join(r["text"] for r in reasons),
    )


def _reviewable(attempt_id: int) -> Attempt | None:
    return (
        Attempt.objects.select_related("player", "daily", "deal")
        .filter(pk=attempt_id, ranked=True)
        .exclude(status=Attempt.Status.PLAYING)
        .first()
    )


def attempt_review(*, attempt_id: int) -> Review | None:
    """Compute and store the review of a finished ranked attempt (None: no such
    attempt). Safe to run twice: the signals are recomputed, a decision stays.
    When this attempt makes an address reach the threshold, the other finished
    attempts of that daily from the address are reviewed again too, so every
    one of them carries the reason. Likewise a scout reviewed after a win on
    its daily (the scout resigned or was closed later) has that win reviewed
    again, so the order of events does not hide the pair."""
    attempt = _reviewable(attempt_id)
    if attempt is None:
        return None
    thresholds = Thresholds.from_settings()
    review = _store_review(attempt, thresholds)
    if any(r["code"] == "shared_address" for r in review.reasons):
        others = (
            Attempt.objects.select_related("player", "daily", "deal")
            .filter(daily=attempt.daily, ranked=True, address=attempt.address)
            .exclude(status=Attempt.Status.PLAYING)
            .exclude(pk=attempt.pk)
        )
        for other in others:
            _store_review(other, thresholds)
    if review.signals.get("scout"):
        wins = (
            Attempt.objects.select_related("player", "daily", "deal")
            .filter(daily=attempt.daily, ranked=True, won=True)
            .filter(finished_at__gte=attempt.started_at)  # knowledge flows after the scout starts
            .exclude(player_id=attempt.player_id)
        )
        for win in wins:
            _store_review(win, thresholds)
    return review


# --- staff decisions ---------------------------------------------------------------------------


def _staff_reason(reason: str, *, required: bool) -> str:
    if not isinstance(reason, str):
        raise Invalid("invalid", "reason: expected text.")
    reason = reason.strip()
    if required and not reason:
        raise Invalid(
            "reason_required", "Say why: a disqualification needs a reason the player sees."
        )
    if len(reason) > REASON_MAX:
        raise Invalid("reason_too_long", f"A reason has at most {REASON_MAX} characters.")
    return reason


def _locked_reviewable(*, attempt_id: int, staff: User) -> tuple[Attempt, Review]:
    if not (staff.is_authenticated and staff.is_staff and staff.is_active):
        raise Forbidden("not_staff", "Only staff decide fair-play reviews.")
    attempt = store.attempt_locked(attempt_id=attempt_id)
    if attempt is None:
        raise no_game(attempt_id)
    if not attempt.ranked or not attempt.finished:
        raise Conflict(
            "not_reviewable", "Only a finished ranked result is reviewed: this one is not."
        )
    review = Review.objects.filter(attempt=attempt).first()
    if review is None:  # decided before the job ran (or its message was lost)
        review = _store_review(attempt, Thresholds.from_settings())
    return attempt, review


def _decide(review: Review, *, decision: str, staff: User, reason: str) -> None:
    now = timezone.now()
    review.decision, review.decided_by, review.decided_at = decision, staff, now
    review.decision_reason = reason
    review.save(update_fields=["decision", "decided_by", "decided_at", "decision_reason"])
    ReviewDecision.objects.create(
        review=review,
        decision=decision,
        reason=reason,
        staff=staff,
        staff_username=staff.get_username(),
        decided_at=now,
    )


def attempt_disqualify(*, attempt_id: int, staff: User, reason: str) -> Review:
    """Take a ranked result off its leaderboard, for ``reason`` (required; the
    player's record shows it). The standings are recomputed by the leaderboard
    query and pushed to the day's subscribers after commit; the decision is
    stored with the staff user and logged. Disqualifying a result already
    disqualified changes and logs nothing."""
    reason = _staff_reason(reason, required=True)
    with transaction.atomic():
        attempt, review = _locked_reviewable(attempt_id=attempt_id, staff=staff)
        if attempt.disqualified:
            return review
        Attempt.objects.filter(pk=attempt.pk).update(disqualified=True)
        attempt.disqualified = True
        _decide(review, decision=Review.Decision.DISQUALIFIED, staff=staff, reason=reason)
        log.warning(
            "attempt %s of %s (%s %s) disqualified by %s: %s",
            attempt.pk,
            attempt.player.get_username(),
            attempt.daily.date if attempt.daily else "-",
            attempt.daily.variant if attempt.daily else "-",
            staff.get_username(),
            reason,
        )
        signals.announce_result_on_commit(attempt)
    return review


def review_clear(*, attempt_id: int, staff: User, reason: str = "") -> Review:
    """Staff looked and the result is fine. A result disqualified before is put
    back on the board (pushed live like a new finish). Clearing a result already
    cleared changes and logs nothing."""
    reason = _staff_reason(reason, required=False)
    with transaction.atomic():
        attempt, review = _locked_reviewable(attempt_id=attempt_id, staff=staff)
        if review.decision == Review.Decision.CLEARED and not attempt.disqualified:
            return review
        reinstated = attempt.disqualified
        if reinstated:
            Attempt.objects.filter(pk=attempt.pk).update(disqualified=False)
            attempt.disqualified = False
            signals.announce_result_on_commit(attempt)
        _decide(review, decision=Review.Decision.CLEARED, staff=staff, reason=reason)
        log.info(
            "attempt %s of %s cleared by %s%s%s",
            attempt.pk,
            attempt.player.get_username(),
            staff.get_username(),
            " (reinstated on the leaderboard)" if reinstated else "",
            f": {reason}" if reason else "",
        )
    return review
