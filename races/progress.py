"""Racers' progress, live (issue 29): from the games' sealed attempts to the
room's sockets, coalesced at the source, per room.

The games send ``sealed_attempt_changed`` after the commit of each action of
a race's attempt, with the engine game in memory (``games/services.py``); no
other game pays anything for it. Here the progress is computed from that game
(``games.engine.progress``: counts, never a card) and sent to the room through
a gate per room (in Redis, shared by every daphne; in process on the embedded
default):

- the racer's progress is written as theirs in the room's *dirty* hash (one
  entry a racer: the latest wins);
- then the gate, a key made with ``SET NX PX 500``: the action that makes it
  takes the whole dirty hash (read and deleted in one transaction) and sends
  it as one ``progress`` frame, every racer who moved in it; for 500 ms no
  other action sends anything — so each socket of the room gets at most
  2 progress frames a second, however many racers play and however fast;
- an action that finds the gate closed tries a second key, ``pending``
  (``SET NX``); the one that makes it starts a timer in its process that,
  500 ms on, deletes ``pending`` and tries the gate again (or waits once
  more). The timer deletes ``pending`` before it takes the hash, and an
  action writes the hash before it tries ``pending``: so either the timer's
  frame carries that action's progress or that action starts a timer of its
  own. Every racer's last progress always arrives, at most ~500 ms late; and
  a racer's finish is a room change, whose ``race`` frame carries it too.

An action's whole part of this — its progress and ladder kept for readers, its
entry, the gate tried and, open, the hash taken and the room's view marked as
moved on (``races.realtime.progress_sent``) — is one script: one Redis round
trip after the player's answer (issue 38), then the frame's publish when the
gate opened.

Each progress also says when the racer reached the cards home they hold
(``home_ms``, the standings' tie-break: ``races.selectors``, "when a racer
reached their cards home"), from their *ladder*, kept a step an action (in
this process, and in the cache for the others) — the same as the action log
replayed, which is what it falls back to.

A racer's win, resignation or game closed finishes them in the race
(``races.services.racer_finished``)."""

from __future__ import annotations

import functools
import logging
import threading
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connections
from django.dispatch import receiver
from django.utils import timezone
from django_redis import get_redis_connection

from games.engine import Game, progress
from games.models import Attempt
from games.signals import sealed_attempt_changed
from kit.broadcast import publish
from kit.sockets import encode

from .events import progress_frame
from .models import Racer
from .realtime import progress_sent, race_group, sent_mark
from .selectors import (
    LADDER_KEY,
    PROGRESS_KEEP_S,
    PROGRESS_KEY,
    SENT_KEY,
    home_ladder,
    ladder_ms,
    ladder_step,
    race_places,
)
from .services import racer_finished

log = logging.getLogger(__name__)

GATE_MS = 500
"""One progress frame a room per this long at most (2 a second a socket)."""


class _RedisRooms:
    """The dirty hashes and the gates in Redis, shared by every daphne."""

    def client(self) -> Any:
        return get_redis_connection("default")

    NOTE = """
    local n = tonumber(ARGV[6])
    for i = 1, n do
      redis.call('SET', KEYS[4 + i], ARGV[7 + i], 'EX', ARGV[3])
    end
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
    redis.call('EXPIRE', KEYS[1], ARGV[3])
    if redis.call('SET', KEYS[2], 1, 'NX', 'PX', ARGV[4]) then
      local entries = redis.call('HVALS', KEYS[1])
      redis.call('DEL', KEYS[1])
      redis.call('SET', KEYS[4], ARGV[7], 'EX', ARGV[3])
      return {1, entries}
    end
    if redis.call('SET', KEYS[3], 1, 'NX', 'PX', ARGV[5]) then return {2, {}} end
    return {0, {}}
    """
    """``note`` in one round trip: ``keep`` written to the cache, the entry kept,
    then the gate tried — open, the room's entries taken and its view marked as
    moved on (``races.realtime.progress_sent``) — else ``pending`` tried."""

    def note(
        self, slug: str, player: str, entry: str, keep: dict[str, Any]
    ) -> tuple[list[str] | None, bool]:
        """Keep ``entry`` as ``player``'s latest and ``keep`` in the cache; the
        room's entries when this call opened the gate (to send now), and (if not)
        whether it made ``pending``."""
        client = cache.client  # type: ignore[attr-defined]  # django-redis's: its keys and values
        keys = [f"race:dirty:{slug}", f"race:gate:{slug}", f"race:pending:{slug}"]
        keys += [str(client.make_key(k)) for k in (SENT_KEY.format(slug), *keep)]
        args = [player, entry, PROGRESS_KEEP_S, GATE_MS, 20 * GATE_MS, len(keep)]
        args += [client.encode(v) for v in (sent_mark(), *keep.values())]
        done, entries = self._note(keys=keys, args=args)
        if done == 1:
            return [e.decode() if isinstance(e, bytes) else e for e in entries], False
        return None, done == 2

    @functools.cached_property
    def _note(self) -> Any:
        return self.client().register_script(self.NOTE)

    def gate(self, slug: str) -> bool:
        return bool(self.client().set(f"race:gate:{slug}", 1, nx=True, px=GATE_MS))

    def take(self, slug: str) -> list[str]:
        pipe = self.client().pipeline(transaction=True)
        pipe.hgetall(f"race:dirty:{slug}")
        pipe.delete(f"race:dirty:{slug}")
        entries = pipe.execute()[0]
        return [v.decode() if isinstance(v, bytes) else v for v in entries.values()]

    def pend(self, slug: str) -> bool:
        return bool(self.client().set(f"race:pending:{slug}", 1, nx=True, px=20 * GATE_MS))

    def unpend(self, slug: str) -> None:
        self.client().delete(f"race:pending:{slug}")


class _LocalRooms:
    """The same in this process (the embedded default: one process)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.dirty: dict[str, dict[str, str]] = {}
        self.gates: dict[str, float] = {}
        self.pending: set[str] = set()

    def note(
        self, slug: str, player: str, entry: str, keep: dict[str, Any]
    ) -> tuple[list[str] | None, bool]:
        cache.set_many(keep, timeout=PROGRESS_KEEP_S)
        with self.lock:
            self.dirty.setdefault(slug, {})[player] = entry
        if self.gate(slug):
            progress_sent(slug)
            return self.take(slug), False
        return None, self.pend(slug)

    def gate(self, slug: str) -> bool:
        now = time.monotonic()
        with self.lock:
            if self.gates.get(slug, 0.0) > now:
                return False
            self.gates[slug] = now + GATE_MS / 1000
            return True

    def take(self, slug: str) -> list[str]:
        with self.lock:
            return list(self.dirty.pop(slug, {}).values())

    def pend(self, slug: str) -> bool:
        with self.lock:
            if slug in self.pending:
                return False
            self.pending.add(slug)
            return True

    def unpend(self, slug: str) -> None:
        with self.lock:
            self.pending.discard(slug)


@functools.cache
def _rooms() -> _RedisRooms | _LocalRooms:
    return _RedisRooms() if settings.REDIS_URL else _LocalRooms()


def _send(slug: str, entries: list[str]) -> None:
    """Through the open gate (the room's view marked as moved on): every racer who
    moved since the last frame, in one, with every racer's place now (two reads,
    at most twice a second a room)."""
    if entries:
        publish(race_group(slug), progress_frame(entries, *race_places(slug=slug)))


def _flush(slug: str) -> None:
    progress_sent(slug)
    _send(slug, _rooms().take(slug))


def _later(slug: str) -> None:
    """The trailing frame: the room's latest progress, once the gate opens again.
    Run on a timer's thread of its own: the database connection its places read
    opened goes back to the pool as the thread ends (a pool of them would run dry)."""
    try:
        rooms = _rooms()
        rooms.unpend(slug)
        if rooms.gate(slug):
            _flush(slug)
        elif rooms.pend(slug):
            _wait(slug)
    except Exception:
        log.warning("race %s: the trailing progress frame failed", slug, exc_info=True)
    finally:
        connections.close_all()


def _wait(slug: str) -> None:
    timer = threading.Timer(GATE_MS / 1000, _later, args=(slug,))
    timer.daemon = True
    timer.start()


_RACERS: dict[int, tuple[str, int, str]] = {}
"""Attempt id → (race id, race version when first looked up, player name): what
a racer's progress frame names, read once per attempt and process (none of it
changes while the attempt is played but the version, which only orders frames)."""
_RACERS_LOCK = threading.Lock()


def _racer_of(attempt_id: int) -> tuple[str, int, str] | None:
    with _RACERS_LOCK:
        found = _RACERS.get(attempt_id)
    if found is None:
        row = (
            Racer.objects.filter(attempt_id=attempt_id)
            .values_list("race__slug", "race__version", "player__username")
            .first()
        )
        if row is None:
            return None
        found = (row[0], row[1], row[2])
        with _RACERS_LOCK:
            if len(_RACERS) > 10_000:
                _RACERS.clear()
            _RACERS[attempt_id] = found
    return found


_LADDERS: dict[int, dict[str, Any]] = {}
"""Attempt id → its ladder as last kept by this process (``_ladder``): a racer's
actions mostly come through one socket, so the next step needs no cache read."""


def _ladder(attempt: Attempt, home: int) -> dict[str, Any]:
    """``attempt``'s ladder after its last action (``home`` cards home now), with
    the ``seq`` it is of: this process's or the cache's one step on when it is of
    the action before (the action's server time is the attempt's write,
    ``updated_at``: the log's ``ms``), else replayed from the log. To be kept
    again (in the cache, by ``racer_moved``) for the next action and the race's end."""
    kept = _LADDERS.get(attempt.pk)
    if kept is None or kept["seq"] not in (attempt.seq, attempt.seq - 1):
        first = attempt.seq == 1 and not attempt.finished  # its first action
        kept = {"seq": 0, "ladder": []} if first else cache.get(LADDER_KEY.format(attempt.pk))
    if kept is not None and kept.get("seq") == attempt.seq:
        ladder = list(kept["ladder"])  # a resignation: no action
    elif kept is not None and kept.get("seq") == attempt.seq - 1:
        ladder = list(kept["ladder"])
        ladder_step(ladder, ms=attempt.ms_since_start(attempt.updated_at), home=home)
    else:  # lost, or another process's step not kept yet
        ladder = home_ladder(attempt)
    kept = {"seq": attempt.seq, "ladder": ladder}
    with _RACERS_LOCK:
        if len(_LADDERS) > 10_000:
            _LADDERS.clear()
        _LADDERS[attempt.pk] = kept
    return kept


def _status(attempt: Attempt) -> str:
    if not attempt.finished:
        return Racer.Status.RACING
    return Racer.Status.WON if attempt.won else Racer.Status.RESIGNED


@receiver(sealed_attempt_changed, dispatch_uid="races.progress.racer_moved")
def racer_moved(sender: type[Attempt], *, attempt: Attempt, game: Game, **kwargs: Any) -> None:
    """After commit of a sealed attempt's change: its racer's progress to the room
    (coalesced), and its finish to the race."""
    try:
        found = _racer_of(attempt.pk)
        if found is None:
            return
        slug, version, player = found
        elapsed = attempt.elapsed_ms
        if elapsed is None:
            elapsed = attempt.ms_since_start(timezone.now())
        shown: dict[str, Any] = {**progress(game), "elapsed_ms": elapsed}
        ladder = _ladder(attempt, sum(shown["home"]))
        shown["home_ms"] = ladder_ms(ladder["ladder"])
        entry = encode(
            {
                "v": version,
                "racer": {
                    "player": player,
                    "progress": shown,
                    # A finish is said again, exactly, by the race frame that follows.
                    "status": _status(attempt),
                    "seq": attempt.seq,
                },
            }
        )
        # One round trip: the progress and ladder kept, the entry noted, the gate tried.
        keep = {PROGRESS_KEY.format(attempt.pk): shown, LADDER_KEY.format(attempt.pk): ladder}
        entries, pending = _rooms().note(slug, player, entry, keep)
        if entries is not None:
            _send(slug, entries)
        if pending:
            _wait(slug)
    except Exception:
        log.warning("race progress of %s not sent", attempt.pk, exc_info=True)
    if attempt.finished:
        racer_finished(attempt_id=attempt.pk)
