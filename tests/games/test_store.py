"""The action path's statements (games/store.py): an action on a game this
process played last is one compare-and-set statement on PostgreSQL (issue 38:
the attempt written only if its row is as cached, the log row only if it was);
any other is the lock and one write (the log row and the attempt in one
statement), the lock and two writes on SQLite; when the row moved under the
cache, nothing is written by the swap and the locked way answers from the row;
a seq logged already is never logged again and leaves the attempt as it was."""

from __future__ import annotations

import re

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from games import services, store
from games.engine import Game, Move, load_game, new_game
from games.models import Action, Attempt
from tests.support.api import Client, start, uses_postgres

PRACTICE_CODE = "SH1-C4-AAAAAJ2"


def legal_move(game: Game) -> Move:
    return next(m for m in game.legal_moves if isinstance(m, Move))


def played(player: Client, actions: int) -> tuple[int, User, Game]:
    """A practice game started through the API and ``actions`` moves applied by the
    service: (the attempt's id, its player, the engine game after them)."""
    attempt_id = start(player, code=PRACTICE_CODE)["id"]
    user = User.objects.get(username=player.username)
    game = new_game(PRACTICE_CODE)
    for seq in range(actions):
        move = legal_move(game)
        game.apply(move)
        services.attempt_apply_action(
            attempt_id=attempt_id, player=user, seq=seq, action=move.to_json()
        )
    return attempt_id, user, game


def statements_of(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"].split(None, 1)[0].upper() for q in queries.captured_queries]


SWAP = ["WITH"] if uses_postgres() else ["BEGIN", "UPDATE", "INSERT", "COMMIT"]
"""An action on a cached game: one statement (SQLite: no WITH … INSERT)."""
MISSED = ["WITH"] if uses_postgres() else ["BEGIN", "UPDATE", "COMMIT"]
"""The same when the row has moved: it writes nothing (SQLite: nor logs)."""


@pytest.mark.django_db(transaction=True)
def test_an_action_on_a_game_this_process_played_is_one_statement(player):
    """Issue 38: the first action read and locked the row; the next ones find
    the game cached and write by one compare and set, in autocommit."""
    attempt_id, user, game = played(player, 1)
    for seq in (1, 2):
        move = legal_move(game)
        with CaptureQueriesContext(connection) as queries:
            applied = services.attempt_apply_action(
                attempt_id=attempt_id, player=user, seq=seq, action=move.to_json()
            )
        # (After the write, a position worth a dead-end proof queues one: the
        # tests run tasks in process, so the proof's reads may follow.)
        assert statements_of(queries)[: len(SWAP)] == SWAP, queries.captured_queries
        if seq == 1:
            assert statements_of(queries) == SWAP, queries.captured_queries
        game.apply(move)
        assert not applied.duplicate and applied.attempt.seq == seq + 1
    attempt = Attempt.objects.get(pk=attempt_id)
    assert (attempt.seq, attempt.score, attempt.moves) == (3, game.score, game.moves)
    assert load_game(attempt.state) == game
    logged = Action.objects.filter(attempt_id=attempt_id).order_by("seq")
    assert [a.seq for a in logged] == [0, 1, 2]
    assert (logged[2].score, logged[2].moves) == (game.score, game.moves)


@pytest.mark.django_db(transaction=True)
def test_a_row_moved_under_the_cache_writes_nothing_and_is_answered_from_the_row(player):
    """Another process applied an action the cache does not know: the swap
    matches no row, logs nothing, and the locked way answers exactly — a
    resend is a duplicate, another action at that seq a conflict."""
    attempt_id, user, game = played(player, 1)
    stale = store.GAMES.take_entry(attempt_id)  # this process's copy at seq 1
    assert stale is not None
    move = legal_move(game)
    services.attempt_apply_action(  # "another process": no cached game, the lock
        attempt_id=attempt_id, player=user, seq=1, action=move.to_json()
    )
    game.apply(move)
    store.GAMES.take_entry(attempt_id)
    store.GAMES.put(*stale)  # the stale copy back: the row is at seq 2 now
    with CaptureQueriesContext(connection) as queries:
        again = services.attempt_apply_action(
            attempt_id=attempt_id, player=user, seq=1, action=move.to_json()
        )
    assert again.duplicate and again.attempt.seq == 2
    assert statements_of(queries)[: len(MISSED)] == MISSED  # tried, matched nothing
    assert statements_of(queries)[len(MISSED) :][:2] == ["BEGIN", "SELECT"]  # then the lock
    store.GAMES.take_entry(attempt_id)
    store.GAMES.put(*stale)
    other = next(m for m in load_game(stale[1].to_json()).legal_moves if m != move)
    with pytest.raises(services.ActionRefused) as refused:
        services.attempt_apply_action(
            attempt_id=attempt_id, player=user, seq=1, action=other.to_json()
        )
    assert refused.value.code == "seq_conflict" and refused.value.extra["seq"] == 2
    attempt = Attempt.objects.get(pk=attempt_id)
    assert attempt.seq == 2 and load_game(attempt.state) == game
    assert Action.objects.filter(attempt_id=attempt_id).count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_game_closed_by_a_job_while_cached_is_over_not_played(player):
    attempt_id, user, game = played(player, 1)
    Attempt.objects.filter(pk=attempt_id).update(status=Attempt.Status.ABANDONED)
    with pytest.raises(services.ActionRefused) as refused:
        services.attempt_apply_action(
            attempt_id=attempt_id, player=user, seq=1, action=legal_move(game).to_json()
        )
    assert refused.value.code == "finished"
    assert Action.objects.filter(attempt_id=attempt_id).count() == 1


@pytest.mark.django_db(transaction=True)
def test_an_action_the_cached_game_refuses_is_answered_from_the_row(player):
    """A refusal names the row's truth: an illegal move at the row's seq is
    illegal; nothing is written either way."""
    attempt_id, user, _ = played(player, 1)
    with pytest.raises(services.ActionRefused) as refused:
        services.attempt_apply_action(
            attempt_id=attempt_id,
            player=user,
            seq=1,
            action={"type": "move", "from": "f1", "to": "t1", "count": 1},
        )
    assert refused.value.code == "empty_pile"  # the engine's reason, as ever
    assert Attempt.objects.get(pk=attempt_id).seq == 1


@pytest.mark.django_db(transaction=True)
def test_an_accepted_action_is_the_lock_and_one_write(player):
    # The first action read the stored state; the second finds it in the cache,
    # taken out here as another process's would be: the lock, the stored state
    # read, and one write.
    attempt_id, user, game = played(player, 1)
    store.GAMES.take_entry(attempt_id)
    move = legal_move(game)
    with CaptureQueriesContext(connection) as queries:
        applied = services.attempt_apply_action(
            attempt_id=attempt_id, player=user, seq=1, action=move.to_json()
        )
    assert not applied.duplicate and applied.attempt.seq == 2
    statements = statements_of(queries)
    # PostgreSQL: the log row and the attempt in one statement; SQLite has no WITH … INSERT.
    writes = ["WITH"] if uses_postgres() else ["INSERT", "UPDATE"]
    assert statements == ["BEGIN", "SELECT", "SELECT", *writes, "COMMIT"], queries.captured_queries
    game.apply(move)
    attempt = Attempt.objects.get(pk=attempt_id)
    assert (attempt.seq, attempt.score, attempt.moves) == (2, game.score, game.moves)
    assert load_game(attempt.state) == game
    logged = Action.objects.get(attempt_id=attempt_id, seq=1)
    assert logged.sent == move.to_json()
    assert (logged.score, logged.moves) == (game.score, game.moves)


@pytest.mark.django_db(transaction=True)
def test_a_seq_logged_already_is_refused_and_the_attempt_left_as_it_was(player):
    attempt_id, _, game = played(player, 2)
    before = Attempt.objects.get(pk=attempt_id)
    with pytest.raises(IntegrityError), transaction.atomic():
        attempt = store.attempt_locked(attempt_id=attempt_id)
        assert attempt is not None
        moved = store.game_of(attempt)
        resolved = moved.apply(legal_move(moved))
        attempt.seq, attempt.score, attempt.moves = 99, moved.score, moved.moves
        store.action_write(
            attempt=attempt,
            seq=1,  # logged already
            now=timezone.now(),
            game=moved,
            sent=resolved.to_json(),
            resolved=resolved.to_json(),
        )
    after = Attempt.objects.get(pk=attempt_id)
    assert (after.seq, after.moves, after.state) == (2, before.moves, before.state)
    logged = Action.objects.filter(attempt_id=attempt_id).values_list("seq", flat=True)
    assert list(logged) == [0, 1]
    assert load_game(after.state) == game


ACTION_CHANGES = ("state", "seq", "score", "moves", "won", "elapsed_ms", "updated_at")
"""The attempt columns an action changes (``store._WRITE_SQL`` writes these, and
``status`` and ``finished_at``, which change only when the game ends)."""


@pytest.mark.django_db
def test_no_index_holds_a_column_every_action_changes():
    # Then PostgreSQL can write the attempt's UPDATE as a HOT update: a new row
    # version in the same page and no index entry, where an indexed column that
    # changes writes an entry in every index of the table (nine of them).
    if not uses_postgres():
        pytest.skip("HOT updates are PostgreSQL's")
    for column in ACTION_CHANGES:
        assert f"{column} = %s" in store._WRITE_SQL
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = %s::regclass",
            [Attempt._meta.db_table],
        )
        definitions = [d for (d,) in cursor.fetchall()]
    assert any("attempt_playing" in d for d in definitions), definitions
    for definition in definitions:
        # The key columns and a partial index's condition both count.
        indexed = definition.split(" USING ", 1)[1]
        for column in ACTION_CHANGES:
            assert not re.search(rf"\b{column}\b", indexed), (column, definition)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("code", [PRACTICE_CODE, "EH1-N-AAAAAAF"])
def test_the_engine_builds_an_actions_answer_once(player, monkeypatch, code):
    """Issue 38: an action's stored game and its answer come from one view of
    the position, one list of its moves, its dead end said once."""
    attempt_id = start(player, code=code)["id"]
    user = User.objects.get(username=player.username)
    game = new_game(code)
    calls: dict[str, int] = {}
    kind = type(game)
    for name in ("_full_view_built", "_generate_moves", "is_dead_end", "finishing_moves"):
        method = getattr(kind, name)

        def counted(self, *args, _method=method, _name=name, **kwargs):
            calls[_name] = calls.get(_name, 0) + 1
            return _method(self, *args, **kwargs)

        monkeypatch.setattr(kind, name, counted)
    for seq in range(3):  # the first goes the locked way, the next ones by the swap
        move = next(iter(game.legal_moves))
        game.apply(move)
        calls.clear()
        services.attempt_apply_action(
            attempt_id=attempt_id, player=user, seq=seq, action=move.to_json()
        )
        assert calls == {
            "_full_view_built": 1,
            "_generate_moves": 1,
            "is_dead_end": 1,
            "finishing_moves": 1,
        }, (seq, calls)
