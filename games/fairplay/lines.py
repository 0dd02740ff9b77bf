"""One game's log read for the fair-play review (pure: an action log in,
signals and reasons out): the replay, the standing line, ``log_signals`` and
``flag_reasons``, the thresholds and the reasons' weights (``games.fairplay``
says what each signal means)."""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from games.engine import SPECS, EngineError, Game, Move, NeverLooked, Step, new_game

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
