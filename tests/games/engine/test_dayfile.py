"""A day's results file and ``python -m games.engine verify-day`` (issue 27,
deliverable 3), without a database: a file written from games played through
the engine passes; each kind of tampering fails, naming the result.

The day: Seahaven 4-cell deal 1 (the solver wins it in about 50 nodes), won
twice along the solver's line (once with an undo on the way, so slower), and
resigned once after three moves.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from games.engine import Undo, new_game, solve
from games.engine.cli import main
from games.engine.dayfile import FORMAT, check_day, commitment, read_day, write_day
from tests.support.dayfile import verify_day_command

CODE = "SH1-C4-AAAAAAB"


def played(actions: list[Any], *, player: str, status: str, finished_at: str) -> dict[str, Any]:
    """A result as the server writes it: the resolved actions, a second apart,
    and the engine's own score, moves and win."""
    game = new_game(CODE)
    entries = []
    for seq, action in enumerate(actions):
        entries.append({"action": game.apply(action).to_json(), "ms": 1000 * (seq + 1)})
    return {
        "rank": 0,
        "player": player,
        "attempt": 0,
        "status": status,
        "won": game.won,
        "score": game.score,
        "moves": game.moves,
        "elapsed_ms": 1000 * (len(actions) + 1),
        "finished_at": finished_at,
        "actions": entries,
    }


def the_day() -> list[dict[str, Any]]:
    line = list(solve(new_game(CODE)).line)
    results = [
        played(line, player="ann", status="won", finished_at="2026-12-03T10:00:00Z"),
        played(
            [line[0], Undo(), *line],
            player="bob",
            status="won",
            finished_at="2026-12-03T09:00:00Z",
        ),
        played(line[:3], player="cy", status="resigned", finished_at="2026-12-03T08:00:00Z"),
    ]
    for rank, result in enumerate(results, start=1):
        result["rank"], result["attempt"] = rank, 10 + rank
    return results


def write(results: list[dict[str, Any]], **header: Any) -> bytes:
    fields = {"date": "2026-12-03", "variant": "SH1-C4", "code": CODE, "par": 40, **header}
    return write_day(results=results, **fields)


def verify(data: bytes, tmp_path: Path) -> tuple[int, str]:
    path = tmp_path / "day.jsonl"
    path.write_bytes(data)
    out = io.StringIO()
    return main(["verify-day", str(path)], stdout=out), out.getvalue()


def test_a_good_file_passes_as_a_real_command(tmp_path):
    data = write(the_day())
    (tmp_path / "day.jsonl").write_bytes(data)
    done = verify_day_command(tmp_path / "day.jsonl")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 3 results hold" in done.stdout and done.stdout.count("\n") == 1


def test_the_bytes_are_deterministic_and_the_header_says_what_follows():
    results = the_day()
    data = write(results)
    assert data == write(json.loads(json.dumps(results)))
    lines = data.split(b"\n")
    assert lines[-1] == b"" and len(lines) == 5
    header = json.loads(lines[0])
    assert header == {
        "format": FORMAT,
        "date": "2026-12-03",
        "variant": "SH1-C4",
        "code": CODE,
        "commitment": commitment(CODE),
        "par": 40,
        "results": 3,
    }
    assert lines[1] == json.dumps(
        results[0], sort_keys=True, separators=(",", ":"), ensure_ascii=True
    ).encode("ascii")
    assert check_day(read_day(data)) == []


def test_one_tampered_action_fails_naming_its_result(tmp_path):
    results = the_day()
    # bob's winning line, one action sent elsewhere: refused, or a different end.
    move = results[1]["actions"][5]["action"]
    results[1]["actions"][5]["action"] = {**move, "to": "c4" if move["to"] != "c4" else "c3"}
    status, out = verify(write(results), tmp_path)
    assert status == 1, out
    assert "rank 2, bob" in out and "action 5" in out
    assert "rank 1" not in out and "rank 3" not in out
    assert out.strip().endswith("1 problem(s) in 3 result(s)")


def test_a_changed_score_fails(tmp_path):
    results = the_day()
    results[2]["score"] += 5
    status, out = verify(write(results), tmp_path)
    assert status == 1
    assert f"rank 3, cy: published score {results[2]['score']}, the actions make" in out


def test_a_swapped_rank_order_fails(tmp_path):
    results = the_day()
    results[0], results[1] = results[1], results[0]
    results[0]["rank"], results[1]["rank"] = 1, 2
    status, out = verify(write(results), tmp_path)
    assert status == 1
    assert "rank 2, ann: ranks above the result before it (C11)" in out


def test_equal_results_share_a_rank_and_the_next_skips():
    results = the_day()
    tie = {**results[0], "player": "dee", "finished_at": results[0]["finished_at"]}
    results = [results[0], tie, results[1], results[2]]
    for result, rank in zip(results, (1, 1, 3, 4), strict=True):
        result["rank"] = rank
    assert check_day(read_day(write(results))) == []
    results[2]["rank"] = 2
    assert [str(p) for p in check_day(read_day(write(results)))] == [
        "line 4: rank 2, bob: rank should be 3 (C11)"
    ]


def test_a_won_status_needs_a_winning_line(tmp_path):
    results = the_day()
    results[2]["status"] = "won"
    status, out = verify(write(results), tmp_path)
    assert status == 1
    assert "rank 3, cy: status won does not agree with won false" in out


def test_a_wrong_commitment_fails(tmp_path):
    data = write(the_day())
    lines = data.split(b"\n")
    header = json.loads(lines[0])
    header["commitment"] = commitment("SH1-C4-AAAAAAC")
    lines[0] = json.dumps(header).encode()
    status, out = verify(b"\n".join(lines), tmp_path)
    assert status == 1
    assert "header: the code does not hash to the commitment" in out


def test_another_deal_in_the_header_fails_every_line(tmp_path):
    status, out = verify(write(the_day(), code="SH1-C4-AAAAAAC"), tmp_path)
    assert status == 1
    assert all(f"rank {rank}" in out for rank in (1, 2, 3))


def test_a_dropped_line_fails_the_count(tmp_path):
    data = write(the_day())
    status, out = verify(b"\n".join(data.split(b"\n")[:3]) + b"\n", tmp_path)
    assert status == 1
    assert "header: says 3 results, the file has 2" in out


@pytest.mark.parametrize(
    "data",
    [b"", b"\xff\xfe", b"not json\n", b'{"format": "something-else/1"}\n'],
    ids=["empty", "binary", "no-json", "other-format"],
)
def test_an_unreadable_file_exits_2(tmp_path, data, capsys):
    status, out = verify(data, tmp_path)
    assert status == 2 and out == ""
    assert "error:" in capsys.readouterr().err


def test_a_missing_file_exits_2(tmp_path, capsys):
    assert main(["verify-day", str(tmp_path / "nothing.jsonl")], stdout=io.StringIO()) == 2
    assert "nothing.jsonl" in capsys.readouterr().err


def test_a_broken_result_line_is_named_not_a_crash(tmp_path):
    data = write(the_day()).split(b"\n")
    data[2] = b'{"rank": 2, "player": "bob"}'
    status, out = verify(b"\n".join(data), tmp_path)
    assert status == 1
    assert "line 3: rank 2, bob: fields missing: actions" in out


def test_a_name_beyond_ascii_is_escaped_and_the_file_read_from_stdin():
    results = the_day()
    results[0]["player"] = "Zoë"
    data = write(results)
    assert data.isascii() and b"Zo\\u00eb" in data
    out = io.StringIO()
    assert main(["verify-day", "-"], stdin=io.StringIO(data.decode()), stdout=out) == 0
    assert "all 3 results hold" in out.getvalue()
