"""Sign-in under attack (a benchmark, not a test; issue 25).

    python bench/login_flood.py [--guesses 128] [--flooders 8] [--seconds 15]
                                                               # or: make bench-login

It starts one daphne with production settings (DEBUG off) on a SQLite database
of its own, behind one trusted proxy (``NUM_PROXIES=1``: the client address is
the ``X-Forwarded-For`` the bench sends), and measures:

1. **Guesses at one account**: ``--guesses`` wrong passwords for one existing
   account, each from another address, 8 at a time: what they were answered
   (400: a wrong password, hashed; 429: refused before any hashing) and how long
   they took.
2. **A signed-in player during a sign-in flood**: ``--flooders`` clients sign in
   again and again for ``--seconds`` s, each time at another name from another
   address (credential stuffing: no budget of one account or address is hit, so
   every one costs a password hash, ~0.4 s of CPU); meanwhile a signed-in player
   reads ``GET /api/auth/me/`` in a loop. It prints that player's p50/p99/max,
   quiet and during the flood, and what the flood was answered.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script

from bench.measure import machine, percentile
from deploy.client import Client
from deploy.processes import free_port, migrate, server_env, start_daphne, stop, wait_until_up

PASSWORD = "a long passphrase of the victim"
SERVER_ENV = {"NUM_PROXIES": "1", "LOG_LEVEL": "WARNING", "REGISTER_RATE": "100000/hour"}


def csrf_token(port: int) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", "/api/auth/me/")
        response = conn.getresponse()
        response.read()
        cookies = response.headers.get_all("Set-Cookie") or []
    finally:
        conn.close()
    cookie = next(c for c in cookies if c.startswith("csrftoken="))
    return cookie.split(";")[0].split("=", 1)[1]


def sign_in(port: int, token: str, name: str, address: str) -> int:
    """One ``POST /api/auth/login/`` with a wrong password from ``address``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request(
            "POST",
            "/api/auth/login/",
            body=json.dumps({"username": name, "password": "guess-123456"}),
            headers={
                "Content-Type": "application/json",
                "Cookie": f"csrftoken={token}",
                "X-CSRFToken": token,
                "X-Forwarded-For": address,
            },
        )
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def in_threads(count: int, work: object) -> None:
    threads = [threading.Thread(target=work) for _ in range(count)]  # type: ignore[arg-type]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def guesses_at_one_account(port: int, victim: str, guesses: int) -> tuple[Counter[int], float]:
    token, answers, lock = csrf_token(port), Counter[int](), threading.Lock()
    numbers = iter(range(guesses))

    def guesser() -> None:
        for n in numbers:
            status = sign_in(port, token, victim, f"198.51.{n // 250}.{n % 250 + 1}")
            with lock:
                answers[status] += 1

    start = time.perf_counter()
    in_threads(8, guesser)
    return answers, time.perf_counter() - start


def player_during_flood(
    port: int, player: Client, flooders: int, seconds: float
) -> tuple[list[float], list[float], Counter[int]]:
    quiet = [player.request("GET", "/api/auth/me/").ms for _ in range(50)]
    token, answers, lock = csrf_token(port), Counter[int](), threading.Lock()
    numbers = itertools.count()
    stop_at = time.monotonic() + seconds

    def flooder() -> None:
        while time.monotonic() < stop_at:
            n = next(numbers)
            status = sign_in(
                port, token, f"stuffed{n}", f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"
            )
            with lock:
                answers[status] += 1

    during: list[float] = []

    def reader() -> None:
        time.sleep(1)  # the flood under way
        while time.monotonic() < stop_at:
            during.append(player.request("GET", "/api/auth/me/").ms)

    threads = [threading.Thread(target=flooder) for _ in range(flooders)]
    threads.append(threading.Thread(target=reader))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return quiet, during, answers


def figures(samples: list[float]) -> str:
    return (
        f"p50 {percentile(samples, 0.5):7.1f}  p99 {percentile(samples, 0.99):7.1f}  "
        f"max {max(samples):7.1f} ms  (n={len(samples)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--guesses", type=int, default=128, help="guesses at one account (128)")
    parser.add_argument("--flooders", type=int, default=8, help="clients signing in (8)")
    parser.add_argument("--seconds", type=float, default=15.0, help="the flood's length (15)")
    args = parser.parse_args()

    print(f"login flood: {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        env = server_env(f"sqlite:///{Path(tmp) / 'db.sqlite3'}", None, **SERVER_ENV)
        migrate(env)
        port, log = free_port(), Path(tmp) / "daphne.log"
        daphne = start_daphne(port, env, log)
        try:
            wait_until_up(port, daphne, log)
            Client(port).sign_up("victim", PASSWORD)
            player = Client(port)
            player.sign_up("player", PASSWORD)

            answers, took = guesses_at_one_account(port, "victim", args.guesses)
            print(
                f"{args.guesses} guesses at one account from {args.guesses} addresses: "
                f"{dict(sorted(answers.items()))} in {took:.1f} s"
            )
            quiet, during, flood = player_during_flood(port, player, args.flooders, args.seconds)
            print(f"a signed-in player's GET /api/auth/me/, quiet:  {figures(quiet)}")
            print(f"  during {args.flooders} clients' sign-in flood: {figures(during)}")
            print(f"  the flood was answered: {dict(sorted(flood.items()))}")
        finally:
            stop([daphne])


if __name__ == "__main__":
    main()
