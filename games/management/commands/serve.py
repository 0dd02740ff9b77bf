"""``manage.py serve [ADDRPORT]``: ``make run``'s server (issue 38) — daphne's
``runserver``, answering within seconds, while the days' deals are prepared on a
thread beside it (on the embedded defaults there is no worker, and the tasks
would run in the request). Until a deal is stored, reading it is refused 409
``being_dealt`` (``games/dailies.py``) and the lobby says so and asks again, so
it shows today's deals as soon as they are proven. The log says the address to
open as soon as the server answers, and again once the deals are all dealt, so
its last line is always that address (issue 39).
"""

import os
import socket
import threading
import time
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser
from django.db import connection
from django.utils import autoreload

from games.dailies import DAYS_AHEAD, daily_deals_mark, daily_deals_prepare, utc_today


class Command(BaseCommand):
    help = "Serve (runserver) while the daily deals are prepared on a thread."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--noreload", action="store_true", help="no autoreloader")

    def handle(self, *args: Any, **options: Any) -> None:
        addrport, reload = options["addrport"], not options["noreload"]
        # With the autoreloader this command runs twice: in a watcher, and again in
        # the child it starts (DJANGO_AUTORELOAD_ENV), which serves: the deals are
        # marked and prepared there, in the process whose cache the requests read.
        if not reload or os.environ.get(autoreload.DJANGO_AUTORELOAD_ENV) == "true":
            host, _, port = addrport.rpartition(":")
            host = host or "127.0.0.1"
            url = f"http://{host}:{port}/"
            marked = daily_deals_mark()
            if marked:
                self.stdout.write(
                    f"Dealing {marked} daily deal(s) of {utc_today()} and the next"
                    f" {DAYS_AHEAD - 1} days on a thread (solver search: about a minute the"
                    " first time); the lobby shows each as it is dealt."
                )
                threading.Thread(target=self.prepare, args=(url,), daemon=True).start()
            answering = (host, int(port), url, bool(marked))
            threading.Thread(target=self.announce, args=answering, daemon=True).start()
        call_command("runserver", addrport, use_reloader=reload)

    def announce(self, host: str, port: int, url: str, dealing: bool) -> None:
        """Once the server answers: the address to open (its banner came first)."""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                socket.create_connection((host, port), timeout=1).close()
            except OSError:
                time.sleep(0.2)
                continue
            time.sleep(0.3)  # after runserver's own lines
            later = " (today's deals show in the lobby as they are dealt)" if dealing else ""
            self.stdout.write(f"Open {url}{later}")
            return

    def prepare(self, url: str) -> None:
        started = time.perf_counter()
        try:
            dailies = daily_deals_prepare()
        except Exception as exc:  # shown, not raised: the server serves on
            self.stderr.write(f"The daily deals were not prepared: {type(exc).__name__}: {exc}")
            return
        finally:
            connection.close()
        unproven = sum(not daily.proven for daily in dailies)
        self.stdout.write(
            f"Daily deals dealt in {time.perf_counter() - started:.0f} s"
            f"{f' ({unproven} unproven)' if unproven else ''}. Open {url}"
        )
