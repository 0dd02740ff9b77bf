"""Reads: what a viewer may see of an attempt, and in which JSON shape."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from config.errors import ApiError
from games.engine import ALL_VARIANTS, Game, action_from_json, load_game, new_game

from .dailies import daily_deal_get, daily_deals_open, utc_today

if TYPE_CHECKING:
    from .services import Applied
from .models import Action, Attempt, DailyDeal

Viewer = User | AnonymousUser


def _iso(moment: dt.datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None


def attempt_elapsed_ms(attempt: Attempt, now: dt.datetime | None = None) -> int:
    if attempt.elapsed_ms is not None:
        return attempt.elapsed_ms
    return attempt.ms_since_start(now or timezone.now())


def attempt_json(
    attempt: Attempt, *, viewer: Viewer, duplicate: bool = False, game: Game | None = None
) -> dict[str, Any]:
    """The attempt object of PRODUCT.md. ``view`` is the engine's player view —
    never a face-down or stock card — plus, for the player, where each movable
    pile may go (``targets``), so the client needs no rule."""
    game = game or load_game(attempt.state)
    view = game.view()
    is_player = viewer.is_authenticated and viewer.pk == attempt.player_id
    view["targets"] = game.targets_json() if is_player and not attempt.finished else []
    return {
        "id": attempt.pk,
        "ranked": attempt.ranked,
        "status": attempt.status,
        "seq": attempt.seq,
        "code": str(game.code),
        "variant": game.code.variant_id,
        "daily": attempt.daily.date.isoformat() if attempt.daily_id and attempt.daily else None,
        "player": attempt.player.get_username(),
        "started_at": _iso(attempt.started_at),
        "finished_at": _iso(attempt.finished_at),
        "elapsed_ms": attempt_elapsed_ms(attempt),
        "score": attempt.score,
        "moves": attempt.moves,
        "won": attempt.won,
        "verified": attempt.verified,
        # The solver proved this position lost (Seahaven): only ever said with a proof.
        "unwinnable": attempt.lost_seq is not None and attempt.lost_seq == attempt.seq,
        "duplicate": duplicate,
        "view": view,
    }


def applied_json(applied: Applied, *, viewer: Viewer) -> dict[str, Any]:
    """The answer to an applied action: the attempt object the ``state`` broadcast
    already carried (the player's own view), else built now (a resend)."""
    if "game" in applied.announced:
        return dict(applied.announced["game"], duplicate=applied.duplicate)
    return attempt_json(
        applied.attempt, viewer=viewer, duplicate=applied.duplicate, game=applied.game
    )


def viewer_finished_daily(*, viewer: Viewer, daily: DailyDeal) -> bool:
    if not viewer.is_authenticated:
        return False
    return (
        Attempt.objects.filter(player_id=viewer.pk, daily=daily, ranked=True)
        .exclude(status=Attempt.Status.PLAYING)
        .exists()
    )


def may_see_moves(*, attempt: Attempt, viewer: Viewer) -> bool:
    """Anything that reveals an attempt's moves on a daily deal still running is
    only for players who finished their own ranked attempt on it (PRODUCT.md,
    anti-cheat). The player always sees their own."""
    if viewer.is_authenticated and viewer.pk == attempt.player_id:
        return True
    running = daily_deals_open(deal=attempt.deal)
    return all(viewer_finished_daily(viewer=viewer, daily=daily) for daily in running)


def attempt_for_viewer(*, attempt_id: int, viewer: Viewer) -> Attempt:
    attempt = (
        Attempt.objects.select_related("player", "daily", "deal").filter(pk=attempt_id).first()
    )
    if attempt is None:
        raise ApiError(404, "not_found", f"No game {attempt_id}.")
    if not may_see_moves(attempt=attempt, viewer=viewer):
        raise ApiError(
            403, "spoiler", "This is today's daily deal: finish your own ranked attempt first."
        )
    return attempt


def attempt_of_player(*, attempt_id: int, player: User) -> Attempt:
    """The player's own attempt; anyone else's is refused (PRODUCT.md: 403 or 404).
    Others follow a game live over its websocket, under the spoiler rule."""
    attempt = (
        Attempt.objects.select_related("player", "daily", "deal").filter(pk=attempt_id).first()
    )
    if attempt is None:
        raise ApiError(404, "not_found", f"No game {attempt_id}.")
    if attempt.player_id != player.pk:
        raise ApiError(403, "not_yours", "That is another player's game.")
    return attempt


def replay_json(attempt: Attempt, *, positions: bool = False) -> dict[str, Any]:
    """The full starting deal and every accepted action in resolved form, replayable
    by the engine (PRODUCT.md), with the server time and result after each; with
    ``positions``, also the full view after each action, computed by the engine,
    so that a client without rules can show any step."""
    if not attempt.finished:
        raise ApiError(409, "not_finished", "A replay is available once the game is over.")
    log = list(Action.objects.filter(attempt=attempt).order_by("seq"))
    data = {
        "id": attempt.pk,
        "code": attempt.deal.code,
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
        "deal": new_game(attempt.deal.code).view(full=True),
        "actions": [a.action for a in log],
        "log": [{"ms": a.ms, "score": a.score, "moves": a.moves} for a in log],
    }
    if positions:
        game = new_game(attempt.deal.code)
        views = [game.view(full=True)]
        for action in log:
            game.apply(action_from_json(action.action, game.piles))
            views.append(game.view(full=True))
        data["positions"] = views
    return data


def replay_url(attempt_id: int) -> str:
    return reverse("game-replay", kwargs={"attempt_id": attempt_id})


def daily_json(*, date: dt.date, viewer: Viewer) -> dict[str, Any]:
    """Today's four daily deals with the viewer's status on each."""
    deals = []
    for variant in ALL_VARIANTS:
        daily = daily_deal_get(date=date, variant=variant)
        mine = None
        if viewer.is_authenticated:
            mine = Attempt.objects.filter(player_id=viewer.pk, daily=daily, ranked=True).first()
        deals.append(
            {
                "variant": variant,
                "code": daily.deal.code,
                "status": mine.status if mine else "not_started",
                "attempt": mine.pk if mine else None,
                "score": mine.score if mine else None,
                # The solver's line length: the best known, not necessarily the best.
                "par": daily.par,
                "proven": daily.proven,
                "leaderboard": reverse(
                    "leaderboard", kwargs={"date": date.isoformat(), "variant": variant}
                ),
            }
        )
    end = dt.datetime.combine(date + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC)
    return {
        "date": date.isoformat(),
        "ends_at": _iso(end),
        "seconds_left": max(0, int((end - timezone.now()).total_seconds())),
        "deals": deals,
    }


LIVE_LIMIT = 50
LIVE_WINDOW = dt.timedelta(minutes=30)


def live_games(*, viewer: User) -> list[dict[str, Any]]:
    """Games in progress, moved in the last half hour, that ``viewer`` may watch:
    not those dealing the same cards as a daily deal still running that the
    viewer has not finished (PRODUCT.md, anti-cheat)."""
    blocked = Q()
    for daily in DailyDeal.objects.filter(date__gte=utc_today()).select_related("deal"):
        if not viewer_finished_daily(viewer=viewer, daily=daily):
            game = daily.variant.split("-")[0]
            blocked |= Q(deal__number=daily.deal.number, deal__variant__startswith=f"{game}-")
    playing = (
        Attempt.objects.filter(
            status=Attempt.Status.PLAYING, updated_at__gte=timezone.now() - LIVE_WINDOW
        )
        .exclude(player_id=viewer.pk)
        .select_related("player", "deal")
        .order_by("-updated_at")
    )
    if blocked:
        playing = playing.exclude(blocked)
    return [
        {
            "id": a.pk,
            "variant": a.deal.variant,
            "code": a.deal.code,
            "player": a.player.get_username(),
            "ranked": a.ranked,
            "moves": a.moves,
            "score": a.score,
            "started_at": _iso(a.started_at),
            "watch": f"/ws/games/{a.pk}/",
        }
        for a in playing[:LIVE_LIMIT]
    ]
