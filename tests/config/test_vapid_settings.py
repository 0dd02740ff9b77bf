"""The reminders' VAPID key pair (issue 28): optional outside debug (no pair:
push off), refused half-set or mismatched; a debug run makes one and keeps it
beside SECRET_KEY, which stays as it was."""

from __future__ import annotations

from config.settings import vapid_pair
from tests.support.env import SECRETS, settings_in_subprocess

EXPR = "repr(s.VAPID_PUBLIC_KEY), repr(s.VAPID_PRIVATE_KEY), s.VAPID_SUBJECT"


def test_without_a_pair_push_is_off_outside_debug():
    out = settings_in_subprocess(SECRETS, EXPR)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["''", "''", "mailto:noreply@localhost"]


def test_a_pair_is_read():
    pair = vapid_pair()
    out = settings_in_subprocess({**SECRETS, **pair, "VAPID_SUBJECT": "https://ops.example"}, EXPR)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [
        repr(pair["VAPID_PUBLIC_KEY"]),
        repr(pair["VAPID_PRIVATE_KEY"]),
        "https://ops.example",
    ]


def test_half_set_mismatched_or_malformed_pairs_stop_the_start():
    one, other = vapid_pair(), vapid_pair()
    cases = {
        "Set both": {"VAPID_PUBLIC_KEY": one["VAPID_PUBLIC_KEY"]},
        "not the public half": {
            "VAPID_PUBLIC_KEY": other["VAPID_PUBLIC_KEY"],
            "VAPID_PRIVATE_KEY": one["VAPID_PRIVATE_KEY"],
        },
        "base64url keys": {"VAPID_PUBLIC_KEY": "x", "VAPID_PRIVATE_KEY": "!!!"},
        "mailto: or https:": {**one, "VAPID_SUBJECT": "ops@example.org"},
    }
    for words, env in cases.items():
        out = settings_in_subprocess({**SECRETS, **env}, EXPR)
        assert out.returncode != 0 and words in out.stderr, (words, out.stderr[-500:])


def test_a_debug_run_makes_a_pair_once_and_keeps_its_other_secrets(tmp_path):
    path = tmp_path / "s.env"
    expr = "s.SECRET_KEY, s.VAPID_PUBLIC_KEY, s.VAPID_PRIVATE_KEY"
    env = {"DEBUG": "1", "LOCAL_SECRETS": str(path)}
    first = settings_in_subprocess(env, expr)
    assert first.returncode == 0, first.stderr
    again = settings_in_subprocess(env, expr)
    assert first.stdout.split() == again.stdout.split()
    secret_key, public, private = first.stdout.split()
    kept = dict(line.split("=", 1) for line in path.read_text().splitlines())
    assert kept["SECRET_KEY"] == secret_key and kept["VAPID_PUBLIC_KEY"] == public
    assert (path.stat().st_mode & 0o777) == 0o600
    # A pair that verifies (settings refuse a mismatched one at start).
    check = settings_in_subprocess(
        {**SECRETS, "VAPID_PUBLIC_KEY": public, "VAPID_PRIVATE_KEY": private}, EXPR
    )
    assert check.returncode == 0, check.stderr
