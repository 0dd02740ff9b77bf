"""Moves that land at once, and taps like the games people know (issue 24,
deliverables 2 and 3), in real Chromium against the live daphne.

The page's game socket goes through Playwright's websocket routing (``Relay``):
every frame passes unchanged to the real server and back, except the ones a
test holds back for a moment (an ``ack``: the server is slow) or loses (a
``state`` broadcast: best effort, games/websocket.md). So a test can look at
the board while the server's answer is still on its way — deterministically,
with no timing — and check it against our engine afterwards.
"""

from __future__ import annotations

from games.engine import DoubleTap, Move
from tests.support.browser import (
    EASY_HARP,
    WIN_CODE,
    api,
    assert_board_is,
    board_piles,
    card_locator,
    drag,
    moves_shown,
    post_actions,
    wait_moves,
    wait_still,
)
from tests.support.relay import (
    RECORD_SHAKES,
    TAP_NOW,
    relayed_practice,
    shown_now,
    wait_held,
)

# --- deliverable 2: moves land at once ---------------------------------------------


def test_a_drop_on_a_listed_target_lands_before_the_answer_and_the_ack_turns_the_card_up(
    new_page,
):
    page, relay, attempt, game = relayed_practice(new_page, EASY_HARP)
    assert_board_is(page, game)

    # t2's ace over one face-down card; the server lists f1 for it.
    move = Move("t2", "f1")
    assert "f1" in game.targets("t2", 1) and game.down["t2"] == 1
    relay.hold = {"ack"}
    drag(page, game, move)
    # Drawn before the server answered: the ace on f1, the uncovered card still
    # face down (the client never guesses a card), nothing counted yet.
    shown = board_piles(page)
    assert shown["f1"] == ["AS"] and shown["t2"] == [None], shown
    assert moves_shown(page) == 0
    wait_held(page, relay, "ack")
    assert relay.actions() == [{"type": "move", "from": "t2", "to": "f1", "count": 1}]
    relay.release()  # the answer: the uncovered card arrives face up with it
    game.apply(move)
    wait_moves(page, game.moves)
    assert_board_is(page, game)
    assert game.view()["piles"]["t2"] == ["6D"]

    # A tap ("best", the default) whose card has a single listed pile lands at once too.
    seq = post_actions(
        page, attempt, game.moves, [m.to_json() for m in (Move("t4", "f3"), Move("t5", "f4"))]
    )
    game.apply(Move("t4", "f3"))
    game.apply(Move("t5", "f4"))
    wait_moves(page, seq)
    assert_board_is(page, game)
    wait_still(page)
    assert game.targets("t2", 1) == ["t1"]
    relay.hold = {"ack"}
    now = page.evaluate(TAP_NOW, ["t2", 0])
    assert now["waiting"], "the tap was not sent at once"
    assert now["piles"]["t1"] == ["7C", "6D"] and now["piles"]["t2"] == [], now
    assert shown_now(page, "t1") == ["7C", "6D"]
    wait_held(page, relay, "ack")
    assert relay.actions()[-1] == {"type": "double_tap", "from": "t2"}
    relay.release()
    game.apply(DoubleTap("t2"))
    wait_moves(page, game.moves)
    assert_board_is(page, game)


def test_a_refused_move_that_had_landed_goes_back_to_the_servers_position(new_page):
    page, relay, attempt, game = relayed_practice(new_page, WIN_CODE)
    assert_board_is(page, game)
    before = game.copy()

    # Another tab of the same player moves first, and this page does not hear of
    # it (a broadcast lost): its next move, to a pile its targets list, is stale.
    other = page.context.new_page()
    other.goto("/")
    relay.drop = {"state"}
    post_actions(other, attempt, 0, [{"type": "move", "from": "t10", "to": "t9", "count": 1}])
    game.apply(Move("t10", "t9"))
    page.evaluate(RECORD_SHAKES)
    relay.hold = {"snapshot"}  # the position the refusal asks for comes a moment later
    assert "c3" in before.targets("t1", 1)
    drag(page, before, Move("t1", "c3"))
    assert shown_now(page, "c3") == ["AH"]  # landed at once

    # Refused (seq_conflict): the server's last position comes back, the board shakes.
    page.wait_for_function("() => document.querySelector('#message').textContent.trim() !== ''")
    assert_board_is(page, before)
    assert page.evaluate("window.__shakes"), "no refusal shake"
    assert moves_shown(page) == 0
    # Then the position the server has now (the other tab's move), and play goes on.
    wait_held(page, relay, "snapshot")
    relay.drop = set()
    relay.release()
    wait_moves(page, 1)
    assert_board_is(page, game)
    drag(page, game, Move("t1", "c3"))
    game.apply(Move("t1", "c3"))
    wait_moves(page, game.moves)
    assert_board_is(page, game)


def test_a_landed_move_stays_through_a_reconnect_and_is_sent_again_with_its_seq(new_page):
    page, relay, _, game = relayed_practice(new_page, WIN_CODE)
    assert_board_is(page, game)

    # The action is lost on its way and the socket drops: the page connects
    # again, gets a snapshot at the same version (still 0) and sends the same
    # seq again; the move stays drawn all along.
    relay.lose_actions = True
    drag(page, game, Move("t10", "t9"))
    assert shown_now(page, "t9")[-1] == "JH"
    relay.lose_actions = False
    relay.hold = {"ack"}
    relay.cut()
    page.wait_for_function(
        "() => document.querySelector('#connection').dataset.state !== 'open'", timeout=5000
    )
    page.wait_for_selector("#connection[data-state=open]", timeout=15_000)
    wait_held(page, relay, "ack")
    assert shown_now(page, "t9")[-1] == "JH" and moves_shown(page) == 0
    frames = [f for f in relay.sent if "action" in f]
    assert [f["seq"] for f in frames] == [0, 0], frames
    relay.release()
    game.apply(Move("t10", "t9"))
    wait_moves(page, 1)
    assert_board_is(page, game)


# --- deliverable 3: taps like the games people know ---------------------------------


def test_one_tap_plays_a_card_with_no_foundation_to_its_best_place_at_once(new_page):
    page, relay, _, game = relayed_practice(new_page, WIN_CODE)
    wait_still(page)
    assert api(page, "GET", "/api/auth/settings/")["tap"] == "best"  # the default

    # JH of t10 has no foundation (a tap "foundation" would be refused); the
    # double tap's order (C14) puts it on t9's QH. Several piles are listed for
    # it (t9, c3, c4): which one is the engine's to say, so it is drawn with the ack.
    assert game.view()["piles"]["t10"][-1] == "JH" and len(game.targets("t10", 1)) > 1
    now = page.evaluate(TAP_NOW, ["t10", 4])
    assert now["waiting"], "a single tap waited for a second one"
    resolved = game.apply(DoubleTap("t10"))
    assert resolved == Move("t10", "t9")
    wait_moves(page, game.moves)
    assert_board_is(page, game)
    assert relay.actions() == [{"type": "double_tap", "from": "t10"}]
    assert page.inner_text("#message").strip() == ""

    # A double click is one double tap, not two.
    wait_still(page)
    card_locator(page, "t2", 4).dblclick()
    game.apply(DoubleTap("t2"))
    wait_moves(page, game.moves)
    page.wait_for_timeout(400)
    assert relay.actions()[1:] == [{"type": "double_tap", "from": "t2"}]
    assert moves_shown(page) == game.moves
    assert_board_is(page, game)


def test_tap_foundation_keeps_the_apps_tap_and_is_set_in_the_dialog(new_page):
    page, relay, _, game = relayed_practice(new_page, WIN_CODE)

    page.click("#settings-open")
    assert page.is_checked("input[name=tap][value=best]")
    page.check("input[name=tap][value=foundation]")
    page.wait_for_function(
        "() => document.querySelector('#settings-status').textContent.includes('Saved')"
    )
    page.click("#settings-close")
    assert api(page, "GET", "/api/auth/settings/")["tap"] == "foundation"
    page.reload()
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    wait_still(page)

    # A tap sends "tap": to a foundation. t1's AH goes to f2; t10's JH has none.
    card_locator(page, "t1", 4).click()
    game.apply(Move("t1", "f2"))
    wait_moves(page, game.moves)
    assert_board_is(page, game)
    card_locator(page, "t10", 4).click()
    page.wait_for_function("() => document.querySelector('#message').textContent.trim() !== ''")
    assert "foundation" in page.inner_text("#message").lower()
    assert relay.actions() == [{"type": "tap", "from": "t1"}, {"type": "tap", "from": "t10"}]
    assert moves_shown(page) == game.moves
    # And a double click still sends a double tap.
    wait_still(page)
    card_locator(page, "t10", 4).dblclick()
    game.apply(DoubleTap("t10"))
    wait_moves(page, game.moves)
    assert relay.actions()[-1] == {"type": "double_tap", "from": "t10", "count": 1}
    assert_board_is(page, game)


def test_a_signed_out_visitor_keeps_the_tap_setting_in_this_browser(new_page):
    page = new_page()
    page.goto("/")
    page.click("#settings-open")
    assert page.is_checked("input[name=tap][value=best]")
    page.check("input[name=tap][value=foundation]")
    page.wait_for_function(
        "() => document.querySelector('#settings-status').textContent.includes('Saved')"
    )
    stored = page.evaluate("() => JSON.parse(localStorage.getItem('patience-settings'))")
    assert stored["tap"] == "foundation"
    page.reload()
    page.click("#settings-open")
    assert page.is_checked("input[name=tap][value=foundation]")
