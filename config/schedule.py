"""The background jobs' routes and beat schedule (Celery reads them through
``config/settings.py``: ``CELERY_TASK_ROUTES``, ``WORKER_QUEUES``,
``CELERY_BEAT_SCHEDULE``). Constants only: the environment is read in the
settings alone. What each job does: docs/operations.md, "Background jobs"."""

from __future__ import annotations

from celery.schedules import crontab

# Queues that cannot starve each other (issue 38), every task of ours named here (a
# test checks it, so a new one cannot land on a queue by default): "interactive",
# what a player waits for (mail, a finished game's replay check and review, a race's
# end and rating); "heavy", solver search (daily deals and their predicted
# difficulty, practice pools, post-mortems, dead-end proofs), taken by workers of
# their own, so analyses queued by the thousand never hold a reset mail back;
# "fairplay", what the player knew (games/knowledge.py: up to 150 s of search per
# Easy Harp win), a queue of its own so it can be given workers apart, taken by the
# heavy workers beside "heavy"; "celery", the default, the periodic sweeps and
# fan-outs, each short, taken by the interactive workers. WORKER_QUEUE_NAMES names each
# class of worker's queues (compose, Kubernetes and deploy/stack.py start one of each).
WORKER_QUEUE_NAMES = {"interactive": ("interactive", "celery"), "heavy": ("heavy", "fairplay")}
TASK_ROUTES = {
    name: {"queue": queue}
    for queue, names in {
        "interactive": (
            "accounts.mail.mail_email_verification",
            "accounts.mail.mail_password_reset",
            "accounts.mail.mail_password_reset_for",
            "accounts.mail.mail_account_notice",
            "games.tasks.verify_attempt",
            "games.tasks.review_attempt",
            "races.tasks.end_due_races",
            "leaderboard.tasks.rate_race",
        ),
        "heavy": (
            "games.tasks.prepare_daily_deal",
            "games.tasks.predict_daily_deal",
            "games.tasks.fill_practice_pool",
            "games.tasks.analyse_attempt",
            "games.tasks.prove_lost",
            "games.tasks.prove_lost_each",
        ),
        "fairplay": ("games.tasks.judge_knowledge",),
        "celery": (
            "games.tasks.prepare_daily_deals",
            "games.tasks.fill_practice_pools",
            "games.tasks.verify_pending_attempts",
            "games.tasks.close_stale_attempts",
            "games.tasks.ensure_action_partitions",
            "games.tasks.purge_old_addresses",
            "games.tasks.after_the_day",
            "games.tasks.analyse_day",
            "games.tasks.build_day_results",
            "games.tasks.measure_daily_deal",
            "accounts.tasks.purge_idle_guests",
            "accounts.tasks.send_reminders",
            "leaderboard.tasks.rate_unrated_races",
        ),
    }.items()
    for name in names
}

BEAT_SCHEDULE = {
    # Today's and the next two days' daily deals, proven winnable (games/dailies.py).
    # Hourly, so a failed run is retried; a day already prepared is left as it is.
    "prepare-daily-deals": {
        "task": "games.tasks.prepare_daily_deals",
        "schedule": crontab(minute=1),
    },
    # The practice pools: numbered deals proven winnable for "New deal" (games/practice.py),
    # 300 per variant, topped up by at most a minute of search per variant a run.
    "fill-practice-pools": {
        "task": "games.tasks.fill_practice_pools",
        "schedule": crontab(minute="*/10"),
    },
    # Close daily attempts whose UTC day has ended and practice games idle for 7 days.
    "close-stale-attempts": {
        "task": "games.tasks.close_stale_attempts",
        "schedule": crontab(minute=2),
    },
    # Re-queue replay checks that never ran (a lost message, a worker down for long).
    "verify-pending-attempts": {
        "task": "games.tasks.verify_pending_attempts",
        "schedule": crontab(minute="*/10"),
    },
    # After the day (games/afterday.py, issue 27): each closed day's post-mortems,
    # difficulty and results file; after close-stale-attempts has closed the day.
    "after-the-day": {
        "task": "games.tasks.after_the_day",
        "schedule": crontab(minute=4),
    },
    # The action log's monthly partitions, this month's and 3 ahead (games/partitions.py);
    # daily, so months of beat being down pass before a month has none.
    "ensure-action-partitions": {
        "task": "games.tasks.ensure_action_partitions",
        "schedule": crontab(hour=0, minute=5),
    },
    # Guests idle past GUEST_IDLE_DAYS, longer than their session lives, with their
    # games (accounts/services.py), guests' practice games ended GUEST_GAMES_DAYS ago
    # (issue 38), and the deleted accounts' names held past DELETED_NAME_HOLD_DAYS
    # released (accounts/privacy.py); hourly, a batch a run.
    "purge-idle-guests": {
        "task": "accounts.tasks.purge_idle_guests",
        "schedule": crontab(minute=7),
    },
    # Race rooms past RACE_MINUTES end, those still racing resigned (races/services.py).
    "end-due-races": {
        "task": "races.tasks.end_due_races",
        "schedule": crontab(minute="*"),
    },
    # Races of the last 7 days that ended unrated (a lost announcement, a rating whose
    # retries ran out) are rated (leaderboard/tasks.py); a rated race is left as it is.
    "rate-unrated-races": {
        "task": "leaderboard.tasks.rate_unrated_races",
        "schedule": crontab(minute="*/10"),
    },
    # Client addresses and device ids of attempts older than ADDRESS_RETENTION_DAYS, and
    # the address their reviews quoted (games/privacy.py); hourly, a batch a run.
    "purge-old-addresses": {
        "task": "games.tasks.purge_old_addresses",
        "schedule": crontab(minute=9),
    },
    # Reminders of the new daily (accounts/reminders.py): every 15 minutes, a batch a run;
    # at most one a player a day, today's only (a late run catches up, never yesterday's).
    "send-reminders": {
        "task": "accounts.tasks.send_reminders",
        "schedule": crontab(minute="*/15"),
    },
}
