"""What a change to an attempt sets off once committed goes to its transaction in
one registration (issue 40): the ``state`` event, the game cache, the
leaderboard, the replay check and review, the dead-end proof — each action,
either way it is applied (the compare-and-set on a cached game, the locked
way), hands the commit one callback, and running it does all of that. The jobs
are queued by name: every name the games use is a task."""

from __future__ import annotations

from typing import Any

from celery import current_app

from accounts.models import User
from games import followups, proofs, services
from games.dailies import daily_deal_prepare, utc_today
from games.models import Attempt, Review
from games.signals import result_changed
from tests.support.search import lost_deal


def test_every_job_the_games_queue_by_name_is_a_task():
    named = [
        value
        for module in (followups, proofs)
        for value in vars(module).values()
        if isinstance(value, str) and value.startswith("games.tasks.")
    ]
    assert len(named) == 6, named
    assert [name for name in named if name not in current_app.tasks] == []


def committed(capture: Any, change: Any, **kwargs: Any) -> list[Any]:
    """``change(**kwargs)``; the commit callbacks it registered, run afterwards
    (with what the jobs they run in process register in turn, which are theirs)."""
    with capture() as callbacks:
        change(**kwargs)
    with capture(execute=True):
        for callback in callbacks:
            callback()
    return callbacks


def test_every_action_of_a_ranked_win_registers_its_followups_once(
    db, django_capture_on_commit_callbacks
):
    heard: list[int] = []

    def hear(sender: Any, *, attempt: Attempt, **kwargs: Any) -> None:
        heard.append(attempt.pk)

    user = User.objects.create_user("fu-winner")
    daily = daily_deal_prepare(date=utc_today(), variant="SH1-C4")
    attempt, _new = services.attempt_start(player=user, daily="SH1-C4")
    result_changed.connect(hear, weak=False, dispatch_uid="test-followups")
    try:
        for seq, action in enumerate(daily.proof):
            callbacks = committed(
                django_capture_on_commit_callbacks,
                services.attempt_apply_action,
                attempt_id=attempt.pk,
                player=user,
                seq=seq,
                action=action,
            )
            assert len(callbacks) == 1, (seq, callbacks)
    finally:
        result_changed.disconnect(dispatch_uid="test-followups")
    won = Attempt.objects.get(pk=attempt.pk)
    assert won.won and won.status == "won"
    # The one callback of the winning action did it all: the board heard of the
    # win, the replay check ran (in process) — the board heard its verdict — and
    # queued the review, which ran too.
    assert heard == [attempt.pk, attempt.pk]
    assert won.verified is True
    assert Review.objects.filter(attempt=won).exists()


def test_a_resignation_and_a_position_worth_a_proof_register_once_too(
    db, django_capture_on_commit_callbacks
):
    user = User.objects.create_user("fu-prover")
    code, move = lost_deal()
    attempt, _new = services.attempt_start(player=user, code=code)
    callbacks = committed(
        django_capture_on_commit_callbacks,
        services.attempt_apply_action,
        attempt_id=attempt.pk,
        player=user,
        seq=0,
        action=move.to_json(),
    )
    assert len(callbacks) == 1
    assert Attempt.objects.get(pk=attempt.pk).lost_seq == 1  # the proof ran, in process
    callbacks = committed(
        django_capture_on_commit_callbacks,
        services.attempt_resign,
        attempt_id=attempt.pk,
        player=user,
    )
    assert len(callbacks) == 1
    assert Attempt.objects.get(pk=attempt.pk).verified is True
