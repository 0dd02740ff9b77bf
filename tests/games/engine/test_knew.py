"""What the player knew (games/engine/knew.py, issue 36): the standing line, what
was seen, deals consistent with it, the verdict and its command line."""

from __future__ import annotations

import io
import json
import random
from collections import Counter

import pytest

from games.engine import Move, Stock, Undo, new_game, solve
from games.engine import knew as K
from games.engine.cli import main
from games.engine.dayfile import write_day

CODE = "EH1-N-AAAAAAF"


@pytest.fixture(scope="module")
def proof() -> list[dict[str, object]]:
    return [a.to_json() for a in solve(new_game(CODE)).line]


def _uncovering(game) -> Move:
    """A legal card move that turns up a face-down card."""
    for move in game.legal_moves:
        if isinstance(move, Move) and move.source[0] == "t":
            pile = game.piles[move.source]
            if game.down[move.source] and len(pile) - move.count == game.down[move.source]:
                return move
    raise AssertionError("no move uncovers a card here")


def test_the_standing_line_drops_undone_actions_and_keeps_what_they_showed():
    game = new_game(CODE)
    look = _uncovering(game)
    log = [look.to_json()]
    game.apply(look)
    shown = game.piles[look.source][-1].id
    log += [{"type": "undo"}, {"type": "stock"}]
    line, seen = K.standing(CODE, log)
    assert [s.action for s in line] == [Stock()]
    assert shown in line[0].seen  # seen while exploring, before the standing draw
    assert shown in seen
    fresh = new_game(CODE)
    assert shown not in K._visible(fresh)


def test_a_consistent_deal_keeps_every_seen_card_in_place_and_the_same_cards():
    game = new_game(CODE)
    seen = frozenset(K._visible(game))
    sample = K.consistent_deal(game, seen, random.Random(7))
    for pid, pile in game.piles.items():
        for card, other in zip(pile, sample.piles[pid], strict=True):
            if card.id in seen:
                assert other.id == card.id
    everything = Counter(c.id for p in game.piles.values() for c in p)
    assert Counter(c.id for p in sample.piles.values() for c in p) == everything
    assert sample.piles != game.piles  # the unseen ones moved
    assert K.unseen(game, seen) == 95  # 36 face down, 59 in the stock


def test_a_decision_is_a_choice_made_while_cards_were_unseen(proof):
    line, _ = K.standing(CODE, proof)
    chosen = K.decisions(line, limit=100)
    assert chosen
    for step in chosen:
        assert isinstance(step.action, Move)
        assert K.unseen(step.before, step.seen) > 0
        assert len(K.choices(step.before)) >= 2
    # Once every card has been seen there is nothing left to judge.
    last = line[-1]
    assert K.unseen(last.before, last.seen) == 0
    assert last not in chosen


def test_the_days_proof_played_with_undone_detours_is_flagged_as_the_solvers_line(proof):
    game = new_game(CODE)
    log: list[dict[str, object]] = []
    rng = random.Random(3)
    for data in proof:
        moves = [m for m in game.legal_moves if isinstance(m, Move)]
        if moves and rng.random() < 0.15:  # a move and its undo: a detour
            log += [game.apply(rng.choice(moves)).to_json(), game.apply(Undo()).to_json()]
        log.append(game.apply(game.parse_action(data)).to_json())
    assert game.won and len(log) > len(proof)
    verdict = K.knew(CODE, log, proof, limit=2)
    assert verdict.line_share == 1.0
    assert verdict.flagged
    assert "solver's line" in verdict.reason()


def test_what_exploring_with_undo_showed_counts_as_seen(proof):
    """Exploring with undo is within the rules: a look through the stock and a line
    of moves taken back leave the player knowing those cards, so the decisions after
    them are judged with those cards seen (fewer unseen, fewer decisions)."""
    game = new_game(CODE)
    log: list[dict[str, object]] = []
    while game.piles["s"]:  # a look through the whole stock
        log.append(game.apply(Stock()).to_json())
    log.append(game.apply(Stock()).to_json())
    _, seen = K.standing(CODE, log)
    assert K.unseen(game, seen) == 36  # only the face-down cards are still unknown
    look = [game.parse_action(a) for a in proof[:100]]
    turned = 0
    for action in look:
        game.apply(action)
        turned += bool(game.history[-1].turned)
    log += [a.to_json() for a in look] + [{"type": "undo"}] * len(look)
    assert turned > 0
    blind = K.decisions(K.standing(CODE, proof)[0], limit=1000)
    played = [a.to_json() for a in look]
    after, _ = K.standing(CODE, log + played)
    informed = K.decisions(after, limit=1000)
    first = informed[0]
    assert K.unseen(first.before, first.seen) == 36 - turned
    assert len(informed) < len(blind)


def test_play_that_follows_the_true_cards_gives_evidence_and_is_deterministic():
    """A player who, at each move, plays what the solver would play knowing every
    card: the decisions where deals drawn from what it had seen disagree weigh for
    hidden knowledge, and the same log gets the same verdict."""
    game = new_game(CODE)
    log: list[dict[str, object]] = []
    for _ in range(40):
        line = K.probe_easy_harp(game, K.Budget(nodes=K.PROBE_NODES), (K.SETTINGS[0],))
        assert line
        for action in line:
            log.append(game.apply(action).to_json())
            if isinstance(action, Move):
                break
    first = K.knew(CODE, log, limit=3)
    again = K.knew(CODE, log, limit=3)
    assert first.to_json() | {"seconds": 0} == again.to_json() | {"seconds": 0}
    assert first.judged
    assert first.choosing > 0
    top = first.decisive(1)[0]
    assert top.truths.get(top.played, 0) > top.samples.get(top.played, 0)
    assert f"standing action {top.ply} (action {top.index + 1} of the log)" in top.words()


def test_the_command_line_judges_a_game_from_stdin_and_a_days_results_file(tmp_path, proof):
    proof_file = tmp_path / "proof.json"  # as /api/daily/{date}/ reveals it, per variant
    proof_file.write_text(json.dumps({"variant": "EH1-N", "proof": proof}))
    out = io.StringIO()
    stdin = io.StringIO("\n".join(json.dumps(a) for a in proof))
    argv = ["knew", CODE, "--decisions", "1", "--proof", str(proof_file)]
    assert main(argv, stdin=stdin, stdout=out) == 1  # the solver's line: flagged
    verdict = json.loads(out.getvalue())
    assert verdict["flagged"] and verdict["line_share"] == 1.0

    results = [
        {
            "rank": 1,
            "player": "ann",
            "attempt": 1,
            "status": "won",
            "won": True,
            "score": 1220,
            "moves": len(proof),
            "elapsed_ms": 1000,
            "finished_at": "2026-12-03T10:00:00Z",
            "actions": [{"action": a, "ms": 10 * i} for i, a in enumerate(proof)],
        }
    ]
    path = tmp_path / "results.jsonl"
    path.write_bytes(
        write_day(date="2026-12-03", variant="EH1-N", code=CODE, par=len(proof), results=results)
    )
    out = io.StringIO()
    argv = ["knew", str(path), "--top", "1", "--decisions", "1", "--proof", str(proof_file)]
    assert main(argv, stdin=io.StringIO(), stdout=out) == 1
    row = json.loads(out.getvalue())
    assert row["rank"] == 1 and row["player"] == "ann" and row["flagged"]


def test_the_command_line_refuses_what_it_cannot_read(tmp_path, capsys):
    path = tmp_path / "nothing.jsonl"
    path.write_text("not a day\n")
    assert main(["knew", str(path)], stdin=io.StringIO(), stdout=io.StringIO()) == 2
    assert "not a JSON header" in capsys.readouterr().err
    assert main(["knew", CODE], stdin=io.StringIO("{oops\n"), stdout=io.StringIO()) == 2
    refused = io.StringIO()
    assert main(["knew", CODE], stdin=io.StringIO('{"type": "undo"}\n'), stdout=refused) == 0
    assert "error" in json.loads(refused.getvalue())
