"""Auto-finish over the REST API (issue 15, deliverable 5): once only foundation
moves remain, the attempt's ``view.finish`` lists them; the client posts each
as an ordinary action — validated, logged with its server time, replayable —
and the game is won. Before that state (Easy Harp: a face-down card, or a card
in the stock or waste) the list is empty, and it never names a hidden card.
"""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from games.engine import Move, new_game, replay
from games.models import Action, Attempt
from games.selectors import attempt_json
from tests.support.api import Client
from tests.support.hidden import check_response, check_view, engine_state
from tests.support.search import find_win

CODES = {
    "EH1-N-AAAAAAE": 304,  # deal 4: the solver's line reaches the state 30 moves early
    "SH1-C4-AAAAAJ2": 61,  # 31 foundation moves early
}
"""A winning deal per game, and how many moves of the solver's line lead to the
first position where only foundation moves remain."""


def act(client: Client, attempt_id: int, seq: int, action: dict[str, Any]) -> Any:
    return client.send(f"/api/games/{attempt_id}/actions/", {"seq": seq, "action": action})


def play_to_the_finish(player: Client, code: str) -> tuple[int, dict[str, Any], int]:
    """Start ``code`` and post the solver's line until ``view.finish`` lists moves;
    every answer on the way is checked for hidden cards. Returns the attempt's id,
    the last answer and the number of actions posted."""
    line = find_win(code)
    assert line is not None
    response = player.send("/api/games/", {"code": code})
    assert response.status_code == 201, response.content
    body = response.json()
    attempt_id = body["id"]
    game = new_game(code)
    seq = 0
    while not body["view"]["finish"]:
        assert not game.won and seq < len(line)
        if code.startswith("EH1"):
            # Nothing is listed while a card is face down or left to draw.
            assert game.piles["s"] or game.piles["w"] or any(game.down.values())
        game.apply(line[seq])
        body = check_response(act(player, attempt_id, seq, line[seq].to_json()), attempt_id, code)
        seq += 1
    assert body["status"] == "playing"
    if code.startswith("EH1"):
        view = body["view"]
        assert not any(view["down"].values()) and not view["piles"]["s"] and not view["piles"]["w"]
        assert None not in (c for pile in view["piles"].values() for c in pile)
    return attempt_id, body, seq


@pytest.mark.parametrize("code", CODES)
def test_finish_moves_are_ordinary_logged_actions_that_win(player: Client, code: str) -> None:
    attempt_id, body, seq = play_to_the_finish(player, code)
    assert seq == CODES[code]
    finish = body["view"]["finish"]
    assert finish and all(set(a) == {"type", "from", "to", "count"} for a in finish)
    assert all(a["type"] == "move" and a["to"].startswith("f") for a in finish)
    expected_score = body["score"] + 10 * len(finish)  # +10 a card, none taken back (C3, C4)

    # The client posts them one by one, each with its seq, as any other action.
    for action in finish:
        assert body["status"] == "playing"
        body = check_response(act(player, attempt_id, seq, action), attempt_id, code)
        assert body["seq"] == seq + 1 and body["duplicate"] is False
        seq += 1
    assert body["status"] == "won" and body["won"] is True
    assert body["score"] == expected_score
    assert body["view"]["finish"] == [] and body["view"]["targets"] == []

    # Logged like any action: one Action row each, in order, with its server time.
    logged = list(Action.objects.filter(attempt_id=attempt_id).order_by("seq"))
    assert len(logged) == seq == Attempt.objects.get(pk=attempt_id).seq
    tail = logged[-len(finish) :]
    assert [row.action for row in tail] == finish
    assert [row.sent for row in tail] == finish
    ms = [row.ms for row in logged]
    assert ms == sorted(ms)

    # Replayable: the replay's log wins through the engine, the finish included.
    shown = player.get(f"/api/games/{attempt_id}/replay/")
    assert shown.status_code == 200, shown.content
    actions = shown.json()["actions"]
    assert actions[-len(finish) :] == finish
    assert len(shown.json()["log"]) == len(actions) == seq
    assert replay(code, actions).won


def test_a_finish_move_is_checked_like_any_other(player: Client) -> None:
    """Finishing moves are not trusted: one sent out of its order (its card cannot
    go up yet) is refused by the rules and logs nothing; the listed first one plays."""
    code = "SH1-C4-AAAAAJ2"
    attempt_id, body, seq = play_to_the_finish(player, code)
    finish = body["view"]["finish"]
    game = engine_state(attempt_id)
    early = next(
        a for a in finish if not game.is_legal(Move(a["from"], a["to"], a["count"]))
    )  # a later card: the foundation does not take it yet
    refused = act(player, attempt_id, seq, early)
    assert refused.status_code == 422, refused.content
    assert refused.json()["error"]["code"] in {"foundation_order", "foundation_suit"}
    assert Action.objects.filter(attempt_id=attempt_id).count() == seq
    body = check_response(act(player, attempt_id, seq, finish[0]), attempt_id, code)
    assert body["seq"] == seq + 1
    assert Action.objects.filter(attempt_id=attempt_id).count() == seq + 1


def test_the_finish_is_empty_once_the_game_is_resigned(player: Client) -> None:
    code = "SH1-C4-AAAAAJ2"
    attempt_id, body, _ = play_to_the_finish(player, code)
    assert body["view"]["finish"]
    resigned = player.send(f"/api/games/{attempt_id}/resign/")
    assert resigned.status_code == 200, resigned.content
    assert resigned.json()["status"] == "resigned"
    assert resigned.json()["view"]["finish"] == []
    assert player.get(f"/api/games/{attempt_id}/").json()["view"]["finish"] == []


def test_only_the_player_is_offered_the_finish(player: Client, make_player: Any) -> None:
    """Like ``targets``, ``finish`` is for the one who plays: a spectator of a
    practice game (its socket's snapshot and events are this object) sees the
    same position with both lists empty."""
    code = "SH1-C4-AAAAAJ2"
    attempt_id, body, _ = play_to_the_finish(player, code)
    assert body["view"]["finish"] and body["view"]["targets"]
    attempt = Attempt.objects.select_related("player", "daily").get(pk=attempt_id)
    spectator = User.objects.get(username=make_player().username)
    view = attempt_json(attempt, viewer=spectator)["view"]
    assert view["finish"] == [] and view["targets"] == []
    assert view["piles"] == body["view"]["piles"]
    assert attempt_json(attempt, viewer=attempt.player)["view"]["finish"] == body["view"]["finish"]


def test_the_hidden_information_checker_checks_the_finish() -> None:
    """``tests/support/hidden.py`` flags a finish shown while a card is face down or in the
    stock, and one that is not the engine's; the engine's own view passes."""
    game = new_game("EH1-N-AAAAAAF")
    view = {**game.view(), "targets": game.targets_json()}
    assert view["finish"] == []
    check_view(view, game, owner_playing=True, where="a fresh deal")
    leaky = {**view, "finish": [{"type": "move", "from": "t1", "to": "f1", "count": 1}]}
    with pytest.raises(AssertionError, match="a finish while cards are hidden"):
        check_view(leaky, game, owner_playing=False, where="leak")
    with pytest.raises(AssertionError, match="no finish"):
        check_view(
            {k: v for k, v in view.items() if k != "finish"},
            game,
            owner_playing=False,
            where="missing",
        )
