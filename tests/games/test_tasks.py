"""What the background jobs do to attempts (issue 5), run in-process: the replay
check of finished attempts, closing stale ones, the Seahaven dead-end proof.
A real Celery worker runs them in ``test_celery_worker.py``."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from games.dailies import utc_today
from games.engine import new_game
from games.models import Action, Attempt, DailyDeal
from games.services import attempt_prove_lost, attempt_verify, attempts_close_stale
from leaderboard.selectors import leaderboard_for_day, player_record
from tests.support.api import Client, act, assert_error, start
from tests.support.search import WINNABLE, lost_deal, winning_line

pytestmark = pytest.mark.django_db


def play_line(client: Client, attempt: dict[str, Any], line: list[dict[str, Any]]) -> dict:
    body = attempt
    for seq, action in enumerate(line, start=attempt["seq"]):
        response = act(client, attempt["id"], seq, action)
        assert response.status_code == 200, (seq, response.content)
        body = response.json()
    return body


def deal_code(attempt: dict[str, Any]) -> str:
    """The attempt's deal code, read from the database: the API never sends the
    code of a running daily (PRODUCT.md, "Fair daily deals")."""
    return Attempt.objects.get(pk=attempt["id"]).deal.code


# --- the replay check -------------------------------------------------------------------


def test_a_won_game_is_verified_once_finished(player, django_capture_on_commit_callbacks):
    game = start(player, code=WINNABLE)
    with django_capture_on_commit_callbacks(execute=True):
        body = play_line(player, game, winning_line(WINNABLE))
    assert body["status"] == "won"
    assert Attempt.objects.get(pk=game["id"]).verified is True
    assert player.get(f"/api/games/{game['id']}/").json()["verified"] is True


def test_a_resigned_game_is_verified_too(player, django_capture_on_commit_callbacks):
    game = start(player, random="EH1-N")
    act(player, game["id"], 0, {"type": "stock"})
    with django_capture_on_commit_callbacks(execute=True):
        player.send(f"/api/games/{game['id']}/resign/")
    assert Attempt.objects.get(pk=game["id"]).verified is True


def finish_daily(client: Client, variant: str = "SH1-C4") -> Attempt:
    game = start(client, daily=variant)
    response = client.send(f"/api/games/{game['id']}/resign/")
    assert response.status_code == 200
    return Attempt.objects.get(pk=game["id"])


def rows(viewer: Any, variant: str = "SH1-C4") -> list[dict[str, Any]]:
    return leaderboard_for_day(date=utc_today(), variant=variant, viewer=viewer)["results"]


def test_the_leaderboard_marks_pending_then_verified(make_player):
    ada = make_player()
    attempt = finish_daily(ada)  # on-commit callbacks do not run here: the check is pending
    user = attempt.player
    [row] = rows(user)
    assert row["pending"] is True and row["verified"] is False
    assert attempt_verify(attempt_id=attempt.pk) is True
    [row] = rows(user)
    assert row["pending"] is False and row["verified"] is True


@pytest.mark.parametrize(
    "tamper",
    [
        "other_action",
        "score",
        "missing_action",
        "extra_result",
        "won_without_winning",
    ],
)
def test_a_tampered_log_is_flagged_and_leaves_the_leaderboard(make_player, tamper):
    ada = make_player()
    game = start(ada, daily="SH1-C4")
    assert game["code"] is None
    code = deal_code(game)
    view = new_game(code)
    moves = [m.to_json() for m in list(view.legal_moves)[:1]]
    play_line(ada, game, moves)
    ada.send(f"/api/games/{game['id']}/resign/")
    attempt = Attempt.objects.get(pk=game["id"])
    assert attempt_verify(attempt_id=attempt.pk) is True
    first = Action.objects.get(attempt=attempt, seq=0)
    if tamper == "other_action":
        other = next(m for m in new_game(code).legal_moves if m.to_json() != moves[0])
        Action.objects.filter(pk=first.pk).update(sent=other.to_json(), action=other.to_json())
    elif tamper == "score":
        Action.objects.filter(pk=first.pk).update(score=first.score + 10)
        Attempt.objects.filter(pk=attempt.pk).update(score=first.score + 10)
    elif tamper == "missing_action":
        first.delete()
    elif tamper == "extra_result":
        Attempt.objects.filter(pk=attempt.pk).update(moves=attempt.moves + 1)
    elif tamper == "won_without_winning":
        Attempt.objects.filter(pk=attempt.pk).update(status="won", won=True, score=520)
    assert attempt_verify(attempt_id=attempt.pk) is False
    assert Attempt.objects.get(pk=attempt.pk).verified is False
    assert rows(attempt.player) == []
    assert player_record(username=attempt.player.username)["played"] == 0


def test_the_check_is_idempotent_and_ignores_games_in_progress(player):
    game = start(player, random="SH1-C4")
    assert attempt_verify(attempt_id=game["id"]) is None  # not finished
    assert attempt_verify(attempt_id=10**9) is None  # no such attempt
    player.send(f"/api/games/{game['id']}/resign/")
    assert attempt_verify(attempt_id=game["id"]) is True
    assert attempt_verify(attempt_id=game["id"]) is True
    assert Attempt.objects.get(pk=game["id"]).verified is True


# --- housekeeping -----------------------------------------------------------------------


def test_daily_attempts_left_open_are_closed_when_their_day_ends(
    make_player, django_capture_on_commit_callbacks
):
    ada = make_player()
    yesterday = utc_today() - dt.timedelta(days=1)
    game = start(ada, daily="EH1-N")
    assert game["code"] is None
    engine = new_game(deal_code(game))
    for seq in range(3):
        move = next(iter(engine.legal_moves))
        engine.apply(move)
        assert act(ada, game["id"], seq, move.to_json()).status_code == 200
    # The day goes by with the game still open; it was started at 22:00.
    user = User.objects.get(username=ada.username)
    daily = DailyDeal.objects.get(attempts__pk=game["id"])
    DailyDeal.objects.filter(pk=daily.pk).update(date=yesterday)
    started = dt.datetime.combine(yesterday, dt.time(22), tzinfo=dt.UTC)
    Attempt.objects.filter(pk=game["id"]).update(started_at=started)
    open_one = Attempt.objects.get(pk=game["id"])
    # Its day over, its code is no longer secret: the game names it again.
    shown = ada.get(f"/api/games/{open_one.pk}/").json()
    assert shown["code"] == shown["view"]["code"] == open_one.deal.code
    assert shown["view"]["daily"] == {"date": str(yesterday), "variant": "EH1-N"}
    todays = start(ada, daily="EH1-N")
    # Its day is over: the player can no longer act on it.
    error = assert_error(act(ada, open_one.pk, 3, {"type": "stock"}), 409, "day_over")
    assert str(yesterday) in error["message"]
    with django_capture_on_commit_callbacks(execute=True):
        assert attempts_close_stale() == 1
    closed = Attempt.objects.get(pk=open_one.pk)
    assert closed.status == "abandoned" and not closed.won
    assert (closed.score, closed.moves) == (engine.score, 3)  # closed as it stood
    end = dt.datetime.combine(utc_today(), dt.time(), tzinfo=dt.UTC)
    assert closed.finished_at == end
    assert closed.elapsed_ms == 2 * 3600 * 1000  # the clock stopped at the day's end
    assert Attempt.objects.get(pk=todays["id"]).status == "playing"
    # On yesterday's board as not won; in the player's record (no win: no streak).
    board = leaderboard_for_day(date=yesterday, variant="EH1-N", viewer=user)
    assert [(r["player"], r["won"], r["status"]) for r in board["results"]] == [
        (ada.username, False, "abandoned")
    ]
    record = player_record(username=ada.username)
    assert record["played"] == 1 and record["won"] == 0 and record["streak"]["current"] == 0
    assert closed.verified is True  # and checked like any finished game
    assert attempts_close_stale() == 0  # a second run changes nothing


def test_practice_games_idle_for_a_week_are_closed(player):
    old = start(player, random="SH1-C4")
    recent = start(player, random="SH1-C4")
    now = timezone.now()
    Attempt.objects.filter(pk=old["id"]).update(updated_at=now - dt.timedelta(days=8))
    Attempt.objects.filter(pk=recent["id"]).update(updated_at=now - dt.timedelta(days=6))
    assert attempts_close_stale() == 1
    assert Attempt.objects.get(pk=old["id"]).status == "abandoned"
    assert Attempt.objects.get(pk=recent["id"]).status == "playing"


# --- the dead-end proof (Seahaven) --------------------------------------------------------


def test_a_proven_lost_position_is_announced(player, django_capture_on_commit_callbacks):
    code, move = lost_deal()
    game = start(player, code=code)
    assert game["unwinnable"] is False  # nothing is said before a proof
    with django_capture_on_commit_callbacks(execute=True):
        body = act(player, game["id"], 0, move.to_json()).json()
    # The proof runs after the commit (in-process here): the next read says it.
    assert body["seq"] == 1 and body["view"]["dead_end"] is False
    after = player.get(f"/api/games/{game['id']}/").json()
    assert after["unwinnable"] is True
    assert Attempt.objects.get(pk=game["id"]).lost_seq == 1
    # Undo goes back to an earlier position: the proof was for another one.
    undone = act(player, game["id"], 1, {"type": "undo"}).json()
    assert undone["unwinnable"] is False


def test_a_winnable_position_is_never_called_lost(player):
    game = start(player, code=WINNABLE)
    move = next(iter(new_game(WINNABLE).legal_moves))
    act(player, game["id"], 0, move.to_json())
    assert attempt_prove_lost(attempt_id=game["id"], seq=1) is False
    assert attempt_prove_lost(attempt_id=game["id"], seq=0) is False  # stale: moved on
    assert player.get(f"/api/games/{game['id']}/").json()["unwinnable"] is False


def test_checks_still_pending_after_a_while_are_queued_again(player):
    """The safety net for a lost message: ``verify_pending_attempts`` (beat)."""
    from games.tasks import verify_pending_attempts

    fresh, late = start(player, random="SH1-C4"), start(player, random="SH1-C4")
    for game in (fresh, late):
        player.send(f"/api/games/{game['id']}/resign/")  # on-commit: not run in this test
    Attempt.objects.filter(pk=late["id"]).update(
        finished_at=timezone.now() - dt.timedelta(minutes=10)
    )
    assert verify_pending_attempts() == 1  # tasks run in-process in the tests
    assert Attempt.objects.get(pk=late["id"]).verified is True
    assert Attempt.objects.get(pk=fresh["id"]).verified is None


def test_dead_end_proofs_are_coalesced_one_pending_per_attempt(
    player, django_capture_on_commit_callbacks
):
    """While a proof of an attempt waits on the queue, actions queue no other:
    the one pending proves the position the attempt has when it runs."""
    from django.core.cache import cache

    from games.proofs import proof_key
    from games.tasks import prove_lost

    code, move = lost_deal()
    game = start(player, code=code)
    cache.add(proof_key(game["id"]), 1)  # as if a proof were on the queue already
    with django_capture_on_commit_callbacks(execute=True):
        body = act(player, game["id"], 0, move.to_json()).json()
    assert body["unwinnable"] is False  # no second proof was queued, none ran
    assert Attempt.objects.get(pk=game["id"]).lost_seq is None
    # The worker takes the pending one: it proves the attempt's position now.
    assert prove_lost(game["id"]) is True
    assert Attempt.objects.get(pk=game["id"]).lost_seq == 1
    assert cache.get(proof_key(game["id"])) is None  # the next action may queue one
    assert player.get(f"/api/games/{game['id']}/").json()["unwinnable"] is True


def test_a_dead_end_proof_runs_when_the_cache_does_not_answer(player, settings):
    """A worker taking a proof while Redis is away (the faults test caught it
    raising out of the task): the pending mark is left to expire, the proof runs."""
    from games.tasks import prove_lost

    code, move = lost_deal()
    game = start(player, code=code)
    act(player, game["id"], 0, move.to_json())
    settings.CACHES = {  # a cache on a port nothing listens on
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        }
    }
    assert prove_lost(game["id"]) is True
    assert Attempt.objects.get(pk=game["id"]).lost_seq == 1


def test_a_killed_workers_task_comes_back_within_minutes_never_while_it_runs(settings):
    """The broker hands a task taken and never acknowledged to another worker after
    its visibility timeout (issue 17): above the hard time limit, so a task still
    running is never handed out twice; and within minutes, so a killed worker's
    replay check does not stay pending for an hour. (A killed worker's check
    coming back in that time, on the production values: tests/system/faults/.)"""
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    soft, hard = settings.CELERY_TASK_SOFT_TIME_LIMIT, settings.CELERY_TASK_TIME_LIMIT
    assert soft < hard < visibility <= 300
    # kombu looks for such tasks every interval × throttle seconds (100 s by default).
    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    assert options["unacked_restore_interval"] * options["unacked_restore_throttle"] <= 10
