"""The action log partitioned by month (issue 17; ``games/partitions.py``, docs/operations.md
"The action log"), on the real PostgreSQL: games played through the HTTP API
on both sides of a month boundary land in their start month's partition and
replay right; no ``seq`` is stored twice; the beat job makes the months ahead,
idempotently; a row for a month without a partition is still accepted and
later moved; old months are detached; the migration converts a populated
table and back (on SQLite too: there the log stays one plain table).

Time is the service's ``timezone.now`` (``tests.support.fairplay.Clock``), and an
attempt's start is set before its first action, as ``test_jobs.py`` does.
"""

from __future__ import annotations

import datetime as dt
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from games import partitions
from games.engine import replay
from games.models import Action, Attempt, log_month
from games.tasks import ensure_action_partitions, verify_attempt
from tests.support.api import act, assert_error, requires_postgres, start
from tests.support.fairplay import Clock
from tests.support.search import WINNABLE, winning_line

pytestmark = pytest.mark.django_db

THIS_MONTH = dt.datetime.now(dt.UTC).date().replace(day=1)
NEXT_MONTH = partitions.add_months(THIS_MONTH, 1)
BOUNDARY = dt.datetime.combine(NEXT_MONTH, dt.time(), tzinfo=dt.UTC)


def travel(clock: Clock, moment: dt.datetime, client: Any) -> None:
    """Move the clock to ``moment`` and sign ``client`` in again there (weeks
    ahead, the session signed in now would have expired)."""
    clock.now = moment
    response = client.send(
        "/api/auth/login/", {"username": client.username, "password": "correct horse battery"}
    )
    assert response.status_code == 200, response.content


def start_at(client: Any, moment: dt.datetime) -> dict[str, Any]:
    """A practice game of ``WINNABLE`` whose clock started at ``moment``."""
    game = start(client, code=WINNABLE)
    Attempt.objects.filter(pk=game["id"]).update(started_at=moment)
    return game


def play(client: Any, game: dict[str, Any], line: list[dict], clock: Clock, gap: float) -> dict:
    body = game
    for seq, action in enumerate(line, start=game["seq"]):
        clock.advance(gap)
        response = act(client, game["id"], seq, action)
        assert response.status_code == 200, (seq, response.content)
        body = response.json()
    return body


def homes(*attempt_ids: int) -> dict[int, set[str]]:
    """Which partition holds each attempt's rows."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attempt_id, tableoid::regclass::text FROM games_action"
            " WHERE attempt_id = ANY(%s)",
            [list(attempt_ids)],
        )
        found: dict[int, set[str]] = {i: set() for i in attempt_ids}
        for attempt_id, table in cursor.fetchall():
            found[attempt_id].add(table)
    return found


@requires_postgres
def test_games_across_a_month_boundary_stay_in_their_start_month_and_replay(player, monkeypatch):
    clock = Clock(monkeypatch)
    line = winning_line(WINNABLE)
    # Started 30 s before the month ends, 2 s between actions: it ends next month.
    travel(clock, BOUNDARY - dt.timedelta(seconds=30), player)
    before = start_at(player, clock.now)
    won = play(player, before, line, clock, gap=2)
    assert won["status"] == "won" and clock.now > BOUNDARY + dt.timedelta(seconds=60)
    # One started after the boundary, given up half-way.
    travel(clock, BOUNDARY + dt.timedelta(seconds=10), player)
    after = start_at(player, clock.now)
    play(player, after, line[: len(line) // 2], clock, gap=2)
    assert player.send(f"/api/games/{after['id']}/resign/").status_code == 200

    assert homes(before["id"], after["id"]) == {
        before["id"]: {partitions.partition_name(THIS_MONTH)},
        after["id"]: {partitions.partition_name(NEXT_MONTH)},
    }
    rows = list(Action.objects.filter(attempt_id=before["id"]).order_by("seq"))
    assert [r.seq for r in rows] == list(range(len(line)))
    assert {r.month for r in rows} == {THIS_MONTH}
    # The log's server times run on across the boundary, 2 s apart.
    assert [r.ms for r in rows] == [2_000 * (seq + 1) for seq in range(len(line))]
    started = Attempt.objects.get(pk=before["id"]).started_at
    assert started + dt.timedelta(milliseconds=rows[-1].ms) > BOUNDARY > started

    # Replays: the API's, the engine's on it, and the Celery check of each.
    for game, actions in ((before, line), (after, line[: len(line) // 2])):
        shown = player.get(f"/api/games/{game['id']}/replay/")
        assert shown.status_code == 200, shown.content
        body = shown.json()
        assert body["actions"] == [a.action for a in Action.objects.filter(attempt_id=game["id"])]
        assert len(body["actions"]) == len(body["log"]) == len(actions)
        final = replay(WINNABLE, body["actions"])
        assert (final.won, final.score, final.moves) == (
            body["won"],
            body["score"],
            body["moves"],
        )
        assert verify_attempt.delay(game["id"]).get() is True


@requires_postgres
def test_no_seq_is_stored_twice_on_either_side_of_the_boundary(player, monkeypatch):
    clock = Clock(monkeypatch)
    travel(clock, BOUNDARY - dt.timedelta(seconds=5), player)
    game = start_at(player, clock.now)
    attempt = Attempt.objects.get(pk=game["id"])
    line = winning_line(WINNABLE)
    play(player, game, line[:2], clock, gap=1)  # before the boundary
    clock.now = BOUNDARY + dt.timedelta(seconds=5)
    play(player, {**game, "seq": 2}, line[2:3], clock, gap=1)  # after it

    def insert(seq: int) -> None:
        """The row the service writes for ``seq``: its attempt's month, always."""
        Action.objects.create(
            attempt=attempt,
            seq=seq,
            month=log_month(attempt.started_at),
            sent={"type": "stock"},
            action={"type": "stock"},
            ms=1,
            score=0,
            moves=0,
        )

    for seq in (0, 2):  # one logged before the boundary, one after
        with pytest.raises(IntegrityError), transaction.atomic():
            insert(seq)
    # Through the API: a different action with a used seq is a conflict, on
    # either side, and a resend is not applied twice.
    assert_error(act(player, game["id"], 0, {"type": "undo"}), 409, "seq_conflict")
    again = act(player, game["id"], 2, line[2])
    assert again.status_code == 200 and again.json()["duplicate"] is True
    assert list(
        Action.objects.filter(attempt_id=game["id"]).order_by("seq").values_list("seq", flat=True)
    ) == [0, 1, 2]


@requires_postgres
def test_the_beat_job_makes_the_months_ahead_and_is_idempotent():
    ahead = [partitions.add_months(THIS_MONTH, n) for n in range(partitions.AHEAD + 1)]
    # The migration made them; the job finds nothing to do.
    assert set(ahead) <= set(partitions.months(connection))
    assert ensure_action_partitions.delay().get() == []
    # Every migrate makes them too (compose's web start, the Kubernetes job).
    last = partitions.partition_name(ahead[-1])
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE games_action DETACH PARTITION {last}")
        cursor.execute(f"DROP TABLE {last}")
    call_command("migrate", verbosity=0)
    assert ahead[-1] in partitions.months(connection)
    # Two months on, the job adds the two months now due, once.
    later = partitions.add_months(THIS_MONTH, 2)
    due = [partitions.add_months(THIS_MONTH, partitions.AHEAD + n) for n in (1, 2)]
    assert partitions.ensure(connection, today=later) == [partitions.partition_name(m) for m in due]
    assert partitions.ensure(connection, today=later) == []
    assert set(ahead + due) <= set(partitions.months(connection))
    out = call_command_output("ensure_partitions")
    assert "created: none" in out and partitions.partition_name(due[-1]) in out


def call_command_output(*args: str, **options: Any) -> str:
    out = StringIO()
    call_command(*args, stdout=out, **options)
    return out.getvalue()


@requires_postgres
def test_a_month_without_a_partition_is_accepted_then_moved_to_its_own(player):
    """Beat down for months: the row goes to DEFAULT (never a 500), and the job
    gives that month a partition, moving the row."""
    old = partitions.add_months(THIS_MONTH, -6)
    assert old not in partitions.months(connection)
    game = start_at(player, dt.datetime.combine(old, dt.time(12), tzinfo=dt.UTC))
    line = winning_line(WINNABLE)
    assert act(player, game["id"], 0, line[0]).status_code == 200
    assert homes(game["id"]) == {game["id"]: {partitions.DEFAULT}}

    assert partitions.ensure(connection) == [partitions.partition_name(old)]
    assert homes(game["id"]) == {game["id"]: {partitions.partition_name(old)}}
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {partitions.DEFAULT}")
        assert cursor.fetchone() == (0,)
    assert act(player, game["id"], 1, line[1]).status_code == 200
    assert homes(game["id"]) == {game["id"]: {partitions.partition_name(old)}}
    assert player.send(f"/api/games/{game['id']}/resign/").status_code == 200
    assert verify_attempt.delay(game["id"]).get() is True


@requires_postgres
def test_old_months_are_detached_and_their_replays_say_archived(player):
    old = partitions.add_months(THIS_MONTH, -4)
    partitions.ensure(connection, today=old)
    game = start_at(player, dt.datetime.combine(old, dt.time(9), tzinfo=dt.UTC))
    assert act(player, game["id"], 0, winning_line(WINNABLE)[0]).status_code == 200
    assert player.send(f"/api/games/{game['id']}/resign/").status_code == 200
    assert player.get(f"/api/games/{game['id']}/replay/").status_code == 200

    with pytest.raises(CommandError, match="YYYY-MM"):
        call_command("detach_partitions", before="2026-13")
    with pytest.raises(CommandError, match="keep at least last month"):
        call_command("detach_partitions", before=str(THIS_MONTH)[:7])
    cut = partitions.add_months(old, 1)
    out = call_command_output("detach_partitions", before=str(cut)[:7])
    name = partitions.partition_name(old)
    assert f"detached {name}" in out
    assert all(m >= cut for m in partitions.months(connection))
    with connection.cursor() as cursor:  # a plain table now, rows and all, to dump
        cursor.execute(f"SELECT count(*) FROM {name} WHERE attempt_id = %s", [game["id"]])
        assert cursor.fetchone() == (1,)
    assert_error(player.get(f"/api/games/{game['id']}/replay/"), 410, "archived")
    # A month that is still attached goes with --drop, table and all.
    older = partitions.add_months(THIS_MONTH, -3)
    partitions.ensure(connection, today=older)
    out = call_command_output("detach_partitions", before=str(cut)[:7])
    assert "nothing older" in out
    out = call_command_output(
        "detach_partitions", before=str(partitions.add_months(older, 1))[:7], drop=True
    )
    assert f"dropped {partitions.partition_name(older)}" in out
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s)", [partitions.partition_name(older)])
        assert cursor.fetchone() == (None,)


def logged() -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attempt_id, seq, action, ms, score, moves FROM games_action"
            " ORDER BY attempt_id, seq"
        )
        return cursor.fetchall()


@pytest.mark.django_db(transaction=True)
def test_the_migration_converts_a_populated_log_and_back(player):
    """Backwards to the plain table of 0005 and forwards again, with rows of this
    month and of one (three months back) that has no partition yet."""
    line = winning_line(WINNABLE)
    now = start(player, code=WINNABLE)
    for seq, action in enumerate(line[:5]):
        assert act(player, now["id"], seq, action).status_code == 200
    earlier = partitions.add_months(THIS_MONTH, -3)
    old = start_at(player, dt.datetime.combine(earlier, dt.time(23, 59), tzinfo=dt.UTC))
    for seq, action in enumerate(line[:3]):
        assert act(player, old["id"], seq, action).status_code == 200
    rows = logged()
    assert len(rows) == 8
    # Forwards to the latest migrations, whichever they are (0006 and those after
    # it, and every other app's that going back to 0005 undid: races stand on games).
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        MigrationExecutor(connection).migrate([("games", "0005_fair_play_review")])
        assert logged() == rows
        with connection.cursor() as cursor:  # ids follow (attempt, seq) again
            cursor.execute("SELECT attempt_id, seq FROM games_action ORDER BY id")
            assert cursor.fetchall() == [r[:2] for r in rows]
    finally:
        MigrationExecutor(connection).migrate(latest)
    assert logged() == rows
    assert [a.month for a in Action.objects.filter(attempt_id=old["id"])] == [earlier] * 3
    if connection.vendor == "postgresql":
        assert earlier in partitions.months(connection)
        assert homes(now["id"], old["id"]) == {
            now["id"]: {partitions.partition_name(THIS_MONTH)},
            old["id"]: {partitions.partition_name(earlier)},
        }
    # The log goes on from where it was.
    assert act(player, now["id"], 5, line[5]).status_code == 200
    assert Action.objects.filter(attempt_id=now["id"]).count() == 6


def test_the_model_is_what_the_migrations_make():
    """Migration 0006 changes the state by hand (a custom operation): the model
    must need no further migration."""
    call_command("makemigrations", "games", check=True, dry_run=True, verbosity=0)
