"""The attempts and their actions as stored: the one lock every change of an
attempt goes through, the action path's prepared SQL, and the cache of the
engine games this process played.

Every action runs through here, so it is written for its cost (issue 14). An
action on a game this process played last (``GameCache``: the attempt as
committed and its engine game) is one round trip to PostgreSQL (issue 38,
``action_swap``): one statement, in autocommit, writes the attempt only if its
row still says the ``seq``, start and status the cache holds — a compare and
set — and logs the action only if it did. Any other action takes the lock:
the attempt row is locked and read by one statement without its 5 KB state
(read only when the cache has no game), the log row and the attempt written by
one more (two on SQLite): with ``BEGIN`` and ``COMMIT``, four round trips.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import threading
from typing import Any

from django.db import connection, transaction

from games.engine import Game, load_game

from .models import Action, Attempt, DailyDeal, log_month

_A = Attempt._meta.db_table
_D = DailyDeal._meta.db_table
_LOCK_COLUMNS = (
    "id",
    "player_id",
    "deal_id",
    "daily_id",
    "ranked",
    "status",
    "seq",
    "score",
    "moves",
    "won",
    "started_at",
    "updated_at",
    "finished_at",
    "elapsed_ms",
    "verified",
    "lost_seq",
    "proven",
    "sealed",
)
# In the model's field order: ``Attempt.from_db`` reads the values in that order.
assert list(_LOCK_COLUMNS) == [
    f.attname for f in Attempt._meta.concrete_fields if f.attname in _LOCK_COLUMNS
]
_LOCK_SQL = (
    f"SELECT {', '.join(f'a.{c}' for c in _LOCK_COLUMNS)}, d.date, d.variant"
    f" FROM {_A} a LEFT JOIN {_D} d ON d.id = a.daily_id WHERE a.id = %s"
)
_STATE_SQL = f"SELECT state FROM {_A} WHERE id = %s"
_LOG_SQL = (
    f"INSERT INTO {Action._meta.db_table} (attempt_id, seq, month, sent, action, ms, score, moves)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)
_WRITE_SQL = (
    f"UPDATE {_A} SET state = %s, seq = %s, score = %s, moves = %s, won = %s, status = %s,"
    " finished_at = %s, elapsed_ms = %s, updated_at = %s WHERE id = %s"
)
# Both in one statement, one round trip: on PostgreSQL a data-modifying WITH (SQLite
# has none). The INSERT and the UPDATE succeed or fail together; the log's key
# refuses a seq logged already, so the attempt is then not written either. The
# seq is still checked first, under the lock (``games.services``): the key is
# the last guard, not the check that answers a resend.
_LOG_AND_WRITE_SQL = f"WITH logged AS ({_LOG_SQL}) {_WRITE_SQL}"
# The compare and set (issue 38): the attempt written only if its row is as the
# cache holds it — the same seq and start, still playing — and the action logged
# only if it was; one statement, one round trip, in autocommit. It answers how
# many rows it wrote: 0, someone else moved the game (another process, a job
# that closed it) and the caller takes the lock.
_SWAP_WHERE = " AND seq = %s AND started_at = %s AND status = 'playing'"
_SWAP_SQL = (
    f"WITH moved AS ({_WRITE_SQL}{_SWAP_WHERE} RETURNING id),"
    f" logged AS (INSERT INTO {Action._meta.db_table}"
    " (attempt_id, seq, month, sent, action, ms, score, moves)"
    " SELECT id, %s, %s::date, %s::jsonb, %s::jsonb, %s, %s, %s FROM moved)"
    " SELECT count(*) FROM moved"
)


def _aware(moment: dt.datetime | None) -> dt.datetime | None:
    # PostgreSQL answers aware datetimes; SQLite naive ones, in UTC.
    return moment.replace(tzinfo=dt.UTC) if moment and moment.tzinfo is None else moment


def attempt_locked(*, attempt_id: int) -> Attempt | None:
    """The attempt lock: the row of ``attempt_id`` locked until the transaction
    ends (SQLite has no row lock: its one writer at a time serialises the same),
    or None when there is no such attempt. Every change of an attempt goes
    through here. The Attempt comes with its daily deal and without its
    ``state`` (deferred: read only if asked, see ``game_of``); any other field
    not read here (``player``, ``deal``, …) loads when asked."""
    lock = " FOR UPDATE OF a" if connection.features.has_select_for_update_of else ""
    with connection.cursor() as cursor:
        cursor.execute(_LOCK_SQL + lock, [attempt_id])
        row = cursor.fetchone()
    if row is None:
        return None
    values = dict(zip(_LOCK_COLUMNS, row, strict=False))
    for moment in ("started_at", "updated_at", "finished_at"):
        values[moment] = _aware(values[moment])
    attempt = Attempt.from_db(connection.alias, list(values), list(values.values()))
    if attempt.daily_id is not None:
        date, variant = row[len(_LOCK_COLUMNS) :]
        if isinstance(date, str):
            date = dt.date.fromisoformat(date)
        attempt.daily = DailyDeal.from_db(
            connection.alias, ["id", "date", "variant"], [attempt.daily_id, date, variant]
        )
    return attempt


class GameCache:
    """The engine games this process played last, so that an action need not read
    and rebuild its game from the stored state (5 KB; ~0.3 ms). An entry is the
    attempt as committed (a copy: nobody else holds it) and its game after
    ``seq`` actions; it is trusted only when the attempt's row says the same
    ``seq`` and start — any process may have applied an action since: the
    locked row is compared (``take``), or the write itself compares
    (``action_swap``). An entry is taken out while an action changes it and put
    back once that is committed, so a rolled-back change is never kept, and
    two threads never play one game."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.games: dict[int, tuple[Attempt, Game]] = {}
        self.lock = threading.Lock()

    def take(self, attempt: Attempt) -> Game | None:
        """The game of the locked ``attempt``, if the cache's is at its seq."""
        with self.lock:
            entry = self.games.pop(attempt.pk, None)
        if entry is None or _mark(entry[0]) != _mark(attempt):
            return None
        return entry[1]

    def take_entry(self, attempt_id: int) -> tuple[Attempt, Game] | None:
        """The attempt as this process last committed it, and its game; the
        caller puts them back (``put``) or drops them."""
        with self.lock:
            return self.games.pop(attempt_id, None)

    def put(self, attempt: Attempt, game: Game) -> None:
        kept = copy.copy(attempt)
        with self.lock:
            self.games.pop(attempt.pk, None)
            self.games[attempt.pk] = (kept, game)
            while len(self.games) > self.size:
                del self.games[next(iter(self.games))]


def _mark(attempt: Attempt) -> tuple[dt.datetime, int]:
    return (attempt.started_at, attempt.seq)


GAMES = GameCache(size=4096)


def game_of(attempt: Attempt) -> Game:
    """The locked attempt's game, taken from this process's cache (put it back with
    ``GAMES.put`` once a change is committed, or at once if nothing changed) or
    else built from its stored state."""
    game = GAMES.take(attempt)
    if game is None:
        with connection.cursor() as cursor:
            cursor.execute(_STATE_SQL, [attempt.pk])
            (state,) = cursor.fetchone()
        game = load_game(json.loads(state) if isinstance(state, str) else state)
    return game


def _row_values(
    *,
    attempt: Attempt,
    seq: int,
    now: dt.datetime,
    game: Game,
    sent: dict[str, Any],
    resolved: dict[str, Any],
) -> tuple[list[Any], list[Any]]:
    """The parameters of the action's log row (``_LOG_SQL`` but the attempt id,
    which leads it) and of the attempt's write (``_WRITE_SQL``), adapted once."""
    ops = connection.ops
    adapt_json, adapt_time = ops.adapt_json_value, ops.adapt_datetimefield_value
    log = [
        seq,
        # The partition key: a function of the attempt (games/partitions.py).
        ops.adapt_datefield_value(log_month(attempt.started_at)),
        adapt_json(sent, None),
        adapt_json(resolved, None),
        attempt.ms_since_start(now),
        game.score,
        game.moves,
    ]
    write = [
        adapt_json(game.to_json(), None),
        attempt.seq,
        attempt.score,
        attempt.moves,
        attempt.won,
        attempt.status,
        adapt_time(attempt.finished_at),
        attempt.elapsed_ms,
        adapt_time(now),
        attempt.pk,
    ]
    return log, write


def action_write(
    *,
    attempt: Attempt,
    seq: int,
    now: dt.datetime,
    game: Game,
    sent: dict[str, Any],
    resolved: dict[str, Any],
) -> None:
    """Log action ``seq`` (as sent and as resolved) and write the attempt after it
    (``game``: its position now), in the caller's transaction, under the attempt
    lock: one prepared statement on PostgreSQL, two on SQLite."""
    log, write = _row_values(
        attempt=attempt, seq=seq, now=now, game=game, sent=sent, resolved=resolved
    )
    log = [attempt.pk, *log]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(_LOG_AND_WRITE_SQL, log + write)
        else:
            cursor.execute(_LOG_SQL, log)
            cursor.execute(_WRITE_SQL, write)


def action_swap(
    *,
    attempt: Attempt,
    was: tuple[dt.datetime, int],
    seq: int,
    now: dt.datetime,
    game: Game,
    sent: dict[str, Any],
    resolved: dict[str, Any],
) -> bool:
    """Log action ``seq`` and write the attempt after it, as ``action_write``,
    but with no lock: only if the row is still at ``was`` (its start and seq)
    and playing — one statement in autocommit on PostgreSQL (two in a
    transaction on SQLite). Whether it wrote: False, nothing was written."""
    log, write = _row_values(
        attempt=attempt, seq=seq, now=now, game=game, sent=sent, resolved=resolved
    )
    write += [was[1], connection.ops.adapt_datetimefield_value(was[0])]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_SWAP_SQL, write + log)
            (written,) = cursor.fetchone()
        return bool(written)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_WRITE_SQL + _SWAP_WHERE, write)
        if cursor.rowcount != 1:
            return False
        cursor.execute(_LOG_SQL, [attempt.pk, *log])
    return True


def action_sent(*, attempt: Attempt, seq: int) -> dict[str, Any] | None:
    """Action ``seq`` of the attempt as it was sent, if logged."""
    return Action.objects.filter(attempt=attempt, seq=seq).values_list("sent", flat=True).first()
