"""Reads: what a viewer may see of an attempt, and in which JSON shape."""

from __future__ import annotations

import datetime as dt
import logging
import time
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.engine import (
    ALL_VARIANTS,
    Game,
    GameCode,
    Undo,
    last_winnable,
    load_game,
    new_game,
)
from kit.errors import Conflict, Forbidden, Gone, NotFound

from .dailies import (
    commitment,
    daily_deal_get,
    daily_deals_open,
    day_end,
    day_over,
    utc_today,
)
from .difficulty import difficulty_json
from .models import Action, Attempt, DailyDeal, DayResults

Viewer = User | AnonymousUser

log = logging.getLogger(__name__)


def _iso(moment: dt.datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None


def attempt_elapsed_ms(attempt: Attempt, now: dt.datetime | None = None) -> int:
    """The clock a player sees: the server's time since the start, or once over
    the time kept. Negative while a race's countdown runs (the clock starts at
    the race's ``starts_at``, ahead of the game's making): a client's clock
    running on from it shows 0:00 until the start, whatever the client's time."""
    if attempt.elapsed_ms is not None:
        return attempt.elapsed_ms
    now = now or timezone.now()
    if attempt.started_at > now:
        return -int((attempt.started_at - now).total_seconds() * 1000)
    return attempt.ms_since_start(now)


def secret(daily: DailyDeal | None) -> bool:
    """Whether ``daily`` is a daily deal whose day is not over: nothing may name its
    code (PRODUCT.md, "Fair daily deals")."""
    return daily is not None and not day_over(daily.date)


def sealed_secret(game: Game | type[Game], *, sealed: bool) -> bool:
    """Whether ``game``, sealed in a race still running (``Attempt.sealed``), may
    name no code: a race on a game that hides cards (Easy Harp) is dealt from a
    fresh secret key (RULES.md C2b) and names no code to anyone, its racers
    included, until it ends (PRODUCT.md, anti-cheat) — else ``python -m
    games.engine deal CODE`` prints every hidden card. A game that hides none
    (Seahaven) has nothing a code would tell."""
    return sealed and game.hides_cards


def state_json(
    game: Game, *, daily: DailyDeal | None, full: bool = False, sealed: bool = False
) -> dict[str, Any]:
    """The engine's view of ``game`` (the player's, or with ``full`` every card) as
    sent to anyone: a game on a daily deal says which day and variant it is, and
    while that day runs its ``code`` is null; so is a ``sealed`` race game's
    that hides cards while the race runs (``sealed_secret``) — the one place
    that decides it."""
    view = game.view(full=full)
    if daily is not None:
        view["daily"] = {"date": daily.date.isoformat(), "variant": daily.variant}
        if secret(daily):
            view["code"] = None
    if sealed_secret(game, sealed=sealed):
        view["code"] = None
    return view


def attempt_json(
    attempt: Attempt, *, viewer: Viewer, duplicate: bool = False, game: Game | None = None
) -> dict[str, Any]:
    """The attempt object of PRODUCT.md. ``view`` is the engine's player view —
    never a face-down or stock card — plus, for the player, where each movable
    pile may go (``targets``) and, once only foundation moves remain, the moves a
    Finish button plays (``finish``, from the engine's view), so the client needs
    no rule; both are empty for anyone else and once the game is over. A game on
    a running daily (ranked or its practice) names no code, nor does a race's
    game that hides cards while the race runs."""
    game = game or load_game(attempt.state)
    view = state_json(game, daily=attempt.daily, sealed=attempt.sealed)
    is_player = viewer.is_authenticated and viewer.pk == attempt.player_id
    if is_player and not attempt.finished:
        view["targets"] = game.targets_json()
    else:  # a spectator, or a game over: nothing to play
        view["targets"] = view["finish"] = []
    return {
        "id": attempt.pk,
        "ranked": attempt.ranked,
        "status": attempt.status,
        "seq": attempt.seq,
        "code": view["code"],
        "variant": game.code.variant_id,
        "daily": attempt.daily.date.isoformat() if attempt.daily_id and attempt.daily else None,
        "player": attempt.player.get_username(),
        # A guest's game (issue 24): a daily attempt is not ranked until claimed.
        "guest": attempt.player.is_guest,
        "started_at": _iso(attempt.started_at),
        "finished_at": _iso(attempt.finished_at),
        "elapsed_ms": attempt_elapsed_ms(attempt),
        "score": attempt.score,
        "moves": attempt.moves,
        "won": attempt.won,
        "verified": attempt.verified,
        # The solver proved this position lost (Seahaven): only ever said with a proof.
        "unwinnable": attempt.lost_seq is not None and attempt.lost_seq == attempt.seq,
        # A New deal: true = the solver proved the deal winnable, false = any deal
        # (may be impossible); null for a daily or a deal asked for by its code.
        "proven": attempt.proven,
        "duplicate": duplicate,
        "view": view,
    }


def viewer_won_daily(*, viewer: Viewer, daily: DailyDeal) -> bool:
    """The viewer won their ranked attempt on ``daily``: they have seen every card."""
    if not viewer.is_authenticated:
        return False
    return Attempt.objects.filter(
        player_id=viewer.pk, daily=daily, ranked=True, status=Attempt.Status.WON
    ).exists()


def running_dailies(attempt: Attempt) -> list[DailyDeal]:
    """The daily deals not yet over whose cards ``attempt`` plays: its own daily
    (ranked, or a practice of it) and any daily dealing the same cards."""
    dailies = daily_deals_open(deal=attempt.deal)
    if secret(attempt.daily) and attempt.daily_id not in {d.pk for d in dailies}:
        dailies.append(attempt.daily)  # type: ignore[arg-type]
    return dailies


def may_see_moves(*, attempt: Attempt, viewer: Viewer) -> bool:
    """Replays and live views of a game on a daily deal whose day is running —
    ranked or practice, the viewer's own included — are only for players who
    *won* their ranked attempt on it: they have seen every card. Everyone else,
    a player who resigned too, waits until the day is over (PRODUCT.md,
    anti-cheat): else a second account could resign at once and read the deal."""
    return all(viewer_won_daily(viewer=viewer, daily=d) for d in running_dailies(attempt))


SPOILER = (
    "This game is on a daily deal whose day is still running: its replays and live games"
    " open to players who won it, and to everyone when the day is over (00:00 UTC)."
)


SEALED = (
    "This game is in a race that is still running: its replay and live view open to"
    " everyone when the race ends."
)


def attempt_for_viewer(*, attempt_id: int, viewer: Viewer, player_too: bool = False) -> Attempt:
    """An attempt whose moves ``viewer`` may see (``may_see_moves``); with
    ``player_too`` its player is always let in — to play it, not to replay it."""
    attempt = (
        Attempt.objects.select_related("player", "daily", "deal").filter(pk=attempt_id).first()
    )
    if attempt is None:
        raise no_game(attempt_id)
    own = viewer.is_authenticated and viewer.pk == attempt.player_id
    if player_too and own:
        return attempt
    if attempt.sealed:
        # A race running (races/services.py): its games are their players' alone to
        # play, and nobody's to replay, analyse or watch — their own player's
        # neither: a finished racer's replay shows every card of the deal (Easy
        # Harp's hidden ones too), for a second account still racing to use.
        raise Forbidden("sealed", SEALED)
    if not may_see_moves(attempt=attempt, viewer=viewer):
        raise Forbidden("spoiler", SPOILER)
    return attempt


def attempt_of_player(*, attempt_id: int, player: User) -> Attempt:
    """The player's own attempt; anyone else's is refused (PRODUCT.md: 403 or 404).
    Others follow a game live over its websocket, under the spoiler rule."""
    attempt = (
        Attempt.objects.select_related("player", "daily", "deal").filter(pk=attempt_id).first()
    )
    attempt_check_player(
        attempt_id=attempt_id, player_id=attempt.player_id if attempt else None, player=player
    )
    assert attempt is not None
    return attempt


def no_game(attempt_id: int) -> NotFound:
    """The refusal of a game that does not exist, wherever it is looked for."""
    return NotFound("not_found", f"No game {attempt_id}.")


def attempt_check_player(*, attempt_id: int, player_id: int | None, player: User) -> None:
    """Refuse a game that does not exist (``player_id`` None) or that is not
    ``player``'s: the one "no game" and "not yours" of every door, whether the
    game is read (``attempt_of_player``) or locked to act on (games/services.py)."""
    if player_id is None:
        raise no_game(attempt_id)
    if player_id != player.pk:
        raise Forbidden("not_yours", "That is another player's game.")


LAST_WINNABLE_SECONDS = 2.0
"""What one last-winnable search may spend in all (a request waits for it)."""
LAST_WINNABLE_NODES = 100_000
"""Positions one probe of it may expand (a 2-cell deal's start: 3 000 at most
measured; an unsettled probe is said so)."""
LAST_WINNABLE_KEEP_S = 3600
"""How long an answer is kept for its position (the attempt and its ``seq``)."""


def _hides_cards(game: Game) -> bool:
    """The player's view of ``game`` hides a card (face down, or in the stock)."""
    return any(None in pile for pile in game.view()["piles"].values())


def _search_last_winnable(game: Game) -> tuple[int | None, bool, int]:
    """The engine's post-mortem search (``games.engine.postmortem``) over the
    positions undo reaches from ``game`` (a lost position, not probed), within
    this selector's limits. Returns (undos back to the last position proven
    winnable, or None; settled: the position one undo nearer is proven lost;
    probes made)."""
    reach = len(game.history)
    start = game.copy()
    for _ in range(reach):
        start.apply(Undo())
    found = last_winnable(
        start,
        [step.action for step in game.history],
        nodes=LAST_WINNABLE_NODES,
        seconds=LAST_WINNABLE_SECONDS,
        end_lost=True,
    )
    undos = None if found.index is None else reach - found.index
    return undos, found.settled, found.probes


def attempt_last_winnable(*, attempt_id: int, player: User) -> dict[str, Any]:
    """How many undos take the player's lost game back to the last position that
    could still be won (issue 24): ``{"seq", "undos", "settled"}``, ``seq`` the
    game's seq the answer is for (the first undo's). Only for its player, a
    game going on, whose position is a dead end or proven lost, and whose view
    hides no card — Seahaven; an Easy Harp game hides cards, and nothing may be
    derived from them (a daily's hidden cards never leak): always refused so,
    whatever its cards. Every other refusal says why (409)."""
    attempt = attempt_of_player(attempt_id=attempt_id, player=player)
    if attempt.finished:
        raise Conflict("finished", f"This game is over ({attempt.status}).")
    game = load_game(attempt.state)
    if _hides_cards(game):
        raise Conflict(
            "hidden_cards",
            "This game hides cards: no position can be judged from what you have seen.",
        )
    if not (game.is_dead_end() or attempt.lost_seq == attempt.seq):
        raise Conflict(
            "not_lost", "This position is not known to be lost: play on, or undo yourself."
        )
    key = f"last-winnable:{attempt.pk}:{attempt.started_at.timestamp()}:{attempt.seq}"
    try:
        found = cache.get(key)
    except Exception:  # a hint: computed again rather than refused
        found = None
    if found is None:
        started = time.perf_counter()
        undos, settled, probes = _search_last_winnable(game)
        found = {"undos": undos, "settled": settled, "reach": len(game.history)}
        log.info(
            "last winnable of %s: %s undo(s), %s, %d probe(s) in %.2f s",
            attempt.pk,
            undos,
            "settled" if settled else "unsettled",
            probes,
            time.perf_counter() - started,
        )
        try:
            cache.set(key, found, timeout=LAST_WINNABLE_KEEP_S)
        except Exception:
            log.warning("last winnable of %s not kept: the cache did not answer", attempt.pk)
    if found["undos"] is not None:
        return {"seq": attempt.seq, "undos": found["undos"], "settled": found["settled"]}
    if not found["settled"]:
        raise Conflict(
            "unsettled",
            "The solver could not tell in time which earlier position can still be won.",
        )
    if found["reach"] == game.depth:
        raise Conflict("deal_lost", "No position of this game can be won: the deal cannot.")
    raise Conflict(
        "out_of_reach",
        f"None of the {found['reach']} positions undo reaches can still be won.",
    )


def replay_json(attempt: Attempt, *, positions: bool = False) -> dict[str, Any]:
    """The full starting deal and every accepted action in resolved form, replayable
    by the engine (PRODUCT.md), with the server time and result after each; with
    ``positions``, also the full view after each action, computed by the engine,
    so that a client without rules can show any step."""
    if not attempt.finished:
        raise Conflict("not_finished", "A replay is available once the game is over.")
    log = list(Action.objects.filter(attempt=attempt).order_by("seq"))
    if len(log) != attempt.seq:
        # Its month's partition was taken out of the log for cold storage
        # (docs/operations.md, "The action log", retention): say so, not a replay that lies.
        raise Gone("archived", "This game's moves are archived: its replay is gone.")
    deal = state_json(
        new_game(attempt.deal.code), daily=attempt.daily, full=True, sealed=attempt.sealed
    )
    data = {
        "id": attempt.pk,
        "code": deal["code"],
        "variant": attempt.deal.variant,
        "player": attempt.player.get_username(),
        "ranked": attempt.ranked,
        "daily": attempt.daily.date.isoformat() if attempt.daily else None,
        "status": attempt.status,
        "won": attempt.won,
        "score": attempt.score,
        "moves": attempt.moves,
        "elapsed_ms": attempt.elapsed_ms,
        "verified": attempt.verified,
        "deal": deal,
        "actions": [a.action for a in log],
        "log": [{"ms": a.ms, "score": a.score, "moves": a.moves} for a in log],
    }
    if positions:
        game = new_game(attempt.deal.code)
        views = [deal]
        for action in log:
            game.apply(game.parse_action(action.action))
            views.append(state_json(game, daily=attempt.daily, full=True, sealed=attempt.sealed))
        data["positions"] = views
    return data


def replay_url(attempt_id: int) -> str:
    return reverse("game-replay", kwargs={"attempt_id": attempt_id})


REPLAYS_CLOSED = (
    "Replays of a daily deal open to players who won it, and to everyone when the day is over."
)


def daily_json(*, date: dt.date, viewer: Viewer) -> dict[str, Any]:
    """One day's daily deals with the viewer's status on each (PRODUCT.md, "Fair
    daily deals"): while the day runs each variant's ``commitment`` (SHA-256 of
    its code) and ``par``, never its code; once it is over also ``code`` and the
    solver's winning line, ``proof``, for anyone to check. Today's deals are made
    on demand; a future day is 404, a past day shows what was stored."""
    today = utc_today()
    if date > today:
        raise NotFound("no_daily", f"The daily deals of {date} are not published yet.")
    over = date < today
    if over:
        stored = {d.variant: d for d in DailyDeal.objects.filter(date=date).select_related("deal")}
        if not stored:
            raise NotFound("no_daily", f"There were no daily deals on {date}.")
        dailies = [stored[v] for v in ALL_VARIANTS if v in stored]
    else:
        dailies = [daily_deal_get(date=date, variant=v) for v in ALL_VARIANTS]
    mine: dict[int, Attempt] = {}
    if viewer.is_authenticated:
        mine = {
            a.daily_id: a  # type: ignore[misc]
            for a in Attempt.objects.filter(player_id=viewer.pk, daily__in=dailies, ranked=True)
        }
    files = _day_results(dailies) if over else {}
    deals = []
    for daily in dailies:
        attempt = mine.get(daily.pk)
        entry: dict[str, Any] = {
            "variant": daily.variant,
            "commitment": commitment(daily.deal.code),
            # The solver's line length: the best known, not necessarily the best.
            "par": daily.par,
            "proven": daily.proven,
            "status": attempt.status if attempt else "not_started",
            "attempt": attempt.pk if attempt else None,
            "score": attempt.score if attempt else None,
            "replays_open": over or (attempt is not None and attempt.won),
            "leaderboard": reverse(
                "leaderboard", kwargs={"date": date.isoformat(), "variant": daily.variant}
            ),
        }
        if over:
            entry["code"] = daily.deal.code
            entry["proof"] = daily.proof
            entry["results"] = files.get(daily.pk)
        # Predicted: counts only, from the start; measured once over (issue 27).
        entry["difficulty"] = difficulty_json(daily, over=over)
        deals.append(entry)
    end = day_end(date)
    return {
        "date": date.isoformat(),
        "over": over,
        "ends_at": _iso(end),
        "seconds_left": max(0, int((end - timezone.now()).total_seconds())),
        "deals": deals,
    }


def _day_results(dailies: list[DailyDeal]) -> dict[int, dict[str, Any]]:
    """The results file of each daily of a day that is over, by daily: where to
    download it, its SHA-256, its count, when it was built, the name it
    downloads under and the hashes it replaced (games/dayfile.py).
    A daily whose file is not built yet has none (``results`` null)."""
    stored = DayResults.objects.filter(daily__in=dailies).select_related("daily").defer("data")
    return {
        f.daily_id: {
            "url": reverse(
                "daily-results",
                kwargs={"date": f.daily.date.isoformat(), "variant": f.daily.variant},
            ),
            "sha256": f.sha256,
            "count": f.count,
            "built_at": _iso(f.built_at),
            "file": f.filename,
            "earlier": f.earlier,
        }
        for f in stored
    }


LIVE_LIMIT = 50
LIVE_WINDOW = dt.timedelta(minutes=10)
"""Being played now: started or moved (the attempt's last write) this recently."""


def live_games(*, viewer: User) -> list[dict[str, Any]]:
    """Games being played now that ``viewer`` may watch: playing, started or moved
    in the last ``LIVE_WINDOW`` (a game left longer is not live, though it stays
    open to its player), and not a ranked daily whose day has ended (it can no
    longer be played: the stale-attempt job closes it as abandoned, within the
    hour). Not those on a daily deal still running — ranked or practice, or dealing
    the same cards — unless the viewer won it (PRODUCT.md, anti-cheat)."""
    won = set(
        Attempt.objects.filter(
            player_id=viewer.pk,
            ranked=True,
            status=Attempt.Status.WON,
            daily__date__gte=utc_today(),
        ).values_list("daily_id", flat=True)
    )
    blocked = Q()
    for daily in DailyDeal.objects.filter(date__gte=utc_today()).select_related("deal"):
        if daily.pk not in won:
            same = [str(code) for code in GameCode.parse(daily.deal.code).same_cards()]
            blocked |= Q(daily=daily) | Q(deal__code__in=same)
    playing = (
        Attempt.objects.filter(
            status=Attempt.Status.PLAYING, updated_at__gte=timezone.now() - LIVE_WINDOW
        )
        .exclude(player_id=viewer.pk)
        .exclude(player__is_guest=True)  # guests are on no list (issue 24)
        .exclude(sealed=True)  # a race's games, while it runs (races/services.py)
        .exclude(ranked=True, daily__date__lt=utc_today())  # abandoned: its day is over
        .select_related("player", "deal", "daily")
        .order_by("-updated_at")
    )
    if blocked:
        playing = playing.exclude(blocked)
    return [
        {
            "id": a.pk,
            "variant": a.deal.variant,
            "code": None if secret(a.daily) else a.deal.code,
            "daily": a.daily.date.isoformat() if a.daily else None,
            "player": a.player.get_username(),
            "ranked": a.ranked,
            "moves": a.moves,
            "score": a.score,
            "started_at": _iso(a.started_at),
            "watch": f"/ws/games/{a.pk}/",
        }
        for a in playing[:LIVE_LIMIT]
    ]
