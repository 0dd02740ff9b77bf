"""The saved form of a game (``to_json``/``load_game``) round-trips and trusts nothing."""

import copy
import json

import pytest

from games.engine import (
    GameCode,
    MalformedError,
    Move,
    Stock,
    Undo,
    load_game,
    new_game,
    replay,
)
from tests.support.toy_bakers import TOY_VARIANTS

KEY = "CNYUZSFWIH5KXM5EKJKWKKTRPX"


def played_log(code: str, n: int = 30) -> list[Move | Stock]:
    """Up to ``n`` actions of simple play from the deal: the first legal move, stock last."""
    game = new_game(code)
    log: list[Move | Stock] = []
    for _ in range(n):
        moves = [m for m in game.legal_moves if not isinstance(m, Stock)] or list(game.legal_moves)
        if not moves:
            break
        game.apply(moves[0])
        log.append(moves[0])
    return log


def played(code: str, n: int = 30) -> object:
    game = new_game(code)
    for action in played_log(code, n):
        game.apply(action)
    return game


@pytest.mark.parametrize(
    "code",
    [
        "EH1-N-AAAAAAF",
        "SH1-C4-AAAAAJ2",
        "SH1-C1-AAAAAJ2",
        f"EH1-N-{KEY}",  # long codes (C2b)
        f"SH1-C4-{KEY}",
        f"SH1-C1-{KEY}",
        *(f"{variant}-AAAAAJ2" for variant in TOY_VARIANTS),  # a third game (conftest)
        *(f"{variant}-{KEY}" for variant in TOY_VARIANTS),
    ],
)
def test_round_trip_through_json_text(code):
    game = played(code)
    game.apply(Undo())
    data = json.loads(json.dumps(game.to_json()))
    again = load_game(data)
    assert again == game
    assert again.to_json() == game.to_json()
    # the restored game goes on exactly like the original
    assert again.legal_moves and list(again.legal_moves) == list(game.legal_moves)


def test_saved_form_is_a_full_view_state():
    data = new_game("EH1-N-AAAAAAF").to_json()
    assert {"code", "piles", "down", "score", "moves", "won"} <= set(data)
    assert None not in data["piles"]["s"]


def mutate(data, path, value):
    data = copy.deepcopy(data)
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("code",), "SH1-C9-AAAAAJ2"),
        (("code",), None),
        (("ids", "t1"), [0, 0, 0, 0, 0]),
        (("ids", "zz"), []),
        (("piles", "t1"), ["AS"]),
        (("down", "t1"), 3),
        (("down", "t1"), "0"),
        (("score",), -5),
        (("score",), 1.5),
        (("moves",), True),
        (("won",), True),
        (("won",), "no"),
        (("history",), [{"action": {"type": "undo"}, "score": 0}]),
        (("history",), [{"action": {"type": "move", "from": "t1", "to": "c3"}}]),
        (("history",), "nope"),
        (("depth",), -1),
        (("scored",), [999]),
    ],
)
def test_load_refuses_inconsistent_states(path, value):
    data = played("SH1-C4-AAAAAJ2", 5).to_json()
    with pytest.raises(MalformedError):
        load_game(mutate(data, path, value))


def test_load_refuses_a_foundation_out_of_order_and_lost_cards():
    game = new_game("SH1-C4-AAAAAJ2")
    data = game.to_json()
    # put the top card of t1 (AH) on the spades foundation
    bad = mutate(data, ("ids", "t1"), data["ids"]["t1"][:-1])
    bad["ids"]["f1"] = data["ids"]["t1"][-1:]
    bad["piles"]["t1"] = data["piles"]["t1"][:-1]
    bad["piles"]["f1"] = data["piles"]["t1"][-1:]
    with pytest.raises(MalformedError, match="foundation f1"):
        load_game(bad)
    lost = mutate(data, ("ids", "c1"), [])
    lost["piles"]["c1"] = []
    with pytest.raises(MalformedError, match="exactly one pile"):
        load_game(lost)


@pytest.mark.parametrize("data", [None, [], "x", {"code": "SH1-C4-AAAAAJ2"}])
def test_load_refuses_non_states(data):
    with pytest.raises(MalformedError):
        load_game(data)


def test_undo_works_after_loading():
    game = new_game("SH1-C4-AAAAAJ2")
    game.apply(Move("t1", "c3"))
    again = load_game(game.to_json())
    again.apply(Undo())
    assert again.view(full=True)["piles"] == new_game("SH1-C4-AAAAAJ2").view(full=True)["piles"]


@pytest.mark.parametrize("code", [f"EH1-N-{KEY}", f"SH1-C4-{KEY}"])
def test_c2b_a_long_code_saves_and_replays(code):
    """The saved state names the long code in full; load and replay rebuild the game."""
    game = played(code, 20)
    data = json.loads(json.dumps(game.to_json()))
    assert data["code"] == code and data["variant"] == code[: code.rindex("-")]
    loaded = load_game(data)
    assert loaded == game and loaded.code == GameCode.parse(code) and loaded.code.long
    fresh = new_game(code.lower())
    log = [fresh.apply(action).to_json() for action in played_log(code, 20)]
    assert fresh == game and len(log) >= 7
    assert replay(code, log) == game
    assert replay(GameCode.parse(code), log) == game


def test_c2b_a_saved_long_code_is_checked_like_any_other():
    data = new_game(f"SH1-C4-{KEY}").to_json()
    for bad in (f"SH1-C4-{KEY[:-1]}", f"SH1-C4-I{KEY[1:]}", "SH1-C4-" + "A" * 26):
        with pytest.raises(MalformedError):
            load_game(mutate(data, ["code"], bad))


def test_face_down_cards_are_refused_by_the_games_declaration_not_its_card_count():
    """Whether a saved column may hold face-down cards is the game's ``hides_cards``:
    a 52-card game that deals some face down (a Klondike) must load its own state."""
    from games.engine.seahaven import Seahaven
    from games.engine.snapshot import restore

    class FaceDownSeahaven(Seahaven):  # 52 cards, some dealt face down
        hides_cards = True

    data = mutate(played("SH1-C4-AAAAAJ2", 5).to_json(), ("down", "t1"), 1)
    with pytest.raises(MalformedError, match="Seahaven Towers deals every card face up"):
        load_game(data)
    game = FaceDownSeahaven(data["code"])
    restore(game, data)
    assert game.down["t1"] == 1
