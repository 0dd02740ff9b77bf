"""Writes of the race rooms (issue 29; the rules: docs/api.md, "Race rooms"):
open a room, join, leave, invite, start, a racer's finish, the end, a rematch.

Each runs in one transaction with the race row locked (``select_for_update``),
so two joins cannot pass the capacity, a join cannot slip past the start, and
the end happens once. The room's sockets are told after commit
(``races.realtime``)."""

from __future__ import annotations

import datetime as dt
import secrets

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from games.dailies import daily_deals_open, deal_get, utc_today
from games.engine import (
    MAX_KEY,
    VARIANTS,
    Game,
    GameCode,
    MalformedError,
    encode_key,
    game_class,
    new_game,
    parse_variant,
)
from games.models import Attempt, DailyDeal, Deal
from games.practice import practice_deal_draw
from games.services import attempt_resign
from kit.commits import after_commit
from kit.errors import Conflict, Forbidden, Invalid, NotFound

from . import realtime
from .models import Race, RaceInvite, Racer
from .selectors import RATED_MIN, race_rated_standings, racer_progress, standings
from .signals import race_finished

COUNTDOWN = dt.timedelta(seconds=5)
"""From the host's start to the racers' clocks: every racer gets the deal at
once and the same few seconds to see it before the first move counts."""

QUICK_COUNTDOWN = dt.timedelta(seconds=10)
"""A quick race's countdown (``race_quick``): its racers learn of the race on
their queue's next answer (``leaderboard.quick``, a poll every 1.5 s) and load
the board, so they get longer than a room's racers, who wait in it."""

MIN_CAPACITY, MAX_CAPACITY = 2, 50

_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o, 1/l: read aloud, typed in


def _new_slug() -> str:
    """10 random characters of a 32-letter alphabet: 50 bits, unguessable."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(10))


def _refuse_running_daily(deal: Deal) -> None:
    """A deal a daily not yet over deals (the same cards) is never raced: its
    day's ranked attempts stay untouched (issue 29)."""
    if daily_deals_open(deal=deal):
        raise Conflict(
            "day_running", "That deal is a daily deal whose day is still running: race it after."
        )


def _secret_deal(variant: str) -> Deal:
    """A deal of ``variant`` from a fresh secret long key (RULES.md C2b): 128 bits
    from ``secrets``, known to the server alone, for a race on a game that hides
    cards (PRODUCT.md, anti-cheat). A numbered deal is one of a million public
    ones — ``python -m games.engine deal CODE`` prints every hidden card, and its
    face-up cards index it — so the race names its key to nobody until it ends
    (``games.selectors.sealed_secret``). Not proven winnable: a proof takes
    seconds, and the solver wins about 97 % of Easy Harp deals (docs/benchmarks.md)."""
    key = secrets.randbelow(MAX_KEY) + 1  # 1 … 2^128 - 1: every key C2b allows
    return deal_get(code=GameCode.parse(f"{variant}-{encode_key(key)}"))


def _refuse_past_daily(game: type[Game]) -> None:
    """A game that hides cards (``Game.hides_cards``: Easy Harp) is never raced
    on a past daily (409 ``secret_deal``): the day's page names its code once the
    day ends, so a racer who matches the face-up cards against the days revealed
    prints every hidden card with ``python -m games.engine deal CODE`` — and races
    feed the rating. Its races are dealt a fresh secret key (``_secret_deal``)."""
    if game.hides_cards:
        raise Conflict(
            "secret_deal",
            f"{game.title} hides cards: its races are dealt a fresh secret deal, and a"
            " past day's deal is public (its day's page names its code) — open one by"
            " its game, not by a past daily.",
            field="daily",
        )


def _variant(text: str) -> str:
    try:
        return parse_variant(text).id
    except MalformedError as exc:
        raise Invalid(exc.code, exc.message, field="variant") from None


def _locked(slug: str) -> Race:
    race = Race.objects.select_for_update().filter(slug=slug).first()
    if race is None:
        raise NotFound("not_found", f"No race {slug[:16]!r}.")
    return race


def _changed(race: Race) -> None:
    """Inside the transaction: one more room change; the room's sockets get the
    race after commit."""
    race.version += 1
    Race.objects.filter(pk=race.pk).update(version=race.version)
    slug = race.slug
    after_commit(lambda: realtime.race_changed(slug))


def race_create(
    *,
    host: User,
    code: str | None = None,
    random: str | None = None,
    daily: dt.date | None = None,
    variant: str | None = None,
    capacity: int = MAX_CAPACITY,
    quick: bool = False,
) -> Race:
    """Open a room on a deal by ``code``, a random proven deal of ``random`` (a
    variant), or the deal of a past ``daily`` in ``variant``; the host is its
    first racer. Never a deal some daily not yet over deals (409 ``day_running``).
    A game that hides cards (``Game.hides_cards``: Easy Harp) is raced on a
    fresh secret key (``_secret_deal``), drawn for ``random``; a code of such a
    game is refused (409 ``secret_deal``: whoever chose it could know every
    hidden card), and so is a daily of it (``_refuse_past_daily``: a past day's
    deal is public)."""
    if not MIN_CAPACITY <= capacity <= MAX_CAPACITY:
        raise Invalid(
            "invalid",
            f"capacity: from {MIN_CAPACITY} to {MAX_CAPACITY} racers.",
            field="capacity",
        )
    past: DailyDeal | None = None
    if daily is not None:
        variant = _variant(variant or "")
        _refuse_past_daily(VARIANTS[variant][0].engine)  # the game's declaration
        if daily >= utc_today():
            if daily > utc_today():
                raise NotFound("no_daily", f"The daily deals of {daily} are not published yet.")
            raise Conflict("day_running", "Today's daily deal is raced once its day is over.")
        past = DailyDeal.objects.select_related("deal").filter(date=daily, variant=variant).first()
        if past is None:
            raise NotFound("no_daily", f"There was no {variant} daily deal on {daily}.")
        deal = past.deal
    elif random is not None:
        variant = _variant(random)
        if VARIANTS[variant][0].engine.hides_cards:  # the game's declaration
            deal = _secret_deal(variant)
        else:
            deal = practice_deal_draw(variant=variant).deal
    else:
        try:
            parsed = GameCode.parse(code or "")
        except MalformedError as exc:
            raise Invalid(exc.code, exc.message, field="code") from None
        game = game_class(parsed)
        if game.hides_cards:
            raise Conflict(
                "secret_deal",
                f"{game.title} hides cards: its races are dealt a fresh secret deal, named"
                " when the race ends — open one by its game, not by a code.",
                field="code",
            )
        deal = deal_get(code=parsed)
    _refuse_running_daily(deal)
    with transaction.atomic():
        for _ in range(5):
            try:
                with transaction.atomic():
                    race = Race.objects.create(
                        slug=_new_slug(),
                        host=host,
                        variant=deal.variant,
                        deal=deal,
                        daily=past,
                        capacity=capacity,
                        quick=quick,
                    )
                    break
            except IntegrityError:  # 2^-50: another room has that id
                continue
        else:  # pragma: no cover
            raise Conflict("busy", "No room id was free: try again.")
        Racer.objects.create(race=race, player=host)
    return race


def race_join(*, slug: str, player: User) -> Race:
    """Join an open room with room for one more (anyone with its link). Joining
    again is no error; after the start the room is closed (409)."""
    with transaction.atomic():
        race = _locked(slug)
        if Racer.objects.filter(race=race, player=player).exists():
            return race
        if race.status != Race.Status.OPEN:
            raise Conflict("closed_room", "This race has started: nobody joins any more.")
        if Racer.objects.filter(race=race).count() >= race.capacity:
            raise Conflict("full", f"This race is full ({race.capacity} racers).")
        Racer.objects.create(race=race, player=player)
        _changed(race)
    return race


def race_leave(*, slug: str, player: User) -> Race:
    """Leave the room. Before the start the racer is gone (a host who leaves hands
    the room to the racer who joined first after them; the last one out closes
    it). After the start the racer is marked ``left``, their game resigned, and
    kept in the standings."""
    with transaction.atomic():
        race = _locked(slug)
        racer = Racer.objects.filter(race=race, player=player).first()
        if racer is None:
            raise Conflict("not_racing", "You are not in this race.")
        if race.status == Race.Status.OPEN:
            racer.delete()
            if race.host_id == player.pk:
                heir = Racer.objects.filter(race=race).order_by("joined_at", "pk").first()
                if heir is None:
                    race.status, race.finished_at = Race.Status.FINISHED, timezone.now()
                    Race.objects.filter(pk=race.pk).update(
                        status=race.status, finished_at=race.finished_at
                    )
                else:
                    race.host_id = heir.player_id
                    Race.objects.filter(pk=race.pk).update(host_id=heir.player_id)
            _changed(race)
            return race
        if race.status == Race.Status.FINISHED or racer.status != Racer.Status.RACING:
            raise Conflict("finished", "Your race is over already.")
        _racer_done(race, racer, Racer.Status.LEFT)
        if racer.attempt_id is not None:
            attempt = Attempt.objects.filter(pk=racer.attempt_id, status="playing").first()
            if attempt is not None:
                attempt_resign(attempt_id=attempt.pk, player=player)
        _changed(race)
        _end_if_done(race)
    return race


def race_invite(*, slug: str, host: User, username: str) -> RaceInvite:
    """The host invites a player by name to an open room (they find it in
    ``GET /api/races/?invited=1``); inviting twice is no error."""
    with transaction.atomic():
        race = _locked(slug)
        if race.host_id != host.pk:
            raise Forbidden("not_host", "Only the race's host invites.")
        if race.status != Race.Status.OPEN:
            raise Conflict("closed_room", "This race has started: nobody joins any more.")
        invitee = User.objects.filter(username__iexact=username, is_guest=False).first()
        if invitee is None:
            raise NotFound("no_player", f"No player {username[:150]!r}.")
        invite, _ = RaceInvite.objects.get_or_create(race=race, player=invitee)
    return invite


def race_start(*, slug: str, host: User, countdown: dt.timedelta | None = None) -> Race:
    """The host starts an open room of at least two racers: each racer gets a new
    practice attempt on the deal, sealed, every one with ``started_at`` the same
    server instant ``starts_at`` (``COUNTDOWN`` ahead). A room on a past daily of
    a game that hides cards, opened before such rooms were refused, never starts
    (409 ``secret_deal``)."""
    with transaction.atomic():
        race = _locked(slug)
        if race.host_id != host.pk:
            raise Forbidden("not_host", "Only the race's host starts it.")
        if race.status != Race.Status.OPEN:
            raise Conflict("not_open", f"This race is {race.status} already.")
        if race.daily_id is not None:  # a room opened before issue 36 closed it
            _refuse_past_daily(game_class(race.deal.code))
        racers = list(Racer.objects.filter(race=race).select_related("player"))
        if len(racers) < MIN_CAPACITY:
            raise Conflict("too_few", "A race needs at least two racers.")
        now = timezone.now()
        race.status = Race.Status.RUNNING
        race.starts_at = now + (COUNTDOWN if countdown is None else countdown)
        race.ends_at = race.starts_at + dt.timedelta(minutes=settings.RACE_MINUTES)
        state = new_game(race.deal.code).to_json()
        for racer in racers:
            racer.attempt = Attempt.objects.create(
                player=racer.player,
                deal=race.deal,
                daily=None,
                ranked=False,
                state=state,
                started_at=race.starts_at,
                sealed=True,
            )
            racer.status = Racer.Status.RACING
            racer.save(update_fields=["attempt", "status"])
        Race.objects.filter(pk=race.pk).update(
            status=race.status, starts_at=race.starts_at, ends_at=race.ends_at
        )
        _changed(race)
        starts = race.starts_at
        after_commit(lambda: realtime.race_started(slug, starts))
    return race


def race_quick(*, players: list[User], variant: str) -> Race:
    """A quick race (``leaderboard.quick``): a room of ``players`` (the first its
    host) on a random proven deal of ``variant`` — a fresh secret one for a game
    that hides cards, as ``race_create`` deals — started at once with
    ``QUICK_COUNTDOWN``. Inside the caller's transaction, or its own."""
    if not MIN_CAPACITY <= len(players) <= MAX_CAPACITY:
        raise Invalid("invalid", f"A race has {MIN_CAPACITY} to {MAX_CAPACITY} racers.")
    host = players[0]
    with transaction.atomic():
        race = race_create(host=host, random=variant, capacity=len(players), quick=True)
        Racer.objects.bulk_create([Racer(race=race, player=p) for p in players[1:]])
        return race_start(slug=race.slug, host=host, countdown=QUICK_COUNTDOWN)


def _racer_done(
    race: Race,
    racer: Racer,
    status: str,
    attempt: Attempt | None = None,
    *,
    at: dt.datetime | None = None,
) -> None:
    """Inside the race's transaction: ``racer`` finished as ``status`` — at the
    race's end instant ``at`` when the end stopped them (every racer stopped so
    has the same time: equal cards home are an equal place), else now."""
    attempt = attempt or (
        Attempt.objects.filter(pk=racer.attempt_id).first() if racer.attempt_id else None
    )
    racer.status = status
    racer.finished_at = at or timezone.now()
    if attempt is not None:
        racer.elapsed_ms = (
            attempt.ms_since_start(at)
            if at is not None
            else attempt.elapsed_ms or attempt.ms_since_start(racer.finished_at)
        )
        racer.progress = racer_progress(attempt)
    racer.save(update_fields=["status", "finished_at", "elapsed_ms", "progress"])


def racer_finished(*, attempt_id: int) -> None:
    """A race's attempt was won, resigned or closed (after its commit,
    ``races.progress``): its racer finishes so, and the race ends when nobody is
    still racing. Safe to run twice."""
    with transaction.atomic():
        racer = Racer.objects.filter(attempt_id=attempt_id).select_related("race").first()
        if racer is None:
            return
        race = _locked(racer.race.slug)
        racer.refresh_from_db()
        if race.status != Race.Status.RUNNING or racer.status != Racer.Status.RACING:
            return
        attempt = Attempt.objects.get(pk=attempt_id)
        if not attempt.finished:
            return
        won = attempt.status == Attempt.Status.WON
        _racer_done(race, racer, Racer.Status.WON if won else Racer.Status.RESIGNED, attempt)
        _changed(race)
        _end_if_done(race)


def _end_if_done(race: Race) -> None:
    if not Racer.objects.filter(race=race, status=Racer.Status.RACING).exists():
        _end(race)


def race_end(*, slug: str, now: dt.datetime | None = None) -> bool:
    """End a running race whose time is up (``ends_at``) or whose racers have all
    finished: those still racing are resigned. Returns whether it ended now.
    Safe to run twice."""
    now = now or timezone.now()
    with transaction.atomic():
        race = _locked(slug)
        if race.status != Race.Status.RUNNING:
            return False
        racing = Racer.objects.filter(race=race, status=Racer.Status.RACING)
        if race.ends_at is not None and race.ends_at > now and racing.exists():
            return False
        _end(race)
    return True


def _end(race: Race) -> None:
    """Inside the race's transaction: resign who is still racing, place everyone,
    unseal every racer's game, and announce the end (after commit)."""
    now = timezone.now()
    for racer in Racer.objects.filter(race=race, status=Racer.Status.RACING).select_related(
        "player"
    ):
        attempt = Attempt.objects.filter(pk=racer.attempt_id).first()
        if attempt is not None and not attempt.finished:
            attempt_resign(attempt_id=attempt.pk, player=racer.player)
            attempt.refresh_from_db()
        won = attempt is not None and attempt.status == Attempt.Status.WON
        if won:  # its win committed before the end reached it: the win's own time
            _racer_done(race, racer, Racer.Status.WON, attempt)
        else:
            _racer_done(race, racer, Racer.Status.RESIGNED, attempt, at=now)
    racers = list(Racer.objects.filter(race=race))
    places = standings(racers)
    for racer in racers:
        racer.place = places[racer.pk]
        racer.save(update_fields=["place"])
    Attempt.objects.filter(racer__race=race).update(sealed=False)
    race.status, race.finished_at = Race.Status.FINISHED, now
    Race.objects.filter(pk=race.pk).update(status=race.status, finished_at=now)
    _changed(race)
    # Rated: the racers who made a move (``race_rated_standings``); the
    # leaderboard's sweep reads the same standings for an end whose
    # announcement was lost.
    result = race_rated_standings(race_id=race.pk)
    if len(result) >= RATED_MIN:
        race_id, variant = race.pk, race.variant
        after_commit(
            lambda: race_finished.send(
                sender=Race, race_id=race_id, standings=result, variant=variant
            )
        )


def races_end_due(*, now: dt.datetime | None = None) -> int:
    """End every running race past its ``ends_at`` (the beat job, every minute).
    Returns how many ended."""
    now = now or timezone.now()
    due = Race.objects.filter(status=Race.Status.RUNNING, ends_at__lte=now)
    return sum(race_end(slug=slug, now=now) for slug in due.values_list("slug", flat=True))


def race_rematch(*, slug: str, host: User) -> Race:
    """After the end, the host opens a new room: same variant, a new random
    proven deal, the racers of this one invited. Asked twice, the same room."""
    with transaction.atomic():
        race = _locked(slug)
        if race.host_id != host.pk:
            raise Forbidden("not_host", "Only the race's host asks for a rematch.")
        if race.status != Race.Status.FINISHED:
            raise Conflict("not_finished", "A rematch comes once the race is over.")
        if race.rematch_id is not None:
            return Race.objects.get(pk=race.rematch_id)
        new = race_create(host=host, random=race.variant, capacity=race.capacity)
        others = Racer.objects.filter(race=race).exclude(player=host).values_list("player_id")
        RaceInvite.objects.bulk_create(
            [RaceInvite(race=new, player_id=player_id) for (player_id,) in others]
        )
        race.rematch = new
        Race.objects.filter(pk=race.pk).update(rematch=new)
        _changed(race)
    return new
