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

The signals (``log_signals``, pure: an action log in, numbers out) read one
replay of the log (``replayed``) and its *standing line* (``standing_line``:
what stays after the undos, the resolved actions not undone, in order — the
line the result rests on, whatever was tried and taken back on the way):

- ``median_gap_ms``, ``min_gap_ms``: time between consecutive actions. People
  take seconds to find a move; a script takes milliseconds.
- ``look_undos``, ``take_backs``: exploration. A player who looks takes back a
  *look* — an action that showed a hidden card for the first time (a face-down
  card turned up, a stock card drawn never seen before) — or takes a card back
  from a foundation and keeps it so (a take-back in the standing line). A
  solver's line replayed does neither, and an undone detour (a card moved and
  moved back, which uncovers nothing) is no exploration: it costs nothing, so a
  cheat adds dozens. ``undos`` (every undo) is shown to staff, and read only by
  the scout pattern, where detours can only make a game look more like a scout.
- ``solver_line``: the logged actions are exactly the daily's ``proof``.
  ``proof_line``: the standing line is the proof — ``"exact"``, every action, or
  ``"card_moves"``, the same card moves in the same order with other stock taps
  (a look through the stock first: passes are free) — though the log is not:
  the proof played with undone detours (5 of 6 cheating wins measured in issue
  36). ``proof_share``: the share of the standing line's card moves that the
  proof's play in the same order from the start (longest common prefix; a
  foundation spot read as any spot of the suit). ``standing_moves``: the
  standing line's length, against ``par`` in the reasons.
- Easy Harp, ``passes`` (turns of the waste back into the stock) and
  ``progress_share`` (of the standing line's card moves, the share that sends a
  card to a foundation or turns up a face-down card): someone who never needs
  to look at a card before using it wins with no look taken back, few passes
  and little shuffling between columns. The solver itself (which knows every
  card) needs 4 to 7 passes and 76–90 % progress moves on the deals measured; a
  player who looks and explores usually needs more passes and more column
  moves. The thresholds are the game's own, in its declaration
  (``GameSpec.never_looked``): a game that hides no card declares none.

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
- a win after it whose standing line runs through the positions the scout
  visited (``line_shared``, pure), or which needed no exploration (few looks
  taken back, its standing line near ``par``) from an account linked to the
  scout or dormant;
- *pooled scouting* (``pooled_scouting``, issue 36): scouting split over
  accounts keeps each under the scout line (three guests saw 90, 90 and 76 of
  95 hidden cards, 93 together). So the hidden cards seen by every other game
  of the daily — ranked, guests' (claimed or not), practice dealt before
  running dailies were closed to it — from the players linked to the winner by
  its device id or its address group (its /24, or /64 for IPv6:
  ``FAIRPLAY_GROUP_V4``/``_V6``, within ``FAIRPLAY_LINK_DAYS``), up to the
  win's end, are counted together; a win after a pool that saw the scout share
  (``FAIRPLAY_SCOUT_SEEN``) is flagged, naming each game and what it saw. An
  account's own ranked win is no part of a pool (a household of two winners);
- the *device id* cookie (``games/device.py``) and the address shared by two
  accounts within ``FAIRPLAY_LINK_DAYS`` days: links, named in the reasons;
  a device shared is a reason of its own, an address shared by two is not (a
  household);
- a win far better than ``par`` by a dormant account (made days before, few games).

Each reason has a weight (``WEIGHTS``); the review's ``score`` is their sum and
orders the staff queue. A reason of hidden knowledge (``HIDDEN_KNOWLEDGE``: the
solver's line or the proof standing, a scout's positions or a scout and a win
that needed no looking, pooled scouts, and what the player knew) weighs 15 or
more, above all the timing, account and address reasons together (14), so a
caught cheat sorts above every result flagged for its pace or its links. Both
orders of events are handled: a scout reviewed after the win reviews the win
again.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import itertools
import logging
import statistics
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from games.engine import SPECS, EngineError, Game, Move, NeverLooked, Step, new_game
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
    # What a result's timing, account and address say: worth a look, no more.
    "fast_median": 3,
    "fast_gap": 2,
    "new_account": 1,
    "shared_address": 3,
    "shared_device": 2,
    "scout_pattern": 1,
    "dormant_strong_win": 2,
    # Play that needed no exploration: strong, but an expert's play can look so.
    "par_no_exploration": 3,
    "never_looked": 4,
    # Hidden knowledge: the result used cards its player had not seen.
    "solver_line": 15,
    "proof_line": 15,
    "scout_line": 15,
    "scout_then_win": 15,
    "pooled_scouts": 15,
    "hidden_knowledge": 20,  # what the player knew (games/engine/knew.py, issue 36)
}
"""How much each reason weighs in a review's ``score``, the staff queue's order.
A reason of hidden knowledge (``HIDDEN_KNOWLEDGE``) weighs more than all the
timing, account and address reasons together (``TIMING_ONLY``, 14): a caught
cheat sorts above every result flagged only for its pace or its links (at most
12 in one review). ``hidden_knowledge``, the test of what the player
knew, weighs 20: above every combination one review can carry without a
hidden-knowledge reason (19: a won game cannot be a scout, a dormant account is
no new one)."""

TIMING_ONLY = frozenset(
    {
        "fast_median",
        "fast_gap",
        "new_account",
        "shared_address",
        "shared_device",
        "scout_pattern",
        "dormant_strong_win",
    }
)
"""The reasons from a result's timing, its account and its links alone."""

HIDDEN_KNOWLEDGE = frozenset(
    {
        "solver_line",
        "proof_line",
        "scout_line",
        "scout_then_win",
        "pooled_scouts",
        "hidden_knowledge",
    }
)
"""The reasons that say a result used knowledge of cards its player had not seen
(the staff queue marks them)."""


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
    group_v4: int = 24
    group_v6: int = 64

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
            group_v4=settings.FAIRPLAY_GROUP_V4,
            group_v6=settings.FAIRPLAY_GROUP_V6,
        )


# --- replaying a log: what stands, what was seen -----------------------------------------------


def _hidden(game: Game) -> frozenset[int]:
    """The ids of the cards a fresh deal hides (face down, or in the stock)."""
    return frozenset(c.id for pid, pile in game.piles.items() for c in pile[: game.face_down(pid)])


def _visible(game: Game) -> set[int]:
    """The ids of the cards the player sees now (what the engine's player view
    shows: ``Game.face_down``)."""
    return {c.id for pid, pile in game.piles.items() for c in pile[game.face_down(pid) :]}


@dataclass(frozen=True)
class Played:
    """One action of a log as the engine replayed it (``replayed``)."""

    action: dict[str, Any]
    """Its resolved form, as the engine records it (a tap is the move it made)."""
    step: Step | None
    """What it changed (``Step.turned``: it turned up a face-down card; ``passed``:
    a stock tap that began a new pass); None for an undo."""
    took_back: int | None
    """An undo: the index in the log of the action it took back."""
    shown: frozenset[int]
    """The cards hidden at the deal that the player saw for the first time just
    after it: a face-down card turned up, a stock card drawn. A *look*."""


def replayed(game: Game, actions: Sequence[dict[str, Any]]) -> Iterator[Played]:
    """Apply ``actions`` (JSON) to ``game``, a fresh deal, yielding each as
    ``Played``; between two, ``game`` is the position after the last. Raises the
    engine's error (``EngineError`` or ``ValueError``) at the first one it
    refuses. The replay every signal of a log reads: one idea, one walk."""
    hidden = _hidden(game)
    seen: set[int] = set()
    stack: list[int] = []  # the log indices of the actions an undo may take back
    for index, data in enumerate(actions):
        resolved = game.apply(game.parse_action(data))
        shown = frozenset(_visible(game) & hidden - seen) if hidden else frozenset()
        seen |= shown
        if resolved.type == "undo":
            yield Played(resolved.to_json(), None, stack.pop(), shown)
        else:
            stack.append(index)
            yield Played(resolved.to_json(), game.history[-1], None, shown)


def _standing(played: Sequence[Played]) -> list[int]:
    """The indices of the actions that stand: neither an undo nor taken back by one."""
    taken = {p.took_back for p in played if p.took_back is not None}
    return [i for i, p in enumerate(played) if p.step is not None and i not in taken]


def _look_undos(played: Sequence[Played]) -> int:
    """The undos that took back a look (an action that showed the player a hidden
    card for the first time). An undo of a move that uncovered nothing — a detour
    tried and taken back — is no exploration: it cost nothing and showed nothing."""
    return sum(1 for p in played if p.took_back is not None and played[p.took_back].shown)


def standing_line(code: str, actions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The *standing line* of a game: what stays of ``actions`` after its undos —
    the resolved actions not undone, in order (JSON). Undo pops exactly the last
    action still standing (RULES.md C6), so this is the line the player's result
    rests on, whatever detours were tried and taken back on the way. Raises the
    engine's error (``EngineError`` or ``ValueError``) for a log it refuses."""
    played = list(replayed(new_game(code), actions))
    return [played[i].action for i in _standing(played)]


Token = tuple[str, str, int]


def _card_moves(line: Sequence[dict[str, Any]]) -> list[Token]:
    """The card moves of a line (stock taps left out), each ``(from, to, count)``
    with a foundation spot read as ``f``: a card sent to the other spot of its
    suit is the same move (as for ``_layout``)."""

    def pile(pid: str) -> str:
        return "f" if pid[0] == "f" else pid

    return [
        (pile(a["from"]), pile(a["to"]), a.get("count", 1)) for a in line if a["type"] == "move"
    ]


def _prefix_share(line: Sequence[Token], proof: Sequence[Token]) -> float:
    """The share of ``line``'s card moves that ``proof``'s play in the same order
    from the start: the longest common prefix over ``line``'s length. A common
    prefix, not a longest common subsequence: a move names piles, not cards, so
    only from the same start are two equal moves the same card (and a
    subsequence of moves as common as ``w`` to ``f`` would match any two lines)."""
    if not line:
        return 0.0
    same = 0
    for mine, theirs in zip(line, proof, strict=False):
        if mine != theirs:
            break
        same += 1
    return round(same / len(line), 3)


def _resolved(code: str, actions: Sequence[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """``actions`` replayed through the engine, in their resolved form (or None if
    the engine refuses one)."""
    try:
        return [p.action for p in replayed(new_game(code), actions)]
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
    the daily's solver line ``proof`` if it has one. What counts moves, passes and
    progress reads the standing line: detours taken back change none of them."""
    gaps = [later - earlier for earlier, later in itertools.pairwise(ms)]
    game = new_game(code)
    played: list[Played] = []
    replayed_all = True
    try:
        for step in replayed(game, actions):
            played.append(step)
    except (EngineError, ValueError):
        replayed_all = False  # a log the engine refuses: the replay check deals with it
    standing = [played[i] for i in _standing(played)]
    steps = [p.step for p in standing if p.step is not None]
    moves = [(s.action, s.turned) for s in steps if isinstance(s.action, Move)]
    draws = [s for s in steps if not isinstance(s.action, Move)]
    line = [p.action for p in standing]
    solver_line = False
    proof_line: str | None = None
    proof_share: float | None = None
    if proof:
        resolved = _resolved(code, proof)
        if resolved is not None:
            solver_line = list(actions) == resolved
            if line == resolved:
                proof_line = "exact"
            elif _card_moves(line) == _card_moves(resolved):
                proof_line = "card_moves"
            proof_share = _prefix_share(_card_moves(line), _card_moves(resolved))
    # Progress: a card reaches a foundation, or a face-down card turns up.
    progress = sum(move.target[0] == "f" or turned for move, turned in moves)
    return {
        "actions": len(actions),
        "median_gap_ms": round(statistics.median(gaps)) if gaps else None,
        "min_gap_ms": min(gaps) if gaps else None,
        "gaps": len(gaps),
        "undos": sum(p.step is None for p in played),
        "look_undos": _look_undos(played),
        "take_backs": sum(move.source[0] == "f" for move, _ in moves),
        "stock_draws": sum(not s.passed for s in draws),
        "passes": sum(s.passed for s in draws),
        "card_moves": len(moves),
        "progress_share": round(progress / len(moves), 3) if moves else None,
        "standing_moves": len(line),
        "hidden_cards": game.hides_cards,
        "game": game.code.game,
        "solver_line": solver_line,
        "proof_line": proof_line,
        "proof_share": proof_share,
        "replayed": replayed_all,
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
    # Exploration is a look taken back (``look_undos``) or a card taken back from a
    # foundation that stands; an undone detour showed nothing and cost nothing.
    clean = signals.get("look_undos") == 0 and signals.get("take_backs") == 0
    par, moves = signals.get("par"), signals.get("moves")
    if signals.get("solver_line"):
        flag("solver_line", "played exactly the solver's winning line for this daily (its proof)")
    elif signals.get("proof_line"):
        flag("proof_line", _proof_line_text(signals))
    if won and clean and par is not None and moves is not None and moves <= par:
        flag(
            "par_no_exploration",
            f"won in {moves} moves, par {par}, with no undo taking back a look and no "
            "take-back from a foundation",
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
        detours = signals.get("undos") or 0
        flag(
            "never_looked",
            f"{SPECS[str(game)].title} won with no undo taking back a look and no take-back"
            f"{f' ({detours} undos of actions that uncovered nothing)' if detours else ''}, "
            f"{signals['passes']} turns of the waste (at most {blind.max_passes}) and "
            f"{share:.0%} of the standing line's card moves making progress (at least "
            f"{blind.min_progress:.0%}): play that never needed to look at a card",
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


def _proof_line_text(signals: dict[str, Any]) -> str:
    """The ``proof_line`` reason in words: which comparison matched, the undos it
    took to hide it, the standing line's length against par."""
    how = (
        "is exactly the daily's proof, every action (stock taps included)"
        if signals["proof_line"] == "exact"
        else "makes exactly the daily's proof's card moves, in its order (only the stock "
        "taps differ)"
    )
    undos, standing, par = signals["undos"], signals["standing_moves"], signals.get("par")
    length = f"{standing} actions" + (f", par {par}" if par is not None else "")
    line = (
        f"what stayed after its {undos} undos (the standing line, {length})"
        if undos
        else f"its line ({length})"
    )
    knows = (
        "which knows every face-down and stock card"
        if signals.get("hidden_cards")
        else "found by a program"
    )
    undone = signals["actions"] - undos - standing
    tried = f"; {undone} actions were tried and taken back on the way" if undone else ""
    return f"{line} {how}: the solver's line, {knows}{tried}"


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
    look_undos: int
    """Of the undos, those that took back a look (``_look_undos``): exploration."""
    foundation: int
    """Cards on the foundations at the end: the result the exploration led to."""
    visited: frozenset[Layout]
    """Every position reached by moving a card, undone branches included."""
    line: tuple[Layout, ...]
    """The positions of the standing line (what stayed after the undos), card moves only."""
    seen_cards: frozenset[int] = frozenset()
    """The ids of the ``seen`` cards: what several games saw together is their union."""

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
    hidden = _hidden(game)
    stock = {c.id for c in game.piles.get("s", [])}
    visited: set[Layout] = set()
    layouts: dict[int, Layout] = {}  # by log index: the position after each card move
    played: list[Played] = []
    try:
        for step in replayed(game, actions):
            if step.step is not None and isinstance(step.step.action, Move):
                layouts[len(played)] = layout = _layout(game)
                visited.add(layout)
            played.append(step)
    except (EngineError, ValueError):
        return None
    seen = frozenset().union(*(p.shown for p in played))
    return Exploration(
        hidden=len(hidden),
        seen=len(seen),
        stock=len(stock),
        stock_seen=len(seen & stock),
        undos=sum(p.step is None for p in played),
        look_undos=_look_undos(played),
        foundation=sum(len(game.piles[f]) for f in game.foundations),
        visited=frozenset(visited),
        line=tuple(layouts[i] for i in _standing(played) if i in layouts),
        seen_cards=seen,
    )


def is_scout(found: Exploration, *, won: bool, thresholds: CrossThresholds) -> bool:
    """The scout pattern: not won, most hidden cards seen, with many undos: a look
    at the whole deal that the result does not account for. Every undo counts
    here, not only those taking back a look (``look_undos``): undone detours can
    only make a game look more like a scout's, never hide one, and a scout that
    draws the whole stock once and then uncovers the columns takes back few looks
    (the test scout, ``tests/support/fairplay.py``, 7 to 21 on 13 deals)."""
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
            f"{signals['explored_stock']} stock cards) with {signals['undos']} undos "
            f"({signals.get('look_undos', 0)} taking back a look), "
            f"{signals['explored_foundation']} cards on the foundations at the end",
        )
    links = signals.get("links") or []
    linked = f"; linked: {', '.join(links)}" if links else ""
    won, moves, par = bool(signals.get("won")), signals.get("moves"), signals.get("par")
    standing = signals.get("standing_moves", moves)
    # A win that needed no looking: its standing line near par (undone detours
    # lengthen the move count, not the line) with few looks taken back.
    known = (
        won
        and par is not None
        and standing is not None
        and standing <= thresholds.known_par * par
        and signals.get("look_undos", 0) <= thresholds.known_undos
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
                f"won with a standing line of {standing} actions (par {par}) taking back "
                f"{signals.get('look_undos', 0)} looks ({signals['undos']} undos in all) after "
                f"{who} saw {scout['seen']} hidden cards with {scout['undos']} undos and gave up"
                f"{linked or '; a dormant account'}",
            )
    pooled = signals.get("pooled") or []
    hidden, together = signals.get("explored_hidden"), signals.get("pooled_seen") or 0
    if won and pooled and hidden and together >= thresholds.scout_seen * hidden:
        games = "; ".join(
            f"{p['player']}'s {'ranked' if p['ranked'] else 'practice'} game #{p['attempt']} "
            f"saw {p['seen']}"
            for p in pooled
        )
        flag(
            "pooled_scouts",
            f"before this win, the games of this daily from this browser or address group "
            f"saw {together} of the {hidden} hidden cards together (flagged from "
            f"{thresholds.scout_seen:.0%}): {games}",
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


def _logged_actions(attempt_id: int, until_ms: int | None = None) -> list[dict[str, Any]]:
    """An attempt's logged actions in order; with ``until_ms``, those played at
    most that long after its start."""
    actions = Action.objects.filter(attempt_id=attempt_id)
    if until_ms is not None:
        actions = actions.filter(ms__lte=until_ms)
    return list(actions.order_by("seq").values_list("action", flat=True))


IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def address_group(address: str, thresholds: CrossThresholds) -> IPNetwork | None:
    """The network an address belongs to for pooling (``pooled_scouting``): its
    /24 (IPv4) or /64 (IPv6) by default — one household's or one phone's
    addresses change within it (an IPv6 host picks a new address inside its /64
    every day). None when ``address`` is no IP address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    prefix = thresholds.group_v4 if ip.version == 4 else thresholds.group_v6
    return ipaddress.ip_network(f"{ip}/{prefix}", strict=False)


def _group_filter(network: IPNetwork) -> Q:
    """A filter narrowing attempts to ``network``'s addresses, exactly for IPv4
    (its text starts with the network's first octets when the prefix is a whole
    number of octets), loosely for IPv6 (its first group, whose text no
    compression shortens): the caller checks each address with ``ipaddress``."""
    if network.version == 4:
        octets = network.prefixlen // 8
        if octets == 0:
            return Q(address__isnull=False)
        head = ".".join(str(network.network_address).split(".")[:octets])
        return Q(address__startswith=head + ("." if octets < 4 else ""))
    first = int(network.network_address) >> 112
    if network.prefixlen < 16 or first == 0:
        return Q(address__contains=":")
    return Q(address__startswith=f"{first:x}:")


def _linked_players(attempt: Attempt, thresholds: CrossThresholds) -> set[int]:
    """The players (this attempt's own included) whose ranked games started from
    this attempt's device id or address group within ``link_days`` days of it."""
    network = address_group(attempt.address, thresholds) if attempt.address else None
    same = Q(device=attempt.device) if attempt.device else Q()
    if network is not None:
        same |= _group_filter(network)
    if not same:
        return set()
    window = dt.timedelta(days=thresholds.link_days)
    rows = Attempt.objects.filter(
        same,
        ranked=True,
        started_at__gte=attempt.started_at - window,
        started_at__lte=attempt.started_at + window,
    ).values_list("player_id", "device", "address")
    return {
        player
        for player, device, address in rows
        if (attempt.device and device == attempt.device)
        or (network is not None and address and ipaddress.ip_address(address) in network)
    }


def pooled_scouting(
    attempt: Attempt, thresholds: CrossThresholds
) -> tuple[list[dict[str, Any]], frozenset[int]]:
    """What every other game of this attempt's daily saw of its hidden cards before
    this attempt ended, from the players linked to it (``_linked_players``: the
    same device id or address group): ranked games, guests' (claimed or not), and
    practice games of the daily (dealt before running dailies were closed to
    practice, issue 36), each cut at this attempt's end. Split over accounts,
    scouting adds up here. A ranked win of an account is left out: it is a result
    of its own, reviewed itself (two people of one household who both win are no
    scouting); a guest's win is on no board, so it counts. Returns each game that
    saw a hidden card (``attempt``, ``player``, ``ranked``, ``seen``) and the
    cards they saw together."""
    assert attempt.daily is not None
    linked = _linked_players(attempt, thresholds)
    until = attempt.finished_at or timezone.now()
    others = (
        Attempt.objects.filter(daily=attempt.daily, player_id__in=linked, started_at__lte=until)
        .exclude(pk=attempt.pk)
        .exclude(ranked=True, won=True, player__is_guest=False)
        .select_related("player")
        .order_by("pk")
    )
    games: list[dict[str, Any]] = []
    together: frozenset[int] = frozenset()
    for other in others:
        cut = int((until - other.started_at).total_seconds() * 1000)
        found = explore(attempt.deal.code, _logged_actions(other.pk, until_ms=cut))
        if found is None or not found.seen:
            continue
        together |= found.seen_cards
        games.append(
            {
                "attempt": other.pk,
                "player": other.player.get_username(),
                "ranked": other.ranked,
                "seen": found.seen,
            }
        )
    return games, together


def cross_signals(
    attempt: Attempt,
    actions: Sequence[dict[str, Any]],
    signals: dict[str, Any],
    thresholds: CrossThresholds,
) -> dict[str, Any]:
    """The signals across accounts: the other accounts on this attempt's device
    and address, whether the account is dormant, and on a hidden-card daily the
    scout pattern (not won), or the scouts whose exploration the win meets and
    what the linked games of the daily saw together (``pooled_scouting``)."""
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
    pooled, together = pooled_scouting(attempt, thresholds)
    out.update(pooled=pooled, pooled_seen=len(together))
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
                "look_undos": scout.look_undos,
                "shared": line_shared(found, scout),
            }
        )
    return out


def knowledge_reasons(signals: dict[str, Any]) -> list[dict[str, str]]:
    """The ``hidden_knowledge`` reason of a review's signals: the verdict of what the
    player knew (``signals["knew"]``, games/knowledge.py), when it flags the result."""
    verdict = signals.get("knew") or {}
    if not verdict.get("flagged"):
        return []
    return [{"code": "hidden_knowledge", "text": f"what the player knew: {verdict['reason']}"}]


def _store_review(attempt: Attempt, thresholds: Thresholds) -> Review:
    cross = CrossThresholds.from_settings()
    signals = attempt_signals(attempt, cross)
    # What the player knew is judged on a queue of its own (games/knowledge.py): a
    # review computed again keeps its verdict.
    earlier = Review.objects.filter(attempt=attempt).only("signals").first()
    if earlier is not None and "knew" in earlier.signals:
        signals["knew"] = earlier.signals["knew"]
    reasons = (
        flag_reasons(signals, thresholds)
        + cross_reasons(signals, cross)
        + knowledge_reasons(signals)
    )
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
