"""Issue 27, deliverable 3, played as an attacker (PRODUCT.md "Fair daily deals"):
the day's results file names the deal's code and every line played, so while
the day runs no one gets it, nor its hash — not its winner (who has seen every
card, and may watch replays, but must not hand the code to a second account),
not a player who resigned, not one still playing, not an anonymous visitor.

Every byte the service sends them is kept (``Wire``) and searched for the
running daily's code and key in every spelling (``tests/support/hidden.py``).
The jobs are asked to build the file anyway (the hourly job, a rebuild, a
result changing): nothing is built. And should a file of a running day exist
all the same, neither the download nor ``/api/daily/`` hands it or its hash
out: the readers check the day themselves. The check sees a code where there is
one: yesterday's file, built, names yesterday's code.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib

from django.utils import timezone

from games.dailies import utc_today
from games.dayfile import day_results_build, day_results_bytes
from games.engine import ALL_VARIANTS, new_game
from games.followups import result_changed
from games.models import Attempt, DayResults
from games.tasks import after_the_day, build_day_results
from kit.commits import Followups
from tests.support.api import act, assert_error, start, win_daily
from tests.support.hidden import Wire, prepared

VARIANT = "SH1-C4"


def paths(date: dt.date) -> list[str]:
    """Every way to ask for a day's file: each variant, the variant in lower
    case, the date without its dashes."""
    asked = [f"/api/daily/{date}/{v}/results.jsonl" for v in ALL_VARIANTS]
    asked += [
        f"/api/daily/{date}/{VARIANT.lower()}/results.jsonl",
        f"/api/daily/{date.isoformat().replace('-', '')}/{VARIANT}/results.jsonl",
    ]
    return asked


def test_no_account_gets_a_running_days_file_or_its_hash(
    make_player, anon, django_capture_on_commit_callbacks
):
    wire = Wire()
    today = utc_today()
    yesterday = today - dt.timedelta(days=1)
    running = prepared(VARIANT)
    past = prepared(VARIANT, date=yesterday)
    winner, resigned, playing = make_player(), make_player(), make_player()

    assert win_daily(winner, VARIANT)["won"] is True
    game = start(resigned, daily=VARIANT)
    wire.http("resigns", resigned.send(f"/api/games/{game['id']}/resign/"))
    game = start(playing, daily=VARIANT)
    move = next(iter(new_game(running.deal.code).legal_moves)).to_json()
    wire.http("plays", act(playing, game["id"], 0, move))

    # The jobs, asked every way, build nothing for a day that runs.
    after_the_day()
    build_day_results.delay(running.pk, True)
    assert day_results_build(daily_id=running.pk, rebuild=True) is None
    assert not DayResults.objects.filter(daily=running).exists()

    clients = {"winner": winner, "resigned": resigned, "playing": playing, "anonymous": anon}
    for who, client in clients.items():
        for path in paths(today):
            response = wire.http(f"{who} {path}", client.get(path))
            # Refused as running, or (no dashes) as no date at all: never the file.
            assert_error(response, (400, 403))
            assert "Content-Disposition" not in response and "ETag" not in response
        for path in ("/api/daily/", f"/api/daily/{today}/"):
            deals = wire.http(f"{who} {path}", client.get(path)).json()["deals"]
            assert all("results" not in deal for deal in deals), (who, path)
        page = wire.http(f"{who} day page", client.get(f"/daily/{today}/"))
        assert page.status_code == 200
    wire.assert_never_named(running)

    # A file of today's deal made all the same (a bug, a hand in the database):
    # the readers look at the day, not at whether a row exists.
    data, count = day_results_bytes(running) or (b"", 0)
    assert running.deal.code.encode() in data and count == 2  # the winner, the resigned
    leaked = DayResults.objects.create(
        daily=running,
        data=gzip.compress(data),
        sha256=hashlib.sha256(data).hexdigest(),
        count=count,
        built_at=timezone.now(),
    )
    for who, client in clients.items():
        response = wire.http(f"{who} with a row", client.get(paths(today)[1]))
        assert_error(response, 403, "day_running")
        for path in ("/api/daily/", f"/api/daily/{today}/"):
            body = wire.http(f"{who} {path} with a row", client.get(path))
            assert leaked.sha256.encode() not in body.content, (who, path)
    wire.assert_never_named(running)
    leaked.delete()

    # A result changing today (as a staff decision announces it) rebuilds nothing either.
    won = Attempt.objects.get(daily=running, player__username=winner.username)
    with django_capture_on_commit_callbacks(execute=True) as ran, Followups() as after:
        result_changed(after, won)
    assert len(ran) == 1
    assert not DayResults.objects.filter(daily=running).exists()

    # Yesterday's file (no game on it: an empty board), its day over and closed,
    # is anyone's: the check can see a code.
    built = day_results_build(daily_id=past.pk)
    assert built is not None and built.count == 0
    shown = wire.http("yesterday's file", anon.get(paths(yesterday)[1]))
    assert shown.status_code == 200 and past.deal.code.encode() in shown.content
    assert hashlib.sha256(shown.content).hexdigest() == built.sha256
