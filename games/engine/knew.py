"""What the player knew (issue 36, PRODUCT.md "Fair-play review"): does a win's play
use cards that were still hidden from its player when the decisions were made?

Easy Harp hides its face-down cards and the stock. The referee checks every move,
but a win built on cards another account uncovered (or a program that read them) is
a string of legal moves like any other. Linking accounts misses the pair that shares
no address, device or line, so this test asks the win itself, with nothing but its
own code and action log:

1. **The standing line** (:func:`standing`): the log replayed through the engine, the
   undone actions dropped. Beside each standing move, what its player had *seen* when
   making it — every card that had been face up at some moment before, in undone
   branches too: exploring with undo is within the rules, and what it showed counts as
   known (a card once seen stays where the player saw it go, so its place is known).

2. **The decisions** (:func:`decisions`): the standing moves made while cards were
   still unseen, where the player had a choice — not a forced move, not a card sent
   home that nothing can need any more (the solver plays those by itself) —
   :data:`DECISIONS` of them, spread evenly over the game.

3. **Determinization** (:func:`judge`): at each decision, deals *consistent with what
   the player had seen* are drawn (the unseen cards shuffled over the unseen places),
   and the solver (:func:`probe_easy_harp`, a short search) is asked, once per setting
   of :data:`SETTINGS`, which move it plays from the position in one drawn deal and
   in the true one. Two weights come out of it (natural logs of likelihood ratios,
   "chose knowing the true cards" against "chose from what was seen"):

   - *the choice* (:attr:`Judged.llr`): the share of the settings that play the move
     with the true cards against the share that play it in the drawn deals, each a
     mixture ``(1 - EPSILON) * share + EPSILON / choices`` so that a move neither side
     plays weighs nothing — the same solvers on both sides, so a setting's taste
     weighs nothing either;
   - *the move's fate* (:attr:`Judged.keeps`): of the drawn deals the solver wins from
     the position, the share it still wins after the move, the true deal counted as
     one more (it is consistent with what was seen, and was won). A move that keeps
     every deal winnable says nothing; one that keeps only the true deal is the move
     "right only for the true deal" that a player who had not seen the cards makes
     by luck and a player who had seen them makes at will. Only drawn deals the
     solver wins from the position count: the true deal is winnable from every
     position of a win's line, so the drawn ones must be too, or the true deal would
     always look the easier (the trap of a naive version).

4. **The exact line** (:func:`solver_match`): the standing line against the solver's
   own lines of the true deal from the start (the day's proof, and the first line of
   each setting): a cheater who replays the solver looks honest move by move, but
   plays its line exactly.

:class:`Verdict` gathers them: the ``evidence`` (both weights summed over the
decisions), ``flagged`` when it reaches :data:`FLAG_EVIDENCE` or the standing line is
a solver's (``line_share`` at least :data:`LINE_SHARE`), and the decisive positions in
words. The thresholds are calibrated by ``bench/knew.py`` on simulated honest and
clairvoyant players (docs/fairplay.md); the work is bounded by :data:`DECISIONS`,
:data:`SETTINGS` and :data:`PROBE_NODES` and seeded by the code and the log, so the
same log always gets the same verdict — the staff queue and ``python -m games.engine
knew`` run this same function.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .actions import Move, Stock
from .base import Game
from .cards import CARDS
from .errors import EngineError
from .registry import new_game
from .solver import Budget
from .solver.easy_harp import Params, probe_easy_harp, safe

DECISIONS = 10
"""Decisions judged per win, spread over those made with a choice while cards were unseen."""
SETTINGS = (
    Params(),
    Params(fd=15),
    Params(lam=0.1),
    Params(harm=2),
    Params(fd=8, harm=4, lam=0.5),
    Params(empty=2, lam=0.5),
)
"""The solver's settings asked at each decision, each once with the true cards and once
with a deal drawn from what the player had seen: the same solvers on both sides, so
that what a setting prefers whatever the cards weighs nothing."""
PROBE_NODES = 2000
"""Positions one probe may expand."""
EPSILON = 0.2
"""Weight of "any of the choices" in both mixtures: a move neither side plays is even."""
FLAG_EVIDENCE = 4.0
"""Flag from this much evidence (natural log of a likelihood ratio; about 55 to 1): the
lowest that flagged none of the honest wins of ``bench/knew.py`` on half its deals, and
none on the other half (docs/fairplay.md)."""
LINE_SHARE = 0.9
"""Flag a standing line whose card moves follow a solver line of the true deal this far."""
SOLVER_LINE_NODES = 10_000
"""Positions each solver line of :func:`solver_match` may expand."""


# --- the standing line and what was seen ---------------------------------------------------


@dataclass(frozen=True)
class Standing:
    """One action of the standing line."""

    index: int
    """Its place in the action log (0-based)."""
    action: Move | Stock
    """As the engine resolved it."""
    before: Game
    """The position it was played from."""
    seen: frozenset[int]
    """Ids of every card the player had seen face up before playing it."""


def _visible(game: Game) -> set[int]:
    return {c.id for pid, pile in game.piles.items() for c in pile[game.face_down(pid) :]}


def standing(code: str, actions: Sequence[object]) -> tuple[list[Standing], frozenset[int]]:
    """Replay ``actions`` (JSON, as logged) from ``code``: the standing line and every
    card seen by the end. Raises :class:`EngineError` for an action the engine refuses."""
    game = new_game(code)
    seen = _visible(game)
    line: list[Standing] = []
    for index, data in enumerate(actions):
        before = game.copy()
        resolved = game.apply(game.parse_action(data))
        if isinstance(resolved, Move | Stock):
            line.append(Standing(index, resolved, before, frozenset(seen)))
        else:
            line.pop()
        seen |= _visible(game)
    return line, frozenset(seen)


def unseen(game: Game, seen: frozenset[int]) -> int:
    """Cards of ``game`` whose place the player cannot know (never seen)."""
    return sum(1 for pile in game.piles.values() for c in pile if c.id not in seen)


def consistent_deal(game: Game, seen: frozenset[int], rng: random.Random) -> Game:
    """A copy of ``game`` with its unseen cards shuffled over their places: a deal the
    player cannot tell from the true one."""
    sample = game.copy()
    places = [(p, i) for p, pile in sample.piles.items() for i, c in enumerate(pile)]
    places = [(p, i) for p, i in places if sample.piles[p][i].id not in seen]
    cards = [sample.piles[p][i] for p, i in places]
    rng.shuffle(cards)
    for (p, i), card in zip(places, cards, strict=True):
        sample.piles[p][i] = card
    return sample


# --- decisions ------------------------------------------------------------------------------

Choice = tuple[str, int, str]
"""A move as a decision: its source pile, the card face it moves (0-51: twins are one
face) and where it goes (``"f"`` home, ``"e"`` an empty column, else the face it goes
onto). Two columns with the same top card are the same choice."""


def choice(game: Game, move: Move) -> Choice:
    card = game.piles[move.source][-move.count]
    target = game.piles.get(move.target, [])
    if move.target[0] == "f":
        where = "f"
    elif not target:
        where = "e"
    else:
        where = str(target[-1].id % 52)
    return move.source, card.id % 52, where


def choices(game: Game) -> set[Choice]:
    """The different choices among ``game``'s legal card moves."""
    return {choice(game, m) for m in game.legal_moves if isinstance(m, Move)}


def _obvious(game: Game, move: Move) -> bool:
    """A card sent home that no card left outside can build on (the solver plays such
    moves by itself: nothing to learn from them)."""
    if move.target[0] != "f":
        return False
    found = [len(game.piles[f]) for f in game.foundations]
    return safe(found, game.piles[move.source][-1].id % 52)


def decisions(line: Sequence[Standing], limit: int = DECISIONS) -> list[Standing]:
    """``limit`` standing moves made with a choice while cards were unseen, spread
    evenly over all such moves (the early ones and the late ones say different things:
    which column to open, which twin to use, when a card may go home)."""
    eligible = [
        step
        for step in line
        if isinstance(step.action, Move)
        and unseen(step.before, step.seen)
        and not _obvious(step.before, step.action)
        and len(choices(step.before)) >= 2
    ]
    if len(eligible) <= limit:
        return eligible
    return [eligible[i * len(eligible) // limit] for i in range(limit)]


def _first_choice(game: Game, line: Sequence[Move | Stock]) -> Choice | None:
    """The first card move of ``line`` from ``game``, as a choice (its stock taps played)."""
    copy = game.copy()
    for action in line:
        if isinstance(action, Move):
            return choice(copy, action)
        copy.apply(action)
    return None


@dataclass(frozen=True)
class Judged:
    """The evidence of one decision."""

    ply: int
    """The standing move's number in the standing line (1-based)."""
    index: int
    played: Choice
    unseen: int
    choices: int
    samples: dict[Choice, int]
    """What the solver played in each consistent deal it won (how many times each)."""
    truths: dict[Choice, int]
    """What its settings played with the true cards."""
    llr: float
    """The choice's evidence: log of its share with the true cards over its share with
    the deals drawn."""
    keeps: float
    """Of the deals drawn (and the true one) that the solver wins from here, the share it
    still wins after the move: a move that is right only for the true deal keeps few."""

    @property
    def evidence(self) -> float:
        """Both weights of this decision (natural log): the choice's, and ``-log keeps``."""
        return self.llr - math.log(self.keeps)

    def words(self) -> str:
        """The decision in a sentence staff can read."""
        src, face, where = self.played
        onto = {"f": "home", "e": "to an empty column"}.get(where) or f"onto {_face(int(where))}"
        own = self.samples.get(self.played, 0)
        return (
            f"standing action {self.ply} (action {self.index + 1} of the log): {_face(face)} "
            f"from {src} {onto} "
            f"with {self.unseen} cards unseen — chosen in {own} of {sum(self.samples.values())} "
            f"deals consistent with what the player had seen, and by "
            f"{self.truths.get(self.played, 0)} of {sum(self.truths.values())} solver settings "
            f"with the true cards; {self.keeps:.0%} of the winnable deals drawn stay "
            f"winnable after it (evidence {self.evidence:+.1f})"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "index": self.index,
            "unseen": self.unseen,
            "choices": self.choices,
            "own": self.samples.get(self.played, 0),
            "samples": sum(self.samples.values()),
            "true": self.truths.get(self.played, 0),
            "truths": sum(self.truths.values()),
            "llr": round(self.llr, 3),
            "keeps": round(self.keeps, 3),
            "evidence": round(self.evidence, 3),
            "text": self.words(),
        }


def _face(face: int) -> str:
    return CARDS[face].text


def _share(counts: Counter[Choice], played: Choice, k: int) -> float:
    total = sum(counts.values())
    part = counts[played] / total if total else 0.0
    return (1 - EPSILON) * part + EPSILON / k


def judge(step: Standing, ply: int, rng: random.Random) -> Judged:
    """Weigh one decision (see the module, 3 and 4)."""
    game, move = step.before, step.action
    assert isinstance(move, Move)
    played = choice(game, move)
    k = len(choices(game)) + 1  # the card moves, and drawing from the stock
    samples: Counter[Choice] = Counter()
    truths: Counter[Choice] = Counter()
    winnable = kept = 0
    for params in SETTINGS:
        sample = consistent_deal(game, step.seen, rng)
        for counts, deal in ((samples, sample), (truths, game)):
            line = probe_easy_harp(deal, Budget(nodes=PROBE_NODES), (params,))
            first = _first_choice(deal, line) if line else None
            if first is None:
                continue
            counts[first] += 1
            if deal is sample:  # a deal like the true one, winnable from here: and after?
                winnable += 1
                kept += first == played or _wins_after(sample, move)
    llr = 0.0
    if samples and truths:  # no evidence from a side the solver could not answer
        llr = math.log(_share(truths, played, k) / _share(samples, played, k))
    # The true deal is one more deal consistent with what was seen, and still winnable
    # after the move (the game was won from there).
    keeps = (1 + kept) / (1 + winnable)
    return Judged(
        ply,
        step.index,
        played,
        unseen(game, step.seen),
        k - 1,
        dict(samples),
        dict(truths),
        llr,
        keeps,
    )


def _wins_after(sample: Game, move: Move) -> bool:
    """Does the solver still win ``sample`` after ``move`` (legal there: it moves a seen card)?"""
    after = sample.copy()
    after.apply(move)
    return probe_easy_harp(after, Budget(nodes=PROBE_NODES)) is not None


# --- the exact line -------------------------------------------------------------------------


def _card_moves(line: Sequence[Move | Stock]) -> list[Move]:
    return [a for a in line if isinstance(a, Move)]


def solver_lines(code: str, proof: Sequence[object] | None = None) -> list[list[Move]]:
    """The card moves of the solver's lines of ``code`` from the start: the day's proof
    (JSON actions) if given, and the first line found by each of :data:`SETTINGS`."""
    lines: list[list[Move]] = []
    if proof:
        game = new_game(code)
        with contextlib.suppress(EngineError, ValueError):
            played = [game.apply(game.parse_action(a)) for a in proof]
            lines.append([a for a in played if isinstance(a, Move)])
    for params in SETTINGS:
        line = probe_easy_harp(new_game(code), Budget(nodes=SOLVER_LINE_NODES), (params,))
        if line:
            lines.append(_card_moves(line))
    return lines


def solver_match(line: Sequence[Standing], lines: Sequence[Sequence[Move]]) -> float:
    """The longest share of the standing line's card moves that a solver line plays in
    the same order from the start (common prefix, over the standing line's length)."""
    moves = _card_moves([s.action for s in line])
    if not moves:
        return 0.0
    best = 0
    for other in lines:
        n = 0
        for a, b in zip(moves, other, strict=False):
            if a != b:
                break
            n += 1
        best = max(best, n)
    return best / len(moves)


# --- the verdict ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    code: str
    choosing: float
    """The choices' evidence (:attr:`Judged.llr`), summed over the decisions."""
    keeping: float
    """The moves' evidence (``-log`` :attr:`Judged.keeps`), summed."""
    line_share: float
    """:func:`solver_match` of the standing line."""
    hidden: int
    """Cards hidden at the deal."""
    seen_at_first: int
    """Of those, how many the player had seen when making the first judged decision."""
    judged: list[Judged] = field(default_factory=list)
    seconds: float = 0.0
    """CPU time the test took."""

    @property
    def evidence(self) -> float:
        """Everything the decisions say (natural log of a likelihood ratio): how much
        better "it knew the hidden cards" explains them than "it played what it saw"."""
        return self.choosing + self.keeping

    @property
    def flagged(self) -> bool:
        return self.evidence >= FLAG_EVIDENCE or self.line_share >= LINE_SHARE

    def decisive(self, n: int = 3) -> list[Judged]:
        """The decisions that weigh most towards hidden knowledge."""
        return sorted((j for j in self.judged if j.evidence > 0), key=lambda j: -j.evidence)[:n]

    def reason(self) -> str:
        """Why the win is flagged, in words (empty when it is not)."""
        parts = []
        if self.line_share >= LINE_SHARE:
            parts.append(
                f"the standing line (what stayed after the undos) plays {self.line_share:.0%} "
                "of its card moves exactly as the solver's line of the true deal"
            )
        if self.evidence >= FLAG_EVIDENCE:
            parts.append(
                f"its decisions fit the cards it had not seen: evidence {self.evidence:.1f} "
                f"(natural log of the likelihood ratio, flagged from {FLAG_EVIDENCE:g}) over "
                f"{len(self.judged)} decisions; decisive: "
                + "; ".join(j.words() for j in self.decisive())
            )
        return "; ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "flagged": self.flagged,
            "evidence": round(self.evidence, 3),
            "choosing": round(self.choosing, 3),
            "keeping": round(self.keeping, 3),
            "line_share": round(self.line_share, 3),
            "hidden": self.hidden,
            "seen_at_first": self.seen_at_first,
            "decisions": [j.to_json() for j in self.judged],
            "reason": self.reason(),
            "seconds": round(self.seconds, 2),
        }


def knew(
    code: str,
    actions: Sequence[object],
    proof: Sequence[object] | None = None,
    *,
    limit: int = DECISIONS,
) -> Verdict:
    """Test a game's log for hidden knowledge (see the module). ``actions`` are the
    JSON actions as logged; ``proof`` the day's solver line, if known; ``limit`` the
    decisions judged (:data:`DECISIONS`; fewer is cheaper and weaker). Deterministic:
    the draws are seeded by the code and the log. Raises :class:`EngineError` when the
    engine refuses an action."""
    started = time.process_time()
    line, _ = standing(code, actions)
    game = new_game(code)
    hidden = unseen(game, frozenset(_visible(game)))
    if not game.hides_cards:
        return Verdict(code, 0.0, 0.0, 0.0, 0, 0, [], time.process_time() - started)
    digest = hashlib.sha256(repr((code, list(actions))).encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    chosen = decisions(line, limit)
    plies = {id(s): n for n, s in enumerate(line, start=1)}
    judged = [judge(step, plies[id(step)], rng) for step in chosen]
    share = solver_match(line, solver_lines(code, proof))
    seen_first = hidden - unseen(chosen[0].before, chosen[0].seen) if chosen else hidden
    return Verdict(
        code,
        sum(j.llr for j in judged),
        -sum(math.log(j.keeps) for j in judged),
        share,
        hidden,
        seen_first,
        judged,
        time.process_time() - started,
    )
