"""Action JSON (PRODUCT.md, Actions) parsed strictly from untrusted input (RULES.md C20)."""

import json

import pytest

from games.engine import Action, DoubleTap, Move, Stock, Tap, Undo, new_game, parse_action
from games.engine.errors import IllegalActionError, MalformedError

ACTIONS = [
    Move("t3", "t7"),
    Move("t1", "t4", 3),
    Move("w", "f"),
    Move("f2", "t1"),
    Stock(),
    Tap("t3"),
    DoubleTap("t3"),
    DoubleTap("t2", 4),
    Undo(),
]


@pytest.mark.parametrize("action", ACTIONS, ids=repr)
def test_action_json_round_trips(action):
    assert Action.from_json(action.to_json()) == action
    assert parse_action(json.dumps(action.to_json())) == action


@pytest.mark.parametrize("action", ACTIONS, ids=repr)
def test_each_kind_reads_its_own_json(action):
    assert type(action).from_json(action.to_json()) == action


def test_a_kind_refuses_another_kinds_json():
    with pytest.raises(MalformedError) as info:
        Move.from_json(Undo().to_json())
    assert info.value.code == "bad_action_type"
    assert Tap.from_json(DoubleTap("t1").to_json()) == DoubleTap("t1")  # a double tap is a tap


@pytest.mark.parametrize("action", ACTIONS, ids=repr)
def test_action_repr_rebuilds_it(action):
    names = {"Move": Move, "Stock": Stock, "Tap": Tap, "DoubleTap": DoubleTap, "Undo": Undo}
    assert eval(repr(action), names) == action


def test_action_json_shapes():
    assert Move("t3", "t7").to_json() == {"type": "move", "from": "t3", "to": "t7", "count": 1}
    assert Tap("t3").to_json() == {"type": "tap", "from": "t3"}
    assert DoubleTap("t3", 2).to_json() == {"type": "double_tap", "from": "t3", "count": 2}
    assert Stock().to_json() == {"type": "stock"}
    assert Undo().to_json() == {"type": "undo"}
    # count defaults to 1
    assert Action.from_json({"type": "move", "from": "t3", "to": "t7"}) == Move("t3", "t7")
    # a tap and a double tap on the same pile are different actions
    assert Tap("t1") != DoubleTap("t1")


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"type": "move", "from": "t1", "to": "t2", "count": True}, "bad_count"),
        ({"type": "move", "from": "t1", "to": "t2", "count": 1.0}, "bad_count"),
        ({"type": "move", "from": "t1", "to": "t2", "count": "2"}, "bad_count"),
        ({"type": "move", "from": "t1", "to": "t2", "count": None}, "bad_count"),
        ({"type": "move", "from": "t1", "to": "t2", "count": 0}, "bad_count"),
        ({"type": "move", "from": "t1", "to": "t2", "count": -3}, "bad_count"),
        ({"type": "tap", "from": "t1", "count": False}, "bad_count"),
        ({"type": "move", "from": "t1"}, "missing_field"),
        ({"type": "move", "to": "t1"}, "missing_field"),
        ({"type": "tap"}, "missing_field"),
        ({"type": "move", "from": "t1", "to": "t2", "extra": 1}, "extra_field"),
        ({"type": "stock", "from": "s"}, "extra_field"),
        ({"type": "undo", "count": 1}, "extra_field"),
        ({"type": "fly"}, "bad_action_type"),
        ({"type": None}, "bad_action_type"),
        ({}, "bad_action_type"),
        ({"type": ["move"]}, "bad_action_type"),
        ({"type": "move", "from": "f", "to": "t2"}, "bad_pile"),
        ({"type": "tap", "from": "f"}, "bad_pile"),
        ({"type": "move", "from": 3, "to": "t2"}, "bad_pile"),
        ({"type": "move", "from": "t1", "to": None}, "bad_pile"),
        ([], "bad_action"),
        ("move", "bad_action"),
        (None, "bad_action"),
        (7, "bad_action"),
    ],
)
def test_c20_malformed_actions(data, code):
    with pytest.raises(MalformedError) as info:
        Action.from_json(data)
    assert info.value.code == code
    assert info.value.message


@pytest.mark.parametrize("text", ["", "{", "nope", '{"type": "move",}', "[" * 100_000])
def test_c20_bad_json_is_malformed(text):
    with pytest.raises(MalformedError) as info:
        parse_action(text)
    assert info.value.code == "bad_json"


@pytest.mark.parametrize(
    ("code", "data"),
    [
        ("EH1-N-AAAAAAB", {"type": "move", "from": "t10", "to": "t1"}),
        ("EH1-N-AAAAAAB", {"type": "move", "from": "c1", "to": "t1"}),
        ("EH1-N-AAAAAAB", {"type": "move", "from": "t1", "to": "f9"}),
        ("EH1-N-AAAAAAB", {"type": "tap", "from": "T1"}),
        ("SH1-C4-AAAAAAB", {"type": "move", "from": "s", "to": "t1"}),
        ("SH1-C4-AAAAAAB", {"type": "move", "from": "t1", "to": "w"}),
        ("SH1-C2-AAAAAAB", {"type": "move", "from": "t1", "to": "c3"}),
        ("SH1-C1-AAAAAAB", {"type": "double_tap", "from": "c2"}),
        ("SH1-C4-AAAAAAB", {"type": "move", "from": "t1", "to": "f5"}),
    ],
)
def test_c20_unknown_piles_of_this_game_are_malformed(code, data):
    game = new_game(code)
    before = game.to_json()
    with pytest.raises(MalformedError) as info:
        game.apply_json(data)
    assert info.value.code == "bad_pile"
    assert game.to_json() == before


def test_malformed_and_illegal_are_both_value_errors_but_distinct():
    game = new_game("SH1-C4-AAAAAAB")
    with pytest.raises(ValueError):
        game.apply_json({"type": "fly"})
    with pytest.raises(IllegalActionError) as info:
        game.apply(Undo())
    assert isinstance(info.value, ValueError)
    assert not isinstance(info.value, MalformedError)
    assert info.value.to_json() == {"code": "no_undo", "message": "There is nothing to undo."}
