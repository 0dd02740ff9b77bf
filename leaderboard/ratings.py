"""The race rating (issue 29): every race rated as one Glicko-2 rating period
(``glicko2.py``), announced by the race services (``races.signals.race_finished``,
after commit of the race's end; ``leaderboard/tasks.py`` rates it as a job, and
its sweep rates a race whose announcement was lost) and read on player pages and
``/api/races/{race}/ratings/``.

A race of n racers is n(n-1)/2 games, one for each pair: the better place wins
(1), an equal place draws (0.5). Each of a racer's n-1 games weighs 1/(n-1), so a
race counts as one game's worth spread over its field (docs/api.md, "Race
rating", says why). Every racer is rated from the ratings *before* the race, all
in one transaction; a race is rated once (a change per race and player is
unique), so a second announcement changes nothing.

Guests are left out of the standings before rating (they have no page to show
a rating on, and a guest is free to make: a rating won against guests would be
a rating anyone can farm); the others' places keep their order.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Collection, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from kit.errors import Invalid, NotFound
from races.models import Race
from races.selectors import race_rated_standings, races_rateable

from . import glicko2
from .models import RaceRating, RaceRatingChange

log = logging.getLogger(__name__)

PROVISIONAL_DEVIATION = 110.0
"""A rating whose deviation is at least this is provisional, shown with a "?"
(lichess's threshold)."""
PERIODS_PER_DAY = 0.21436
"""Rating periods a day of no race counts for the deviation's growth (Glicko-2's
step 6 for an absent player): lichess's figure, so a deviation of 60 is back to
110 after a year without a race."""
HISTORY = 10
"""The rated races a player's record lists, newest first."""


def _grown(row: RaceRating, *, now: dt.datetime) -> glicko2.Rating:
    """``row`` as it stands at ``now``: its deviation grown for the days since its
    last rated race (none for a player never rated)."""
    rating = glicko2.Rating(row.rating, row.deviation, row.volatility)
    if row.races == 0:
        return rating
    days = max(0.0, (now - row.updated_at).total_seconds() / 86_400)
    return glicko2.absent(rating, days * PERIODS_PER_DAY)


def _standings(standings: Sequence[Any]) -> list[tuple[int, int]]:
    """The announced standings, checked: (player id, place) pairs, each player once,
    places whole numbers from 1."""
    pairs: list[tuple[int, int]] = []
    seen: set[int] = set()
    for item in standings:
        try:
            player, place = item
        except (TypeError, ValueError):
            raise Invalid(
                "bad_standings", f"A standing is (player, place), not {item!r}."
            ) from None
        if type(player) is not int or type(place) is not int or place < 1 or player in seen:
            raise Invalid("bad_standings", f"Bad standing {item!r}: each player once, place ≥ 1.")
        seen.add(player)
        pairs.append((player, place))
    return pairs


def race_rate(
    *, race_id: int, standings: Sequence[Any], variant: str, now: dt.datetime | None = None
) -> list[RaceRatingChange]:
    """Rate a finished race: every (non-guest) racer's new rating, from the ratings
    before it, and a change row each. Returns the changes made: none if the race
    was rated before or fewer than 2 of its racers can be rated."""
    pairs = _standings(standings)
    now = now or timezone.now()
    with transaction.atomic():
        rated = set(
            User.objects.filter(pk__in=[p for p, _ in pairs], is_guest=False).values_list(
                "pk", flat=True
            )
        )
        pairs = [(p, place) for p, place in pairs if p in rated]
        if len(pairs) < 2:
            return []
        players = sorted(p for p, _ in pairs)
        RaceRating.objects.bulk_create(
            [RaceRating(player_id=p, updated_at=now) for p in players], ignore_conflicts=True
        )
        # Locked in one order (the players' ids): two races of the same racers
        # ending at once are rated one after the other, the second from the first's
        # results; an announcement sent twice finds the first's changes below.
        rows = {
            r.player_id: r
            for r in RaceRating.objects.select_for_update()
            .filter(player_id__in=players)
            .order_by("player_id")
        }
        if RaceRatingChange.objects.filter(race_id=race_id).exists():
            return []
        before = {p: _grown(rows[p], now=now) for p in players}
        after = glicko2.rate_race(pairs, before)
        places = dict(pairs)
        changes = []
        for p in players:
            row, old, new = rows[p], before[p], after[p]
            row.rating, row.deviation, row.volatility = new.rating, new.deviation, new.volatility
            row.races += 1
            row.updated_at = now
            changes.append(
                RaceRatingChange(
                    race_id=race_id,
                    player_id=p,
                    variant=variant,
                    place=places[p],
                    racers=len(pairs),
                    before=old.rating,
                    after=new.rating,
                    deviation_before=old.deviation,
                    deviation_after=new.deviation,
                    created_at=now,
                )
            )
        RaceRating.objects.bulk_update(
            rows.values(), ["rating", "deviation", "volatility", "races", "updated_at"]
        )
        return RaceRatingChange.objects.bulk_create(changes)


def races_unrated(*, since: dt.datetime) -> list[tuple[int, list[tuple[int, int]], str]]:
    """The races finished since ``since``, with at least two racers who moved, that
    no change rates yet (an announcement lost, a rating that failed past its
    retries): (race id, standings as the end announced them, variant) each, oldest
    end first. A race of fewer than two players who can be rated (guests) stays
    here until it is older than ``since``: rating it changes nothing."""
    races = (
        races_rateable(since=since)
        .exclude(pk__in=RaceRatingChange.objects.values("race_id"))
        .order_by("finished_at", "pk")
        .values_list("pk", "variant")
    )
    return [(race_id, race_rated_standings(race_id=race_id), variant) for race_id, variant in races]


# --- reads ------------------------------------------------------------------------


def race_refs(race_ids: Collection[int]) -> dict[int, str]:
    """The races' public ids (as their links name them) by pk; a race no longer
    kept is left out."""
    return dict(Race.objects.filter(pk__in=race_ids).values_list("pk", "slug"))


def race_id_of(ref: str) -> int | None:
    """The pk of the race a public id names, or None (the inverse of ``race_refs``)."""
    if not re.fullmatch(r"[a-z0-9]{1,16}", ref):  # races.urls' ids; never a NUL to PostgreSQL
        return None
    return Race.objects.filter(slug=ref).values_list("pk", flat=True).first()


def _provisional(deviation: float) -> bool:
    return deviation >= PROVISIONAL_DEVIATION


def race_rating_of(*, user: User, now: dt.datetime | None = None) -> dict[str, Any] | None:
    """A player's race rating for their record, or None before their first rated
    race: the rating, its deviation as it stands now (grown since the last race),
    the races rated, whether it is provisional, and the last races' changes."""
    row = RaceRating.objects.filter(player=user).first()
    if row is None or row.races == 0:
        return None
    now = now or timezone.now()
    rating = _grown(row, now=now)
    history = list(
        RaceRatingChange.objects.filter(player=user).order_by("-created_at", "-pk")[:HISTORY]
    )
    refs = race_refs({change.race_id for change in history})
    return {
        "rating": round(rating.rating),
        "deviation": round(rating.deviation),
        "races": row.races,
        "provisional": _provisional(rating.deviation),
        "history": [
            {
                "race": refs.get(change.race_id),  # None: a race no longer kept
                "variant": change.variant,
                "place": change.place,
                "racers": change.racers,
                "before": round(change.before),
                "after": round(change.after),
                "delta": round(change.after) - round(change.before),
                "at": change.created_at.isoformat(),
            }
            for change in history
        ],
    }


def race_rating_changes(*, race: str) -> dict[str, Any]:
    """What a race did to its racers' ratings, best place first (empty until it
    is rated)."""
    race_id = race_id_of(race)
    if race_id is None:
        raise NotFound("not_found", f"No race {race!r}.")
    changes = (
        RaceRatingChange.objects.filter(race_id=race_id)
        .select_related("player")
        .order_by("place", "player__username")
    )
    return {
        "race": race,
        "rated": bool(changes),
        "changes": [
            {
                "player": change.player.get_username(),
                "place": change.place,
                "before": round(change.before),
                "after": round(change.after),
                "delta": round(change.after) - round(change.before),
                "deviation": round(change.deviation_after),
                "provisional": _provisional(change.deviation_after),
            }
            for change in changes
        ],
    }


def rating_export(*, user: User) -> dict[str, Any]:
    """The race rating's section of a player's export (issue 28): the rating as
    stored and every change a race made to it."""
    row = RaceRating.objects.filter(player=user).first()
    changes = RaceRatingChange.objects.filter(player=user).order_by("created_at", "pk")
    refs = race_refs({change.race_id for change in changes})
    return {
        "race_rating": None
        if row is None
        else {
            "rating": row.rating,
            "deviation": row.deviation,
            "volatility": row.volatility,
            "races": row.races,
            "updated_at": row.updated_at.isoformat(),
            "changes": [
                {
                    "race": refs.get(change.race_id),
                    "variant": change.variant,
                    "place": change.place,
                    "racers": change.racers,
                    "before": change.before,
                    "after": change.after,
                    "deviation_before": change.deviation_before,
                    "deviation_after": change.deviation_after,
                    "at": change.created_at.isoformat(),
                }
                for change in changes
            ],
        }
    }
