"""Settings read in a fresh interpreter, from a given environment: what
``config.settings`` makes of it, without this process's test settings."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# Production-shaped secrets (config/settings.py refuses short and placeholder ones).
SECRETS = {
    "SECRET_KEY": "qN4vR8xT2mK7pW3zB9cH6jL1dF5sG0aYtE4uI8oQ2wZ7nM3rV6",
    "DAILY_DEAL_SECRET": "Z8kP3mX7qT1vB5nR9wC2hL6jF4dS0gYa",
}


def settings_in_subprocess(
    env: dict[str, str], expr: str, setup: str = ""
) -> subprocess.CompletedProcess[str]:
    secrets = ("SECRET_KEY", "DAILY_DEAL_SECRET", "DEBUG")
    clean = {k: v for k, v in os.environ.items() if k not in secrets}
    clean.pop("DATABASE_URL", None)
    clean.pop("REDIS_URL", None)
    code = f"import config.settings as s; {setup} print({expr})"
    # A debug run keeps the secrets it makes in a file: not in the checkout's.
    kept = {"LOCAL_SECRETS": str(Path(tempfile.mkdtemp()) / "secrets.env")}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, **kept, **env},
        capture_output=True,
        text=True,
        check=False,
    )
