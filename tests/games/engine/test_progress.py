"""``games.engine.progress``: a race's view of a game is counts, never a card."""

from __future__ import annotations

import json
import random

from games.engine import Move, Undo, new_game, progress
from tests.support.hidden import CARD


def test_a_fresh_deal_has_nothing_home_and_nothing_uncovered():
    assert progress(new_game("SH1-C4-AAAAAAE")) == {
        "home": [0, 0, 0, 0],
        "uncovered": 0,
        "moves": 0,
    }
    eh = progress(new_game("EH1-N-AAAAAAF"))
    assert eh == {"home": [0] * 8, "uncovered": 0, "moves": 0}


def test_home_counts_each_foundation_and_moves_count():
    game = new_game("SH1-C4-AAAAAAE")
    game.apply(Move("t4", "f3"))  # the A♦ home (tests/games/test_consumers.py: FIRST)
    assert progress(game) == {"home": [0, 0, 1, 0], "uncovered": 0, "moves": 1}
    game.apply(Undo())
    assert progress(game)["home"] == [0, 0, 0, 0]


def test_easy_harp_counts_the_cards_turned_up_and_undo_takes_them_back():
    rng = random.Random(29)
    for number in range(1, 40):
        game = new_game(f"EH1-N-AAAAA{'ABCDEFGHJK'[number % 10]}{'ABCDEFGHJK'[number // 10]}")
        dealt = sum(game.down.values())
        for _ in range(60):
            moves = list(game.legal_moves)
            if not moves:
                break
            game.apply(rng.choice(moves))
            shown = progress(game)
            assert shown["uncovered"] == dealt - sum(game.down.values())
            assert sum(shown["home"]) == sum(len(game.piles[f]) for f in game.foundations)
            assert shown["moves"] == game.moves
            assert not CARD.findall(json.dumps(shown))
        if game.history:
            before = progress(game)
            turned = game.history[-1].turned
            game.apply(Undo())
            assert progress(game)["uncovered"] == before["uncovered"] - (1 if turned else 0)
