"""A move met by a database that does not answer is sent again, not refused
(issue 25): the server answers such an action 503 ``unavailable`` (an ``error``
frame on the socket) after its bounded wait, nothing applied; the page keeps
the move in flight and sends it again, the same ``seq``, after the server's
``Retry-After``. Here the stall is the game's row held locked by another
session (the server's ``DB_LOCK_TIMEOUT`` is 3 s) for longer than that.
Before, the page took the 503 for a refusal: the move was dropped.
"""

from __future__ import annotations

import time

import psycopg

from tests.support.browser import sign_up, start_practice, wait_moves

HOLD_S = 6.0  # longer than the server's lock timeout (3 s), shorter than its Retry-After + 3


def test_a_move_met_by_a_stalled_database_is_sent_again(new_page, server):
    page = new_page()
    sign_up(page)
    attempt = start_practice(page, "EH1-N-AAAAAAE")
    url = server.env["DATABASE_URL"].replace("postgres://", "postgresql://", 1)
    with psycopg.connect(url) as holder:
        holder.execute("SELECT 1 FROM games_attempt WHERE id = %s FOR UPDATE", [attempt])
        page.click('#board .pile[data-pile="s"]')  # a stock tap: one action
        time.sleep(HOLD_S)  # the server has answered it 503 by now
        holder.rollback()
    wait_moves(page, 1)  # sent again and accepted, with no tap of the player's
    stored = server.python(
        "from games.models import Action\n"
        f"result = list(Action.objects.filter(attempt_id={attempt}).values_list('seq', flat=True))"
    )
    assert stored == [0], stored
