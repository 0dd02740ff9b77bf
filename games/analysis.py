"""Where a game went wrong (issue 27, deliverable 1): the post-mortem of one
finished game, stored once, and its answer as the replay viewer reads it.

A game not won is searched with the engine's post-mortem
(``games.engine.postmortem.last_winnable``): the last position of its line the
solver proves winnable, the action played from there (the one that lost the
deal), and the solver's winning line from it. A won game is measured against
par: its moves over par and, for a daily (whose ``proof`` is the par line),
where its line parted from the par line.

The solver sees every card, so what it finds derives from cards the player did
not see: a game is analysed, and its analysis shown, only when no daily dealing
its cards is running (``selectors.running_dailies``): a daily's games after its
day (``analyse_day``, queued by the hourly after-the-day job), a practice game
on a public numbered deal when its analysis is first asked for.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q

from games.engine import VARIANTS, Game, GameCode, last_winnable, load_game, new_game
from kit.errors import Conflict, Forbidden, Gone

from .dailies import day_over
from .models import Action, Analysis, Attempt, DailyDeal, ProvenDeal
from .selectors import SPOILER, Viewer, attempt_for_viewer, running_dailies, state_json

ANALYSIS_SECONDS = 15.0
"""What one game's search may spend in all (one game a task, well under the
worker's soft limit of 120 s, ``CELERY_TASK_SOFT_TIME_LIMIT``). A Seahaven
game settles in well under a second (median 20 ms, at worst 0.3 s over 42
lost lines, bench/postmortem.py); a lost Easy Harp game often takes all of
it — proving one of its positions lost means exhausting the search — and
half of them settle (7 of 14). Runs at 10 and 30 s settled no larger share
(2 of 9, 1 of 4): more time buys little but worker hours (15 s × a day's
lost Easy Harp games)."""


def probe_nodes(code: str) -> int:
    """Positions one probe may expand: the variant's declared daily effort
    (``Effort.nodes``, beside its engine module), the budget within which the
    daily job proves a deal winnable — so a daily's positions on the way to a
    win settle within it. A probe that runs out counts as "not winnable" and
    leaves the answer unsettled (said so). Easy Harp's is smaller than
    Seahaven's: its positions cost more each (bench/postmortem.py)."""
    return VARIANTS[GameCode.parse(code).variant_id][1].effort.nodes


# --- the line a game stands on ------------------------------------------------------


def standing_seqs(log: list[dict[str, Any]]) -> list[int]:
    """The log seqs (``log[i]`` is seq ``i``) of the actions that stand at the
    game's end, in order: an undo takes the last one off (RULES.md C6). The
    line's position ``k`` is the replay's position before seq ``standing[k]``."""
    standing: list[int] = []
    for seq, action in enumerate(log):
        if action.get("type") == "undo":
            standing.pop()
        else:
            standing.append(seq)
    return standing


def _log(attempt: Attempt) -> list[dict[str, Any]]:
    """The attempt's logged actions (resolved, as the engine recorded them); a
    log whose month went to cold storage is gone (as for its replay)."""
    log = list(
        Action.objects.filter(attempt=attempt).order_by("seq").values_list("action", flat=True)
    )
    if len(log) != attempt.seq:
        raise Gone("archived", "This game's moves are archived: it can no longer be analysed.")
    return log


# --- analysing one game ---------------------------------------------------------------


def attempt_analyse(*, attempt_id: int) -> Analysis | None:
    """Analyse the finished attempt ``attempt_id`` and store what was found; the
    stored analysis if there is one already (idempotent: a line's answer does
    not change). None — nothing done — for a game going on, one whose cards a
    running daily deals, or one whose log is archived."""
    found = Analysis.objects.filter(attempt_id=attempt_id).first()
    if found is not None:
        return found
    attempt = Attempt.objects.select_related("deal", "daily").filter(pk=attempt_id).first()
    if attempt is None or not attempt.finished or running_dailies(attempt):
        return None
    try:
        log = _log(attempt)
    except Gone:
        return None
    started = time.perf_counter()
    fields = _against_par(attempt, log) if attempt.won else _post_mortem(attempt, log)
    fields["seconds"] = round(time.perf_counter() - started, 3)
    try:
        with transaction.atomic():
            return Analysis.objects.create(attempt=attempt, **fields)
    except IntegrityError:  # another worker stored it first: the same answer
        return Analysis.objects.get(attempt=attempt)


def _post_mortem(attempt: Attempt, log: list[dict[str, Any]]) -> dict[str, Any]:
    """A lost game's search; its end is known lost when it is a dead end or the
    dead-end proof settled it (then it is not probed)."""
    end = load_game(attempt.state)
    proven = end.is_dead_end() or attempt.lost_seq == attempt.seq
    return line_post_mortem(attempt.deal.code, log, end_lost=proven)


def line_post_mortem(code: str, log: list[dict[str, Any]], *, end_lost: bool) -> dict[str, Any]:
    """The engine's search over the line ``log`` plays from the deal ``code``
    (the log's resolved actions, undos included), within the production limits
    (``probe_nodes``, ``ANALYSIS_SECONDS``); its index mapped to the seq of the
    action the replay viewer shows. The fields of an ``Analysis``
    (bench/postmortem.py measures this very call)."""
    start = new_game(code)
    found = last_winnable(
        start,
        [start.parse_action(action) for action in log],
        nodes=probe_nodes(code),
        seconds=ANALYSIS_SECONDS,
        end_lost=end_lost,
    )
    standing = standing_seqs(log)
    index = found.index
    return {
        "index": index,
        "seq": standing[index] if index is not None and index < found.length else None,
        "losing": found.losing.to_json() if found.losing is not None else None,
        "continuation": [action.to_json() for action in found.continuation],
        "settled": found.settled,
        "probes": found.probes,
        "length": found.length,
    }


def _par_line(attempt: Attempt) -> tuple[int | None, list[dict[str, Any]] | None]:
    """Par and the par line: a daily's proof; a proven numbered deal's length only
    (its line is not kept, ``ProvenDeal``); nothing for any other deal."""
    daily = attempt.daily
    if daily is None:
        daily = DailyDeal.objects.filter(deal_id=attempt.deal_id).first()
    if daily is not None and daily.proof:
        return len(daily.proof), daily.proof
    proven = ProvenDeal.objects.filter(deal_id=attempt.deal_id).first()
    return (proven.par, None) if proven else (None, None)


def _against_par(attempt: Attempt, log: list[dict[str, Any]]) -> dict[str, Any]:
    """A win: moves over par (the move counter, RULES.md C5, so undone moves count
    as played), and where the standing line first left the par line."""
    par, line = _par_line(attempt)
    standing = standing_seqs(log)
    seq = None
    if line is not None:
        parted = next(
            (k for k, seq_k in enumerate(standing) if k >= len(line) or log[seq_k] != line[k]),
            None,
        )
        seq = standing[parted] if parted is not None else None
    return {
        "seq": seq,
        "length": len(standing),
        "par": par,
        "over_par": attempt.moves - par if par is not None else None,
    }


# --- a closed day ---------------------------------------------------------------------


def day_attempts_to_analyse(*, daily_id: int) -> list[int]:
    """The finished games of the daily ``daily_id`` not analysed yet — its ranked
    attempts, its practice ones, and games of its cards by code after the day —
    or none while its day runs (nothing may be derived from its cards then)."""
    daily = DailyDeal.objects.select_related("deal").filter(pk=daily_id).first()
    if daily is None or not day_over(daily.date):
        return []
    same = [str(code) for code in GameCode.parse(daily.deal.code).same_cards()]
    return list(
        Attempt.objects.filter(Q(daily=daily) | Q(deal__code__in=same))
        .exclude(status=Attempt.Status.PLAYING)
        .filter(analysis__isnull=True)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def analysed_on_demand(attempt: Attempt) -> bool:
    """A practice game on no daily (a public numbered deal, or a past day's deal
    by its code) is analysed when someone asks for its analysis — most are never
    looked at, and an Easy Harp search may take ``ANALYSIS_SECONDS`` of a
    worker. ``attempt_analyse`` still refuses one whose cards a running daily
    deals. A daily's games wait for the after-the-day job."""
    return attempt.daily_id is None


# --- the answer -----------------------------------------------------------------------


def attempt_analysis_json(
    *, attempt_id: int, viewer: Viewer, queue: Callable[[int], None] | None = None
) -> dict[str, Any]:
    """The analysis of a finished game for ``viewer``: open to those who may see
    its replay (``may_see_moves``), and only once no daily dealing its cards
    runs — not even to a winner of it, since the analysis is the solver's,
    derived from every card (PRODUCT.md, anti-cheat). A game not analysed yet
    is a 409 ``analysis_pending``; one analysed on demand is first handed to
    ``queue`` (the door's: it queues the job, which may already have run)."""
    attempt = attempt_for_viewer(attempt_id=attempt_id, viewer=viewer)
    if running_dailies(attempt):
        raise Forbidden("spoiler", SPOILER)
    if not attempt.finished:
        raise Conflict("not_finished", "A game is analysed once it is over.")
    analysis = Analysis.objects.filter(attempt=attempt).first()
    if analysis is None and queue is not None and analysed_on_demand(attempt):
        queue(attempt.pk)
        analysis = Analysis.objects.filter(attempt=attempt).first()
    if analysis is None:
        raise Conflict(
            "analysis_pending",
            "This game is not analysed yet: a daily's games are analysed within the hour after"
            " its day ends, a practice game within a minute of being asked for.",
        )
    data: dict[str, Any] = {
        "id": attempt.pk,
        "won": attempt.won,
        "settled": analysis.settled,
        "probes": analysis.probes,
        "seconds": analysis.seconds,
        "length": analysis.length,
        "computed_at": analysis.computed_at.isoformat().replace("+00:00", "Z"),
        "lost": None,
        "par": None,
    }
    if attempt.won:
        data["par"] = {
            "par": analysis.par,
            "over_par": analysis.over_par,
            "seq": analysis.seq,
        }
    else:
        data["lost"] = _lost_json(attempt, analysis)
    return data


def _lost_json(attempt: Attempt, analysis: Analysis) -> dict[str, Any]:
    """Where a game not won went wrong, the positions computed here (the client
    has no rules): the position before the losing action (full view, and what
    the player could see of it when cards were hidden), the solver's winning
    line from there and the full view after each of its steps."""
    index = analysis.index
    lost: dict[str, Any] = {
        "index": index,
        "seq": analysis.seq,
        "losing": analysis.losing,
        # Every position of the line proven lost: the deal was lost from its start.
        "from_start": index is None and analysis.settled,
        # The game ended (resigned) on a position still winnable.
        "still_winnable": index is not None and index == analysis.length,
        "before": None,
        "seen": None,
        "continuation": analysis.continuation,
        "positions": [],
    }
    if index is None:
        return lost
    log = _log(attempt)
    game = new_game(attempt.deal.code)
    upto = analysis.seq if analysis.seq is not None else len(log)
    for action in log[:upto]:
        game.apply(game.parse_action(action))
    lost["before"] = state_json(game, daily=attempt.daily, full=True)
    lost["seen"] = _seen(game, attempt)
    board = game.copy()
    for action in analysis.continuation:
        board.apply(board.parse_action(action))
        lost["positions"].append(state_json(board, daily=attempt.daily, full=True))
    return lost


def _seen(game: Game, attempt: Attempt) -> dict[str, Any] | None:
    """What the player could see of ``game``: their own view, and how many cards
    were face down and in the stock — None when nothing was hidden (Seahaven)."""
    down = sum(game.down.values())
    stock = len(game.piles.get("s", ()))
    if not down and not stock:
        return None
    view = state_json(game, daily=attempt.daily)
    view.pop("finish", None)
    return {"view": view, "face_down": down, "stock": stock}


__all__ = [
    "ANALYSIS_SECONDS",
    "analysed_on_demand",
    "attempt_analyse",
    "attempt_analysis_json",
    "day_attempts_to_analyse",
    "line_post_mortem",
    "probe_nodes",
    "standing_seqs",
]
