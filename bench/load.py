"""Page load on a phone's slow link (a benchmark, not a test).

    python bench/load.py [--runs N]        # or: make bench-load

The production shape with nothing to set up, as the browser tests start it
(``deploy.stack``): a fresh PostgreSQL database of its own, a ``redis-server`` of
its own, ``manage.py collectstatic`` into a temporary ``STATIC_ROOT`` and one
daphne with ``config.settings`` (no debug: static files hashed, compressed and
served by WhiteNoise as in the image). One player signs up and starts a practice
game (Seahaven, 4 cells) through the API.

Then headless Chromium at 390×844 on Chrome DevTools' "Fast 3G" profile (CDP
``Network.emulateNetworkConditions``: 562.5 ms latency, 1.44 Mbit/s × 0.9 down,
675 kbit/s × 0.9 up) opens, N times each, cold (a fresh browser context: no
cache, no connections; the player's session cookie only):

- the lobby ``/``, interactive when today's deals are drawn
  (``#deals[aria-busy=false]``, set by lobby.js once ``/api/daily/`` is in);
- the play page ``/play/<id>/``, interactive when the board is drawn (a card in
  ``#board``) and its socket is open (``#connection[data-state=open]``): a move
  can be made and is sent at once.

Time-to-interactive is ``performance.now()`` at that moment (from the start of
the navigation). It prints each page's median and spread, with the bytes on
the wire (CDP ``encodedDataLength``, headers included) and the HTTP requests
of a median-like run. Goal: ≤ 2.5 s for both (issue 24).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script

from deploy.client import Client
from deploy.processes import (
    collect_static,
    ensure_postgres,
    free_port,
    one_daphne,
    server_env,
    start_redis,
    stop,
)

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DB_NAME = f"patience_bench_load_{os.getpid()}"
GOAL_MS = 2500
FAST_3G = {
    "offline": False,
    "latency": 562.5,
    "downloadThroughput": 1.44 * 1_000_000 / 8 * 0.9,  # bytes/s: ≈ 162 000 (≈ 158 KiB/s)
    "uploadThroughput": 675 * 1000 / 8 * 0.9,
}
READY = {
    "lobby": "() => document.querySelector('#deals[aria-busy=false]') ? performance.now() : null",
    "play": (
        "() => document.querySelector('#board [data-card]')"
        " && document.querySelector('#connection[data-state=open]') ? performance.now() : null"
    ),
}


def visit(browser: Any, base: str, cookies: list[dict[str, Any]], path: str, ready: str) -> dict:
    """One cold visit: a fresh context (no cache), Fast 3G, until ``ready``."""
    context = browser.new_context(base_url=base, viewport={"width": 390, "height": 844})
    context.add_cookies(cookies)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": False})
    cdp.send("Network.emulateNetworkConditions", FAST_3G)
    seen: dict[str, str] = {}
    sizes: dict[str, float] = {}

    def sent(event: dict[str, Any]) -> None:
        seen.setdefault(event["requestId"], event["request"]["url"])

    def finished(event: dict[str, Any]) -> None:
        sizes[event["requestId"]] = event["encodedDataLength"]

    cdp.on("Network.requestWillBeSent", sent)
    cdp.on("Network.loadingFinished", finished)
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.goto(path, wait_until="commit", timeout=60_000)
    ms = page.wait_for_function(ready, timeout=60_000, polling=20).json_value()
    page.wait_for_timeout(300)  # late events of what finished just before
    urls = [url for url in seen.values() if not url.startswith("data:")]
    result = {"ms": ms, "requests": len(urls), "bytes": int(sum(sizes.values())), "urls": urls}
    result["sockets"] = len(sockets)
    context.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="cold visits per page (median)")
    parser.add_argument("--list", action="store_true", help="list the requests of one run")
    args = parser.parse_args()
    ensure_postgres()
    processes: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        work = Path(tmp)
        redis_port = free_port()
        processes.append(start_redis(redis_port))
        env = server_env(
            f"postgres://postgres@127.0.0.1:5432/{DB_NAME}",
            f"redis://127.0.0.1:{redis_port}/0",
            STATIC_ROOT=str(work / "static"),
            LOG_LEVEL="WARNING",
        )
        try:
            collect_static(env)
            with one_daphne(DB_NAME, env, work / "daphne.log") as port:
                run(port, args)
        finally:
            stop(processes)


def run(port: int, args: argparse.Namespace) -> None:
    from playwright.sync_api import sync_playwright

    base = f"http://127.0.0.1:{port}"
    client = Client(port)
    client.sign_up(f"load{os.getpid()}", "bench horse battery staple")
    game = client.expect("POST", "/api/games/", {"random": "SH1-C4"}, status=201)
    client.expect("GET", "/api/daily/")  # today's deals made before the first visit
    cookies = [
        {"name": name, "value": value, "domain": "127.0.0.1", "path": "/"}
        for name, value in client.cookies.items()
    ]
    pages = {"lobby": "/", "play": f"/play/{game['id']}/"}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
        )
        visit(browser, base, cookies, "/", READY["lobby"])  # warm the server, not the browser
        print(f"Fast 3G (562.5 ms, {FAST_3G['downloadThroughput'] / 1000:.0f} kB/s down), 390×844,")
        print(f"cold visits, {args.runs} each; time-to-interactive from navigation start:")
        for name, path in pages.items():
            results = [visit(browser, base, cookies, path, READY[name]) for _ in range(args.runs)]
            times = sorted(r["ms"] for r in results)
            median = statistics.median(times)
            typical = min(results, key=lambda r: abs(r["ms"] - median))
            verdict = "≤" if median <= GOAL_MS else ">"
            print(
                f"  {name:5} median {median / 1000:.2f} s (min {times[0] / 1000:.2f}, "
                f"max {times[-1] / 1000:.2f}) {verdict} goal {GOAL_MS / 1000:.1f} s; "
                f"{typical['requests']} requests, {typical['bytes'] / 1000:.1f} kB"
                + (f", {typical['sockets']} socket(s)" if typical["sockets"] else "")
            )
            if args.list:
                for url in typical["urls"]:
                    print(f"      {url.removeprefix(base)}")
        browser.close()
    client.close()


if __name__ == "__main__":
    main()
