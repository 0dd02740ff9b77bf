"""The action path's statements (games/store.py): an accepted action is the lock
and one write on PostgreSQL (the log row and the attempt in one statement), the
lock and two writes on SQLite; a seq logged already is never logged again and
leaves the attempt as it was."""

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


@pytest.mark.django_db(transaction=True)
def test_an_accepted_action_is_the_lock_and_one_write(player):
    # The first action read the stored state; the second finds the game cached.
    attempt_id, user, game = played(player, 1)
    move = legal_move(game)
    with CaptureQueriesContext(connection) as queries:
        applied = services.attempt_apply_action(
            attempt_id=attempt_id, player=user, seq=1, action=move.to_json()
        )
    assert not applied.duplicate and applied.attempt.seq == 2
    statements = [q["sql"].split(None, 1)[0].upper() for q in queries.captured_queries]
    # PostgreSQL: the log row and the attempt in one statement; SQLite has no WITH … INSERT.
    writes = ["WITH"] if uses_postgres() else ["INSERT", "UPDATE"]
    assert statements == ["BEGIN", "SELECT", *writes, "COMMIT"], queries.captured_queries
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
