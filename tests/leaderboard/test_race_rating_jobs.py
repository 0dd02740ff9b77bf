"""The race rating is durable (issue 29): a race's end queues its rating as a job
(``leaderboard.tasks.rate_race``) that runs again when the database does not
answer in time, and the beat job ``rate_unrated_races`` rates a finished race
whose announcement was lost — once, however often it runs. Races are played
through the race rooms' API (tests/races/test_api.py's helpers); tasks run in
process (``CELERY_EAGER``), a retry at once."""

from __future__ import annotations

import datetime as dt
import logging
import threading
from typing import Any

import pytest
from django.utils import timezone

from config.celery import app as celery_app
from leaderboard.models import RaceRating, RaceRatingChange
from leaderboard.tasks import _rate_finished, rate_unrated_races
from races import services
from races.models import Race
from races.signals import race_finished
from tests.support.api import act, requires_postgres
from tests.support.locks import hold_table, lock_timeout
from tests.support.races import WIN_CODE, create, get, post, win_line

pytestmark = [requires_postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def no_countdown(monkeypatch):
    monkeypatch.setattr(services, "COUNTDOWN", dt.timedelta(0))


def race_to_the_end(
    make_player: Any, *, movers: int, idle: int = 0, before_the_end: Any = None
) -> str:
    """A race on ``WIN_CODE`` played to its end: ``movers`` racers move (the host
    wins it, the others make one move and resign), ``idle`` ones leave without a
    move. ``before_the_end`` runs before the host's last move, which ends it.
    Returns the race's id."""
    racers = [make_player() for _ in range(movers + idle)]
    host, others = racers[0], racers[1:]
    slug = create(host, {"code": WIN_CODE})["id"]
    for racer in others:
        post(racer, slug, "join")
    post(host, slug, "start")
    attempt = {racer.username: get(racer, slug)["you"]["attempt"] for racer in racers}
    line = win_line()
    for racer in others[: movers - 1]:
        assert act(racer, attempt[racer.username], 0, line[0].to_json()).status_code == 200
        post(racer, slug, "leave")
    for racer in others[movers - 1 :]:
        post(racer, slug, "leave")
    for seq, move in enumerate(line):
        if seq == len(line) - 1 and before_the_end is not None:
            before_the_end()
        response = act(host, attempt[host.username], seq, move.to_json())
        assert response.status_code == 200, response.content
    assert get(host, slug)["status"] == "finished"
    return slug


def rated(slug: str) -> list[tuple[int, int, float, float]]:
    """The race's changes: (player id, place, before, after), best place first."""
    race_id = Race.objects.get(slug=slug).pk
    return list(
        RaceRatingChange.objects.filter(race_id=race_id)
        .order_by("place", "player_id")
        .values_list("player_id", "place", "before", "after")
    )


def ratings() -> list[tuple[Any, ...]]:
    return list(
        RaceRating.objects.order_by("player_id").values_list(
            "player_id", "rating", "deviation", "volatility", "races", "updated_at"
        )
    )


class lost_announcements:
    """Races ending inside this block are announced to nobody (a process gone
    between the end's commit and the queue; a broker that lost the message)."""

    def __enter__(self) -> None:
        assert race_finished.disconnect(dispatch_uid="leaderboard.tasks.rate_finished")

    def __exit__(self, *exc: object) -> None:
        race_finished.connect(_rate_finished, dispatch_uid="leaderboard.tasks.rate_finished")


def race_ended_with_its_ratings_locked(make_player: Any) -> str:
    """A race of two movers whose end meets the rating table held locked for 4.5 s
    from another connection (past ``DB_LOCK_TIMEOUT``): the rating's first run
    fails. Returns the race's id."""
    locked = threading.Event()
    holder = threading.Thread(target=hold_table, args=(RaceRating._meta.db_table, 4.5, locked))

    def hold() -> None:
        holder.start()
        assert locked.wait(10)

    try:
        return race_to_the_end(make_player, movers=2, before_the_end=hold)
    finally:
        if holder.is_alive():
            holder.join()


def test_a_rating_that_meets_a_held_lock_runs_again_and_the_race_is_rated(
    make_player, caplog, monkeypatch
):
    """The end's request rates the race in process; a failed run is retried as a
    worker retries it (in process a task's error is raised into its caller
    unless propagation is off, as it is for a worker)."""
    monkeypatch.setitem(celery_app.conf, "task_eager_propagates", False)
    assert lock_timeout() == "3s"  # the bound the first run meets (DB_LOCK_TIMEOUT)
    caplog.set_level(logging.INFO, logger="celery")
    slug = race_ended_with_its_ratings_locked(make_player)
    retried = [r for r in caplog.records if "Retry" in r.getMessage()]
    assert retried, "the rating did not meet the lock: nothing was retried"
    changes = rated(slug)
    assert [place for _, place, _, _ in changes] == [1, 2]
    assert changes[0][3] > changes[0][2] and changes[1][3] < changes[1][2]
    assert [r[4] for r in ratings()] == [1, 1]  # rated once, not once per run


def test_a_race_whose_end_was_not_announced_is_rated_by_the_sweep_once(make_player):
    announced = race_to_the_end(make_player, movers=2)
    assert len(rated(announced)) == 2  # rated at its end: the sweep leaves it
    with lost_announcements():
        lost = race_to_the_end(make_player, movers=3)
        lone = race_to_the_end(make_player, movers=1, idle=1)
    assert rated(lost) == [] and rated(lone) == []
    before = {row[0]: row for row in ratings()}

    assert rate_unrated_races.apply().get() == 1
    changes = rated(lost)
    host = Race.objects.get(slug=lost).host_id
    assert [(player == host, place) for player, place, _, _ in changes] == [
        (True, 1),
        (False, 2),
        (False, 3),  # the two who moved once and left, by their time
    ]
    assert all(before_ == 1500 for _, _, before_, _ in changes)  # from the ratings before it
    assert rated(lone) == []  # one racer moved: nobody to be rated against
    assert all(player not in before for player, *_ in changes)  # new players, as the end would
    after = ratings()

    assert rate_unrated_races.apply().get() == 0  # the second run finds nothing
    assert ratings() == after and len(rated(lost)) == 3


def test_the_sweep_rates_what_the_end_would_have(make_player):
    """The sweep's standings are the end's: a race rated by the sweep and the same
    race rated at its end leave the same changes."""
    sent: list[tuple[int, list[tuple[int, int]], str]] = []

    def listen(sender: Any, *, race_id: int, standings: Any, variant: str, **kw: Any) -> None:
        sent.append((race_id, [tuple(s) for s in standings], variant))

    race_finished.connect(listen, dispatch_uid="tests.leaderboard.sent")
    try:
        with lost_announcements():
            slug = race_to_the_end(make_player, movers=3, idle=1)
    finally:
        race_finished.disconnect(dispatch_uid="tests.leaderboard.sent")
    ((race_id, standings, variant),) = sent
    assert rate_unrated_races.apply().get() == 1
    assert [(player, place) for player, place, _, _ in rated(slug)] == sorted(
        standings, key=lambda s: (s[1], s[0])
    )
    variants = RaceRatingChange.objects.filter(race_id=race_id).values_list("variant", flat=True)
    assert set(variants) == {variant}


def test_the_sweep_looks_back_a_week(make_player):
    with lost_announcements():
        slug = race_to_the_end(make_player, movers=2)
    Race.objects.filter(slug=slug).update(finished_at=timezone.now() - dt.timedelta(days=8))
    assert rate_unrated_races.apply().get() == 0
    assert rated(slug) == []
    Race.objects.filter(slug=slug).update(finished_at=timezone.now() - dt.timedelta(days=6))
    assert rate_unrated_races.apply().get() == 1
    assert len(rated(slug)) == 2


def test_a_rating_that_fails_in_process_is_said_so_and_left_to_the_sweep(make_player, caplog):
    """With tasks in process and their errors raised (the tests' and ``make run``'s
    setting), a rating that meets the held lock fails inside the end's request:
    the race still ends (the request is answered), the log says the job failed in
    process (not that a broker did not answer), and the sweep rates the race."""
    caplog.set_level(logging.WARNING, logger="kit.commits")
    slug = race_ended_with_its_ratings_locked(make_player)
    assert Race.objects.get(slug=slug).status == Race.Status.FINISHED
    said = [r.getMessage() for r in caplog.records if r.name == "kit.commits"]
    assert any("rate_race" in m and "failed in process" in m for m in said), said
    assert rated(slug) == []
    assert rate_unrated_races.apply().get() == 1
    assert len(rated(slug)) == 2
