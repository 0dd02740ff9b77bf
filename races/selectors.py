"""Reads of the race rooms: the race JSON (docs/api.md, "Race rooms"), a
racer's progress and the standings. Nothing here names a card: a racer is seen
as counts (``games.engine.progress``), and the deal's code only from the start
— for a game that hides cards, only from the end (``games.selectors.sealed_secret``)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import User
from games.engine import VARIANTS, Game, game_class, load_game, new_game, progress
from games.models import Action, Attempt
from games.selectors import Viewer, sealed_secret
from kit.errors import NotFound

from .models import Race, RaceInvite, Racer

PROGRESS_KEY = "race:progress:{}"
"""The cache's copy of a racer's latest progress, by attempt id (``races.progress``)."""
PROGRESS_KEEP_S = 3 * 3600
SENT_KEY = "race:sent:{}"
"""The cache's mark of a room's last ``progress`` frame, by race id: a race view
built before it is no longer the room's (``races.realtime``)."""
LADDER_KEY = "race:ladder:{}"
"""The cache's copy of a racer's cards-home ladder (``home_ladder``), by attempt id,
with the ``seq`` it is of (``races.progress``)."""


def _iso(moment: dt.datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None


def race_get(*, slug: str) -> Race:
    race = Race.objects.select_related("host", "deal").filter(slug=slug).first()
    if race is None:
        raise no_race(slug)
    return race


def no_race(slug: str) -> NotFound:
    return NotFound("not_found", f"No race {slug[:16]!r}.")


def race_version(*, slug: str) -> int:
    """The room's ``version`` (its changes so far), one small read: whether a race
    view kept for its sockets is still the room's (``races.realtime``)."""
    version = Race.objects.filter(slug=slug).values_list("version", flat=True).first()
    if version is None:
        raise no_race(slug)
    return version


# --- when a racer reached their cards home --------------------------------------------------
#
# Standings never reward quitting (PRODUCT.md, anti-cheat): among racers who did
# not finish, more cards home places higher, then whoever reached that count
# first; the moment a racer stopped never breaks a tie. "Reached" is held: a
# count given up (a card taken back from a foundation, a foundation move undone)
# is reached again when it is made again. A racer's *ladder* says it: its k-th
# rung is the server time (the action log's ``ms``) since which they have had
# more than k cards home without a break; the last rung is when they reached the
# count they hold (``home_ms``; 0 with none home — everyone had none from the start).


def _home(game: Game) -> int:
    return sum(progress(game)["home"])


def ladder_step(ladder: list[int], *, ms: int, home: int) -> None:
    """``ladder`` after one action, at ``ms``, left ``home`` cards home: rungs above
    the count are gone, new ones reached now."""
    del ladder[home:]
    ladder.extend([ms] * (home - len(ladder)))


def ladder_ms(ladder: list[int]) -> int:
    """When the count the ladder stands at was reached (0: none home)."""
    return ladder[-1] if ladder else 0


def home_ladder(attempt: Attempt) -> list[int]:
    """``attempt``'s ladder from its action log, replayed through the engine: what
    the live one (``races.progress``, a step an action) is, whenever asked."""
    game = new_game(attempt.deal.code)
    ladder: list[int] = []
    log = Action.objects.filter(attempt_id=attempt.pk).order_by("seq")
    for action, ms in log.values_list("action", "ms"):
        game.apply(game.parse_action(action))
        ladder_step(ladder, ms=ms, home=_home(game))
    return ladder


def racer_ladder(attempt: Attempt) -> list[int]:
    """``attempt``'s ladder: the cache's, when it is of its last action, else replayed."""
    try:
        kept = cache.get(LADDER_KEY.format(attempt.pk))
    except Exception:  # replayed instead
        kept = None
    if kept is not None and kept.get("seq") == attempt.seq:
        return list(kept["ladder"])
    return home_ladder(attempt)


def racer_progress(attempt: Attempt, now: dt.datetime | None = None) -> dict[str, Any]:
    """``attempt``'s progress from its stored game, with its clock and when it
    reached its cards home (``home_ms``)."""
    return {
        **progress(load_game(attempt.state)),
        "elapsed_ms": attempt.elapsed_ms
        if attempt.elapsed_ms is not None
        else attempt.ms_since_start(now or timezone.now()),
        "home_ms": ladder_ms(racer_ladder(attempt)),
    }


def _home_total(racer: Racer) -> int:
    return sum((racer.progress or {}).get("home", []))


def standing_key(racer: Racer) -> tuple[int, ...]:
    """Winners by time; then the others by cards home (more first), then by when
    they reached that count (``home_ms``, earlier first) — never by when they
    stopped: a resignation's moment breaks no tie (PRODUCT.md, anti-cheat); a
    racer who left before moving last. While a race runs, its racers are placed
    live in this same order, from the progress the room shows (``_places``)."""
    elapsed = racer.elapsed_ms if racer.elapsed_ms is not None else 2**62
    shown = racer.progress or {}
    if racer.status == Racer.Status.WON:
        return (0, elapsed)
    if racer.status == Racer.Status.LEFT and not shown.get("moves"):
        return (2,)
    # A racer finished before ``home_ms`` was kept: reached by the time they stopped.
    reached = shown.get("home_ms", elapsed)
    return (1, -_home_total(racer), reached)


def standings(racers: list[Racer]) -> dict[int, int]:
    """Each racer's place (by racer pk), from 1; equal keys share a place (1, 1, 3)."""
    ordered = sorted(racers, key=standing_key)
    places: dict[int, int] = {}
    for index, racer in enumerate(ordered):
        if index and standing_key(ordered[index - 1]) == standing_key(racer):
            places[racer.pk] = places[ordered[index - 1].pk]
        else:
            places[racer.pk] = index + 1
    return places


RATED_MIN = 2
"""A race is rated when at least this many of its racers moved (a rating needs
an opponent)."""


def racers_who_moved() -> QuerySet[Racer]:
    """The placed racers (of finished races) who made a move: the ones a race's
    rating counts. One who joined and never played is no opponent beaten (a
    second account would otherwise feed a rating); one who left after moving is."""
    return Racer.objects.filter(place__isnull=False, attempt__seq__gt=0)


def race_rated_standings(*, race_id: int) -> list[tuple[int, int]]:
    """A finished race's standings as its rating takes them (``races.signals.
    race_finished``): (player id, place) of the racers who moved, best place
    first. Read from the places stored at the end, so the same whenever asked."""
    return [
        (player_id, place)
        for player_id, place in racers_who_moved()
        .filter(race_id=race_id)
        .order_by("place", "joined_at", "pk")
        .values_list("player_id", "place")
    ]


def races_rateable(*, since: dt.datetime) -> QuerySet[Race]:
    """The races finished since ``since`` in which at least ``RATED_MIN`` racers
    moved: each is announced (or would have been) as ``race_finished``."""
    movers = (
        racers_who_moved()
        .values("race")
        .annotate(n=Count("pk"))
        .filter(n__gte=RATED_MIN)
        .values("race")
    )
    return Race.objects.filter(status=Race.Status.FINISHED, finished_at__gte=since, pk__in=movers)


@dataclass(frozen=True)
class RaceView:
    """The race JSON as anyone sees it (without ``you``), and what each viewer's
    own ``you`` is made of."""

    race: dict[str, Any]
    host_id: int
    attempts: dict[int, int | None]
    """Racer's player id → their attempt id (None before the start)."""

    def you(self, viewer_id: int | None) -> dict[str, Any]:
        racer = viewer_id is not None and viewer_id in self.attempts
        return {
            "racer": racer,
            "host": viewer_id is not None and viewer_id == self.host_id,
            "attempt": self.attempts.get(viewer_id) if racer and viewer_id is not None else None,
        }

    def json_for(self, viewer_id: int | None) -> dict[str, Any]:
        return {**self.race, "you": self.you(viewer_id)}


def _zero(race: Race) -> dict[str, Any]:
    spots = len(game_class(race.deal.code).foundation_suits)
    return {"home": [0] * spots, "uncovered": 0, "moves": 0, "elapsed_ms": 0, "home_ms": 0}


def race_deal_named(race: Race) -> bool:
    """Whether the race JSON names the race's deal (``code``, and ``daily``, whose
    day names its code): never before the start; from the start when its game
    hides no card (the racers have the deal); when it hides cards, only once
    the race is over — its games are sealed until then, and their code null
    (``games.selectors.sealed_secret``: the one rule for both)."""
    if race.status == Race.Status.OPEN:
        return False
    return not sealed_secret(game_class(race.deal.code), sealed=race.status == Race.Status.RUNNING)


def _shown(race: Race, racers: list[Racer], now: dt.datetime) -> dict[int, dict[str, Any]]:
    """Each racer's progress as the room shows it now, by racer pk: while the race
    runs, the latest the server computed from a racer's checked actions (kept by
    ``races.progress``; read from the stored game when not kept), their clock
    running; else, and for a racer done, as stored."""
    running = race.status == Race.Status.RUNNING
    kept: dict[str, Any] = {}
    racing = [r for r in racers if r.status == Racer.Status.RACING and r.attempt_id]
    live = [r.attempt_id for r in racing if r.moves]  # one who has not moved: none kept
    if running and live:
        try:
            kept = cache.get_many([PROGRESS_KEY.format(a) for a in live])
        except Exception:  # read from the games instead
            kept = {}
    missing = [a for a in live if PROGRESS_KEY.format(a) not in kept]
    stored = {a.pk: a for a in Attempt.objects.filter(pk__in=missing)} if missing else {}
    zero = _zero(race)
    shown: dict[int, dict[str, Any]] = {}
    for racer in racers:
        if racer.status == Racer.Status.RACING and racer.attempt_id:
            found = kept.get(PROGRESS_KEY.format(racer.attempt_id))
            if found is None and racer.attempt_id in stored:
                found = racer_progress(stored[racer.attempt_id], now)
            shown[racer.pk] = dict(found or zero)
            if race.starts_at is not None:  # the clock runs for everyone still racing
                clock = int((now - race.starts_at).total_seconds() * 1000)
                shown[racer.pk]["elapsed_ms"] = max(0, clock)
        else:
            shown[racer.pk] = racer.progress or zero
    return shown


def _places(race: Race, racers: list[Racer], shown: dict[int, dict[str, Any]]) -> dict[int, int]:
    """Each racer's place, by racer pk: once the race is over, the stored one;
    while it runs, live — the standings of the progress shown (one order, live
    and final: the pages place no one themselves); none before the start."""
    if race.status == Race.Status.FINISHED:
        return {r.pk: r.place for r in racers if r.place is not None}
    if race.status != Race.Status.RUNNING:
        return {}
    return standings(
        [
            Racer(pk=r.pk, status=r.status, elapsed_ms=r.elapsed_ms, progress=shown[r.pk])
            for r in racers
        ]
    )


def _racers(*related: str, **where: Any) -> list[Racer]:
    """The racers ``where`` says, each with its player (and ``related``) and
    ``moves``: how many actions its game took (0: none, or no game yet)."""
    racers = Racer.objects.filter(**where).select_related("player", *related)
    return list(racers.annotate(moves=Coalesce("attempt__seq", 0)))


def race_places(*, slug: str) -> tuple[int, dict[str, int]]:
    """The version of a running race and its racers' places now, by player name
    (the ``progress`` frame's ``places``: a frame names the racers who moved, its
    places the whole field, as of that version); none once it is not running
    (-1, {}). Two reads: the racers, the progress kept of those who moved."""
    racers = _racers("race__deal", race__slug=slug, race__status=Race.Status.RUNNING)
    if not racers:
        return -1, {}
    race = racers[0].race
    places = _places(race, racers, _shown(race, racers, timezone.now()))
    return race.version, {r.player.get_username(): places[r.pk] for r in racers}


def race_view(race: Race) -> RaceView:
    """The race JSON of ``race`` (docs/api.md, "Race rooms"), each racer with
    their progress and place as the room shows them (``_shown``, ``_places``)."""
    racers = _racers(race=race)
    shown = _shown(race, racers, timezone.now())
    places = _places(race, racers, shown)
    # A guest is shown by number in the room ("Guest 2"), its made-up name saying nothing.
    guests = sorted((r for r in racers if r.player.is_guest), key=lambda r: (r.joined_at, r.pk))
    numbers = {r.pk: n for n, r in enumerate(guests, start=1)}
    entries = []
    for racer in racers:
        entries.append(
            {
                "player": racer.player.get_username(),
                "guest": numbers.get(racer.pk),
                "status": racer.status,
                "place": places.get(racer.pk),
                "progress": shown[racer.pk],
                "joined_at": _iso(racer.joined_at),
                "finished_at": _iso(racer.finished_at),
                # Every racer's replay, once the race is over (issue 29).
                "attempt": racer.attempt_id if race.status == Race.Status.FINISHED else None,
            }
        )
    if race.status == Race.Status.FINISHED:
        entries.sort(key=lambda e: (e["place"] is None, e["place"] or 0))
    named = race_deal_named(race)
    body = {
        "id": race.slug,
        "url": f"/race/{race.slug}/",  # the room's page (frontend), its link to share
        "host": race.host.get_username(),
        "variant": race.variant,
        "variant_name": gettext(VARIANTS[race.variant][1].name),
        "status": race.status,
        "capacity": race.capacity,
        "quick": race.quick,
        "created_at": _iso(race.created_at),
        "starts_at": _iso(race.starts_at),
        "ends_at": _iso(race.ends_at),
        # Named once the race has started (for everyone: the racers have it); a
        # game that hides cards, once it has ended (race_deal_named).
        "code": race.deal.code if named else None,
        # Likewise the past daily it races: its day names its code (daily_json).
        "daily": race.daily.date.isoformat() if race.daily_id and race.daily and named else None,
        "racers": entries,
        "rematch": race.rematch.slug if race.rematch_id and race.rematch else None,
        "version": race.version,
    }
    return RaceView(body, race.host_id, {r.player_id: r.attempt_id for r in racers})


def race_json(race: Race, *, viewer: Viewer) -> dict[str, Any]:
    return race_view(race).json_for(viewer.pk if viewer.is_authenticated else None)


def races_for(*, player: User, invited: bool) -> list[dict[str, Any]]:
    """With ``invited``: the open rooms ``player`` is invited to and has not
    joined; else the rooms they host or race in, open or running, newest first."""
    if invited:
        slugs = (
            RaceInvite.objects.filter(player=player, race__status=Race.Status.OPEN)
            .exclude(race__racers__player=player)
            .order_by("-created_at")
            .values_list("race__slug", flat=True)[:50]
        )
    else:
        slugs = (
            Race.objects.filter(Q(host=player) | Q(racers__player=player))
            .exclude(status=Race.Status.FINISHED)
            .distinct()
            .order_by("-created_at")
            .values_list("slug", flat=True)[:50]
        )
    return [race_json(race_get(slug=slug), viewer=player) for slug in slugs]


def races_export(*, user: User) -> dict[str, Any]:
    """The races' section of a player's export (issue 28): every room they joined
    or hosted, their place and game in it, and the invitations they were sent.
    Not the other racers (their names are theirs)."""
    return {
        "races": [
            {
                "race": racer.race.slug,
                "variant": racer.race.variant,
                "host": racer.race.host_id == user.pk,
                "status": racer.status,
                "place": racer.place,
                "game": racer.attempt_id,
                "joined_at": racer.joined_at.isoformat(),
                "finished_at": _iso(racer.finished_at),
            }
            for racer in Racer.objects.filter(player=user).select_related("race").order_by("pk")
        ],
        "race_invites": [
            {"race": invite.race.slug, "at": invite.created_at.isoformat()}
            for invite in RaceInvite.objects.filter(player=user).select_related("race")
        ],
    }
