"""Whole games played to a win through the engine, one deal per variant.

The winning line is found at test time by the product solver (``search.py``;
only the deal numbers are fixed here), then checked: the final score, every card home, every
action refused once the game is won (RULES.md C19), :func:`replay` and the
engine's command line giving the same game.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import (
    DoubleTap,
    Game,
    IllegalActionError,
    Move,
    Stock,
    Tap,
    Undo,
    encode_deal,
    load_game,
    new_game,
    replay,
)
from tests.support.search import find_win

REPO = Path(__file__).resolve().parents[3]
RANKS = "A23456789TJQK"

DEALS = {"EH1-N": 24, "SH1-C4": 4, "SH1-C2": 12, "SH1-C1": 625}
"""A winnable deal per variant (found by trying deal numbers)."""

CODES = [f"{variant}-{encode_deal(number)}" for variant, number in DEALS.items()]

Line = list[Move | Stock]


@pytest.fixture(scope="module", params=CODES)
def won(request: pytest.FixtureRequest) -> tuple[str, Line, Game]:
    """The deal's code, the winning line, and the game played along it step by step."""
    code: str = request.param
    line = find_win(code)
    assert line is not None, f"the solver found no win for {code} within its budget"
    game = new_game(code)
    for index, action in enumerate(line):
        assert not game.won, f"won before the end of the line, at step {index}"
        # The line is made of concrete, resolved actions: each one comes back unchanged.
        assert game.apply(action) == action
    return code, line, game


def waste_to_column(line: Line) -> int:
    return sum(
        1 for a in line if isinstance(a, Move) and a.source == "w" and a.target.startswith("t")
    )


def test_the_line_wins_with_the_full_score(won: tuple[str, Line, Game]) -> None:
    code, line, game = won
    assert game.won
    assert game.moves == len(line)  # every accepted action counts once (C5)
    if code.startswith("SH1"):
        assert game.score == 520  # 52 cards × 10 (C4)
    else:
        # 104 × 10 + 36 × 5, plus 5 per card from the waste to a column (A, C3).
        assert game.score == 1220 + 5 * waste_to_column(line)
    view = game.view(full=True)
    assert view["won"] is True
    assert view["dead_end"] is False
    assert view["score"] == game.score


def test_every_card_is_on_its_foundation(won: tuple[str, Line, Game]) -> None:
    _, _, game = won
    assert sum(len(game.piles[f]) for f in game.foundations) == game.n_cards
    for pid in game.piles:
        if not pid.startswith("f"):
            assert game.piles[pid] == [], pid
    assert all(n == 0 for n in game.down.values())
    piles = game.view(full=True)["piles"]
    for spot, suit in game.spot_suit.items():
        assert piles[spot] == [rank + suit.name for rank in RANKS], spot


def refused_actions(game: Game) -> list[object]:
    actions: list[object] = [Undo(), Stock(), Move("f1", "t1"), Move("f1", "f"), Move("t1", "f")]
    actions += [Move("f1", cell) for cell in game.cells]
    actions += [Tap(t) for t in game.columns] + [DoubleTap(t) for t in game.columns]
    if "w" in game.piles:
        actions += [Move("w", "f"), Tap("w"), DoubleTap("w")]
    return actions


def test_after_the_win_every_action_is_refused(won: tuple[str, Line, Game]) -> None:
    _, _, game = won
    before = game.copy()
    assert list(game.legal_moves) == []
    for action in refused_actions(game):
        with pytest.raises(IllegalActionError) as refused:
            game.apply(action)  # type: ignore[arg-type]
        assert refused.value.code == "game_over", action
    assert game == before  # refusals change nothing, not even the move counter


def test_replay_gives_the_same_game(won: tuple[str, Line, Game]) -> None:
    code, line, game = won
    assert replay(code, [a.to_json() for a in line]) == game
    assert replay(code, line) == game
    restored = load_game(json.loads(json.dumps(game.to_json())))
    assert restored == game
    with pytest.raises(IllegalActionError) as refused:
        restored.apply(Undo())
    assert refused.value.code == "game_over"


def run_cli(code: str, lines: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games.engine", "replay", code],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )


def test_command_line_replay_wins(won: tuple[str, Line, Game]) -> None:
    code, line, game = won
    result = run_cli(code, [json.dumps(a.to_json()) for a in line])
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert state["won"] is True
    assert state["score"] == game.score
    assert state == game.view(full=True)


def test_command_line_stops_at_a_refused_action(won: tuple[str, Line, Game]) -> None:
    code, line, _ = won
    # After the win even undo is refused: the command names the line and the reason.
    lines = [json.dumps(a.to_json()) for a in line] + ['{"type": "undo"}']
    result = run_cli(code, lines)
    assert result.returncode != 0
    assert result.stdout == ""
    assert f"line {len(line) + 1}: game_over:" in result.stderr
    # At the start there is nothing to undo.
    result = run_cli(code, ['{"type": "undo"}', json.dumps(line[0].to_json())])
    assert result.returncode != 0
    assert result.stdout == ""
    assert "line 1: no_undo:" in result.stderr
