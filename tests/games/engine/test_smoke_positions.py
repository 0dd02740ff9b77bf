from games.engine import Move
from tests.support.positions import position, texts


def test_position_builds_named_piles_and_twins_are_distinct():
    game = position("EH1-N-AAAAAAB", t1="8S", t2="7H 7H", down={"t2": 1})
    assert texts(game, "t2") == ["7H", "7H"]
    assert game.piles["t2"][0].id != game.piles["t2"][1].id
    game.apply(Move("t2", "t1"))
    assert texts(game, "t1") == ["8S", "7H"] and game.down["t2"] == 0
