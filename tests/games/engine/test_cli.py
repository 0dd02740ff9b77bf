"""The engine's command line (PRODUCT.md) and docs/architecture.md's example."""

import io
import json
import re
import subprocess
import sys
from pathlib import Path

from games.engine import new_game
from games.engine.cli import main

ROOT = Path(__file__).resolve().parents[3]


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def test_deal_prints_the_full_starting_layout():
    out = run("deal", "sh1-c2-aaaaaj2")
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert state == new_game("SH1-C2-AAAAAJ2").view(full=True)
    assert state["code"] == "SH1-C2-AAAAAJ2"
    assert None not in state["piles"]["t1"]


def test_deal_of_easy_harp_shows_stock_and_face_down_cards():
    state = json.loads(run("deal", "EH1-N-AAAAAAF").stdout)
    assert len(state["piles"]["s"]) == 59 and None not in state["piles"]["s"]
    assert state["down"]["t9"] == 8 and None not in state["piles"]["t9"]


def test_bad_code_exits_2_with_the_reason():
    out = run("deal", "SH1-C9-AAAAAAB")
    assert out.returncode == 2
    assert "no variant" in out.stderr and out.stdout == ""


def test_replay_applies_lines_and_prints_the_final_state():
    lines = '{"type": "tap", "from": "t1"}\n\n{"type": "move", "from": "c1", "to": "f"}\n'
    out = run("replay", "SH1-C4-AAAAAJ2", stdin=lines)
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert state["piles"]["f2"] == ["AH", "2H"]
    assert (state["score"], state["moves"], state["won"]) == (20, 2, False)


def test_replay_stops_at_the_first_refused_action():
    lines = '{"type": "tap", "from": "t1"}\n{"type": "tap", "from": "t2"}\n{"type": "undo"}\n'
    out = run("replay", "SH1-C4-AAAAAJ2", stdin=lines)
    assert out.returncode == 1
    assert out.stderr.startswith("line 2: no_foundation: No foundation accepts 4H")
    assert out.stdout == ""


def test_replay_stops_at_malformed_lines():
    for bad in ("{nope", '{"type": "move", "from": "t1", "to": "t2", "count": "1"}'):
        stdout = io.StringIO()
        code = main(["replay", "SH1-C4-AAAAAJ2"], stdin=io.StringIO(bad + "\n"), stdout=stdout)
        assert code == 1 and stdout.getvalue() == ""


KEY = "CNYUZSFWIH5KXM5EKJKWKKTRPX"


def test_deal_of_a_long_code():
    """C2b: a 26-character key deals through the command line like a number."""
    out = run("deal", f" sh1-c4-{KEY.lower()} ")
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert state["code"] == f"SH1-C4-{KEY}"
    assert state == new_game(f"SH1-C4-{KEY}").view(full=True)
    assert state["piles"]["t1"] == ["7D", "TD", "8D", "2S", "6H"]  # as pinned in long_deals.json
    eh = json.loads(run("deal", f"EH1-N-{KEY}").stdout)
    assert len(eh["piles"]["s"]) == 59 and eh["piles"]["t2"] == ["JD", "AD"]


def test_replay_of_a_long_code():
    lines = (
        '{"type": "move", "from": "t2", "to": "f"}\n'  # AD up, JD turned up
        '{"type": "double_tap", "from": "t3"}\n'  # 9D onto the TC of t7, TS turned up
        '{"type": "stock"}\n'
    )
    out = run("replay", f"EH1-N-{KEY}", stdin=lines)
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert state["code"] == f"EH1-N-{KEY}"
    assert state["piles"]["f3"] == ["AD"] and state["piles"]["t2"] == ["JD"]
    assert state["piles"]["t7"][-2:] == ["TC", "9D"] and state["piles"]["t3"] == ["3D", "TS"]
    assert state["piles"]["w"] == ["6H"]
    assert (state["score"], state["moves"]) == (20, 3)  # C3: 10 + 5 + 5


def test_bad_long_code_exits_2_with_the_reason():
    out = run("deal", f"EH1-N-I{KEY[1:]}")
    assert out.returncode == 2 and out.stdout == ""
    assert "bad_code" in out.stderr and "2^128" in out.stderr
    out = run("deal", f"EH1-N-{KEY}A")
    assert out.returncode == 2 and "7 characters" in out.stderr and "26" in out.stderr


def test_architecture_example_runs_as_written():
    page = (ROOT / "docs" / "architecture.md").read_text()
    block = re.search(r"## The engine in three lines\n+```python\n(.*?)```", page, re.S)
    assert block is not None
    source = block.group(1)
    expected = re.search(r"# (.*)$", source.strip().splitlines()[-1]).group(1)
    out = subprocess.run(
        [sys.executable, "-c", source], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expected
