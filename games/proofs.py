"""The dead-end proofs the actions ask for, coalesced (issue 5, issue 38): at
most one pending per attempt (a key in the shared cache says so), run on the
position the attempt has when a worker takes it — so a queue that lags behind a
player moving with full cells holds one proof of theirs, not one an action.
The proofs themselves are ``services.attempt_prove_lost``, run by the jobs
``tasks.prove_lost`` and ``tasks.prove_lost_each``, queued here by name."""

from __future__ import annotations

import logging
import threading

from celery import current_app
from django.core.cache import cache
from django_redis import get_redis_connection

from kit.commits import Followups, queue_now

log = logging.getLogger(__name__)

PROVE_LOST = "games.tasks.prove_lost"
PROVE_LOST_EACH = "games.tasks.prove_lost_each"

PROOF_PENDING_S = 300
"""At most this long one queued proof keeps others of its attempt off the queue
(a lost message must not silence the attempt's proofs for good)."""

PROOF_BATCH_S = 0.25
"""The dead-end proofs a process wants are sent together, this long after the first."""
PROOF_BATCH_MAX = 8
"""Proofs a job carries at most: a batch of more is split, so the heavy workers'
processes share it (each proof searches ``services.PROOF_NODES``, ~1 s at most)."""


def proof_key(attempt_id: int) -> str:
    """The mark of a proof pending for the attempt (cleared by the job as it starts)."""
    return f"proof-pending:{attempt_id}"


class _Proofs:
    """The attempts whose positions this process wants proved, sent together:
    one Redis round trip marks the batch's attempts pending (one pending proof
    an attempt, however long the queue lags) and one job carries those newly
    marked (``tasks.prove_lost_each``) — off every action's path, so an action
    that reaches a tight position costs its door a set insertion (issue 38)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.wanted: set[int] = set()
        self.armed = False
        self.sending = 0  # batches taken, not yet handed to the broker

    def want(self, attempt_id: int) -> None:
        with self.lock:
            self.wanted.add(attempt_id)
            arm, self.armed = not self.armed, True
        if arm:
            timer = threading.Timer(PROOF_BATCH_S, self.send)
            timer.daemon = True
            timer.start()

    def send(self) -> None:
        with self.lock:
            wanted, self.wanted, self.armed = sorted(self.wanted), set(), False
            self.sending += 1
        try:
            fresh = _marked_pending(wanted)
            for start in range(0, len(fresh), PROOF_BATCH_MAX):
                queue_now(PROVE_LOST_EACH, fresh[start : start + PROOF_BATCH_MAX])
        except Exception:
            log.warning("proofs of %s not queued: the cache did not answer", wanted)
        finally:
            with self.lock:
                self.sending -= 1

    def idle(self) -> bool:
        """Nothing wanted, nothing on its way to the broker."""
        with self.lock:
            return not (self.armed or self.wanted or self.sending)


PROOFS = _Proofs()


def _marked_pending(attempt_ids: list[int]) -> list[int]:
    """Those of ``attempt_ids`` with no proof pending, marked pending now: one
    round trip (``SET NX`` each, pipelined) in the shared cache."""
    client = get_redis_connection("default")
    pipe = client.pipeline(transaction=False)
    for attempt_id in attempt_ids:
        pipe.set(cache.make_key(proof_key(attempt_id)), 1, nx=True, ex=PROOF_PENDING_S)
    return [a for a, made in zip(attempt_ids, pipe.execute(), strict=True) if made]


def _queue_one(attempt_id: int) -> None:
    try:
        if cache.add(proof_key(attempt_id), 1, timeout=PROOF_PENDING_S):
            queue_now(PROVE_LOST, attempt_id)
    except Exception:
        log.warning("proof of %s not queued: the cache did not answer", attempt_id)


def queue_proof(after: Followups, attempt_id: int) -> None:
    """Once ``after``'s change is committed, the dead-end proof of the attempt's
    position: with a broker the process's wanted proofs go together
    (``_Proofs``, at the commit: a set insertion); in process (CELERY_EAGER, the
    embedded default) each runs after its answer. A broker or cache that does
    not answer is a warning: a proof is only ever a bonus (issue 5)."""
    if current_app.conf.task_always_eager:
        after.later(lambda: _queue_one(attempt_id))
    else:
        after.at_commit(lambda: PROOFS.want(attempt_id))
