"""A day's results file checked as a player checks it: ``python -m games.engine
verify-day PATH`` run from the source, in a process of its own (issue 27)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def verify_day_command(path: Path) -> subprocess.CompletedProcess[str]:
    """``python -m games.engine verify-day PATH`` as a player runs it, from the source."""
    return subprocess.run(
        [sys.executable, "-m", "games.engine", "verify-day", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
