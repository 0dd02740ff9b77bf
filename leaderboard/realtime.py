"""The day's leaderboard, live: rows pushed to the subscribers of
``leaderboard.<date>.<variant>`` (``games.realtime.leaderboard_group``) when a
result changes. The games announce it (``games.signals.result_changed``, after
commit); this module, connected in ``leaderboard/apps.py``, ranks and sends."""

from __future__ import annotations

import logging
from typing import Any

from django.dispatch import receiver

from games.models import Attempt
from games.realtime import leaderboard_group
from games.signals import result_changed
from kit.broadcast import publish

from .selectors import ranked_attempts, result_json, viewer_row

log = logging.getLogger(__name__)


@receiver(result_changed, dispatch_uid="leaderboard.realtime.leaderboard_changed")
def leaderboard_changed(sender: type[Attempt], *, attempt: Attempt, **kwargs: Any) -> None:
    """A ranked attempt finished, its replay check ended or staff decided on it
    (games/fairplay.py): tell the day's leaderboard subscribers its row, or that
    it left the board (a failed check, a disqualification). Ranks are computed
    by the query, so a client refetches the page on either event."""
    daily = attempt.daily
    if daily is None:
        return
    try:
        attempts = ranked_attempts(daily=daily)
        row = viewer_row(attempts, player_id=attempt.player_id)
        count = attempts.count()
    except Exception:
        log.warning("leaderboard broadcast for %s failed", attempt.pk, exc_info=True)
        return
    group = leaderboard_group(daily.date, daily.variant)
    if row is None:  # a failed replay check or a disqualified result is not on the board
        if attempt.player.is_guest:  # nor a guest's (issue 24): it never was there
            return
        if attempt.finished and (attempt.verified is False or attempt.disqualified):
            publish(
                group,
                {
                    "type": "removed",
                    "date": daily.date.isoformat(),
                    "variant": daily.variant,
                    "count": count,
                    "player": attempt.player.get_username(),
                },
            )
        return
    publish(
        group,
        {
            "type": "rows",
            "date": daily.date.isoformat(),
            "variant": daily.variant,
            "count": count,
            # Replay links depend on who looks: fetch the page over HTTP for them.
            "rows": [result_json(row, show_replay=False)],
        },
    )
