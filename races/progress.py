"""Racers' progress, live (issue 29): from the games' sealed attempts to the
room's sockets, coalesced at the source.

The games send ``sealed_attempt_changed`` after the commit of each action of
a race's attempt, with the engine game in memory (``games/services.py``); no
other game pays anything for it. Here the progress is computed from that game
(``games.engine.progress``: counts, never a card), kept in the cache as the
racer's latest, and sent to the room through a gate per racer:

- the gate is a cache key made with ``add`` (Redis ``SET NX PX 500``): the
  action that makes it sends its progress at once, and for 500 ms no other
  action of that racer sends anything — at most 2 frames a second a racer,
  across every process, however fast they play;
- an action that finds the gate closed leaves its progress as the latest and
  makes a second key, ``pending`` (``SET NX``); the one that makes it starts a
  timer in its process that, 500 ms on, deletes ``pending``, reads the latest
  and sends it through the gate (or waits once more). The timer deletes
  ``pending`` before it reads, and an action stores its latest before it tries
  ``pending``: so either the timer reads that action's progress or that action
  starts a timer of its own. The last progress of every racer always arrives;
  and a racer's finish is a room change, whose ``race`` frame carries it too.

A racer's win, resignation or game closed finishes them in the race
(``races.services.racer_finished``)."""

from __future__ import annotations

import logging
import threading
from typing import Any

from django.core.cache import cache
from django.dispatch import receiver
from django.utils import timezone

from games.engine import Game, progress
from games.models import Attempt
from games.realtime import publish
from games.signals import sealed_attempt_changed
from kit.sockets import encode

from .models import Racer
from .realtime import race_group
from .selectors import PROGRESS_KEEP_S, PROGRESS_KEY
from .services import racer_finished

log = logging.getLogger(__name__)

GATE_S = 0.5
"""One progress frame a racer per this long at most (2 a second)."""

_GATE = "race:gate:{}"
_PENDING = "race:pending:{}"
_LATEST = "race:latest:{}"


def progress_frame(*, v: int, player: str, status: str, seq: int, shown: dict[str, Any]) -> str:
    return encode(
        {
            "type": "progress",
            "racers": [{"player": player, "progress": shown, "status": status, "seq": seq}],
            "v": v,
        }
    )


def _send(group: str, attempt_id: int, text: str) -> None:
    """Through the gate: sent now, or left to the pending timer."""
    if cache.add(_GATE.format(attempt_id), 1, timeout=GATE_S):
        publish(group, text)
    elif cache.add(_PENDING.format(attempt_id), 1, timeout=10 * GATE_S):
        timer = threading.Timer(GATE_S, _flush, args=(group, attempt_id))
        timer.daemon = True
        timer.start()


def _flush(group: str, attempt_id: int) -> None:
    """The trailing frame: the racer's latest progress, once the gate opens."""
    try:
        cache.delete(_PENDING.format(attempt_id))
        text = cache.get(_LATEST.format(attempt_id))
        if text is not None:
            _send(group, attempt_id, text)
    except Exception:
        log.warning("race progress of %s: the trailing frame failed", attempt_id, exc_info=True)


@receiver(sealed_attempt_changed, dispatch_uid="races.progress.racer_moved")
def racer_moved(sender: type[Attempt], *, attempt: Attempt, game: Game, **kwargs: Any) -> None:
    """After commit of a sealed attempt's change: its racer's progress to the room
    (coalesced), and its finish to the race."""
    try:
        row = (
            Racer.objects.filter(attempt_id=attempt.pk)
            .values_list("race__slug", "race__version", "player__username", "status")
            .first()
        )
        if row is None:
            return
        slug, version, player, status = row
        elapsed = attempt.elapsed_ms
        if elapsed is None:
            elapsed = attempt.ms_since_start(timezone.now())
        shown = {**progress(game), "elapsed_ms": elapsed}
        text = progress_frame(v=version, player=player, status=status, seq=attempt.seq, shown=shown)
        cache.set_many(
            {PROGRESS_KEY.format(attempt.pk): shown, _LATEST.format(attempt.pk): text},
            timeout=PROGRESS_KEEP_S,
        )
        _send(race_group(slug), attempt.pk, text)
    except Exception:
        log.warning("race progress of %s not sent", attempt.pk, exc_info=True)
    if attempt.finished:
        racer_finished(attempt_id=attempt.pk)
