"""A day anyone can re-check (issue 27, deliverable 3), against the real
PostgreSQL: games played through the HTTP API on today's daily, the day then
made past, the file built by the after-the-day job, downloaded, and checked by
``python -m games.engine verify-day`` run as a command; rebuilt when staff
disqualify a result and when they clear it again.
"""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.db.models import F

from games.dailies import daily_deal_prepare, utc_today
from games.dayfile import day_results_build
from games.engine import new_game
from games.fairplay import attempt_disqualify, review_clear
from games.models import Attempt, DailyDeal, DayResults
from games.services import attempts_close_stale
from games.tasks import after_the_day
from tests.support.api import act, assert_error, start, win_daily
from tests.support.dayfile import verify_day_command
from tests.support.fairplay import make_staff

ROOT = Path(__file__).resolve().parents[2]
VARIANT = "SH1-C4"


def play(client: Any, actions: list[dict[str, Any]], *, resign: bool = False) -> int:
    """Today's ranked daily, these actions sent through the API; returns its id."""
    game = start(client, daily=VARIANT)
    for seq, action in enumerate(actions):
        response = act(client, game["id"], seq, action)
        assert response.status_code == 200, response.content
    if resign:
        assert client.send(f"/api/games/{game['id']}/resign/").status_code == 200
    return game["id"]


def first_move(code: str) -> dict[str, Any]:
    return next(iter(new_game(code).legal_moves)).to_json()


def make_past(daily: DailyDeal) -> dt.date:
    """The day goes by: the daily is yesterday's, its games started yesterday
    (the clock of each, ``Action.ms``, is kept)."""
    yesterday = utc_today() - dt.timedelta(days=1)
    DailyDeal.objects.filter(pk=daily.pk).update(date=yesterday)
    day = dt.timedelta(days=1)
    Attempt.objects.filter(daily=daily).update(
        started_at=F("started_at") - day, finished_at=F("finished_at") - day
    )
    return yesterday


@pytest.fixture
def day(make_player, django_capture_on_commit_callbacks):
    """Today's SH1-C4, prepared as the job prepares it: a winner on the solver's
    line, another who undid a move first, one who resigned after an
    undo, one still playing; then the day goes by. The players by name, the
    daily, and its date."""
    daily = daily_deal_prepare(date=utc_today(), variant=VARIANT)
    proof, code = list(daily.proof), daily.deal.code
    winner, undoer, resigned, open_one = (make_player() for _ in range(4))
    with django_capture_on_commit_callbacks(execute=True):
        win_daily(winner, VARIANT)
        undo = {"type": "undo"}
        play(undoer, [proof[0], undo, *proof])
        play(resigned, [first_move(code), undo, first_move(code)], resign=True)
        play(open_one, [first_move(code)])
    date = make_past(daily)
    return {
        "daily": DailyDeal.objects.get(pk=daily.pk),
        "date": date,
        "players": (winner, undoer, resigned, open_one),
    }


def entry_of(client: Any, date: dt.date) -> dict[str, Any]:
    """The SH1-C4 entry of ``/api/daily/{date}/``."""
    deals = client.get(f"/api/daily/{date}/").json()["deals"]
    return {d["variant"]: d for d in deals}[VARIANT]


def download(client: Any, date: dt.date) -> Any:
    return client.get(f"/api/daily/{date}/{VARIANT}/results.jsonl")


def verify_day(data: bytes, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "day.jsonl"
    path.write_bytes(data)
    return verify_day_command(path)


def closed_and_built(daily: DailyDeal, capture: Any) -> DayResults:
    """The day's game still open closed (its commit callbacks run), then the
    day's file built: its first issue."""
    with capture(execute=True):
        attempts_close_stale()
    first = day_results_build(daily_id=daily.pk)
    assert first is not None
    return first


def test_the_closed_day_file_is_the_board_and_verify_day_passes(
    day, anon, tmp_path, django_capture_on_commit_callbacks
):
    daily, date = day["daily"], day["date"]
    winner, undoer, resigned, open_one = day["players"]
    # A game still open keeps the day from closing: nothing is built.
    assert after_the_day() == 0
    assert day_results_build(daily_id=daily.pk) is None
    assert_error(download(anon, date), 409, "not_built")
    assert entry_of(anon, date)["results"] is None

    with django_capture_on_commit_callbacks(execute=True):
        assert attempts_close_stale() == 1
    assert after_the_day() == 1  # Celery eager: the job ran
    stored = DayResults.objects.get(daily=daily)
    data = gzip.decompress(stored.data)
    assert stored.sha256 == hashlib.sha256(data).hexdigest() and stored.count == 4

    response = download(anon, date)
    assert response.status_code == 200
    assert response.content == data
    assert response["Content-Type"] == "application/jsonl"
    assert response["Content-Disposition"] == (
        f'attachment; filename="patience-daily-{date}-{VARIANT}.jsonl"'
    )
    assert response["ETag"] == f'"{stored.sha256}"'
    digest = base64.b64encode(hashlib.sha256(data).digest()).decode()
    assert response["Repr-Digest"] == f"sha-256=:{digest}:"
    entry = entry_of(anon, date)
    assert entry["results"] == {
        "url": f"/api/daily/{date}/{VARIANT}/results.jsonl",
        "sha256": stored.sha256,
        "count": 4,
        "built_at": stored.built_at.isoformat().replace("+00:00", "Z"),
        "file": f"patience-daily-{date}-{VARIANT}.jsonl",
        "earlier": [],
    }

    # Exactly the leaderboard's rows, in its order, each with its replay's actions.
    header, *lines = [json.loads(line) for line in data.splitlines()]
    assert header["code"] == daily.deal.code and header["commitment"] == entry["commitment"]
    assert (header["date"], header["variant"], header["par"], header["results"]) == (
        str(date),
        VARIANT,
        daily.par,
        4,
    )
    board = anon.get(f"/api/leaderboard/{date}/{VARIANT}/").json()["results"]
    assert [(r["rank"], r["player"], r["status"], r["won"], r["score"]) for r in board] == [
        (r["rank"], r["player"], r["status"], r["won"], r["score"]) for r in lines
    ]
    # Both won with the same score: which ranks first is the server clock's call.
    assert {r["player"] for r in lines[:2] if r["won"]} == {winner.username, undoer.username}
    assert {(r["player"], r["status"]) for r in lines[2:]} == {
        (resigned.username, "resigned"),
        (open_one.username, "abandoned"),
    }
    for result in lines:
        replay = winner.get(f"/api/games/{result['attempt']}/replay/").json()
        assert [a["action"] for a in result["actions"]] == replay["actions"]
        assert [a["ms"] for a in result["actions"]] == [entry["ms"] for entry in replay["log"]]
        assert (result["moves"], result["elapsed_ms"]) == (replay["moves"], replay["elapsed_ms"])
    undone = next(r for r in lines if r["player"] == undoer.username)
    assert {"type": "undo"} in [a["action"] for a in undone["actions"]]

    done = verify_day(data, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 4 results hold" in done.stdout

    # Run again: nothing changes, not even when it was built.
    assert after_the_day() == 1
    assert DayResults.objects.get(daily=daily).built_at == stored.built_at


def test_a_staff_decision_rebuilds_the_file_and_its_hash(
    day, anon, tmp_path, django_capture_on_commit_callbacks
):
    daily, date = day["daily"], day["date"]
    winner = day["players"][0]
    first = closed_and_built(daily, django_capture_on_commit_callbacks)
    assert first.count == 4
    won = Attempt.objects.get(daily=daily, player__username=winner.username)
    staff = make_staff()

    with django_capture_on_commit_callbacks(execute=True):
        attempt_disqualify(attempt_id=won.pk, staff=staff, reason="replayed a solver's line")
    rebuilt = DayResults.objects.get(daily=daily)
    assert rebuilt.count == 3 and rebuilt.sha256 != first.sha256
    entry = entry_of(anon, date)["results"]
    assert entry["sha256"] == rebuilt.sha256 and entry["count"] == 3
    data = download(anon, date).content
    assert winner.username.encode() not in data
    assert [json.loads(line)["rank"] for line in data.splitlines()[1:]] == [1, 2, 3]
    assert verify_day(data, tmp_path).returncode == 0
    assert [(e["sha256"], e["reason"]) for e in entry["earlier"]] == [(first.sha256, "changed")]

    # Cleared: back on the board, and the bytes are the first file's again.
    with django_capture_on_commit_callbacks(execute=True):
        review_clear(attempt_id=won.pk, staff=staff, reason="a fast player, looked fine")
    again = DayResults.objects.get(daily=daily)
    assert again.sha256 == first.sha256 and again.reissue == ""
    assert [e["sha256"] for e in again.earlier] == [first.sha256, rebuilt.sha256]


def delete_account(client: Any) -> None:
    response = client.delete(
        "/api/auth/account/", {"password": "correct horse battery"}, format="json"
    )
    assert response.status_code == 200, response.content


def test_a_deletion_reissues_the_file_naming_the_player_as_the_board_does(
    day, anon, tmp_path, django_capture_on_commit_callbacks
):
    """Issue 37: a player who deletes their account is named by the board as
    ``deleted-…``; every results file already built that named them is built
    again the same way, its earlier hash listed, and ``verify-day`` holds."""
    daily, date = day["daily"], day["date"]
    winner = day["players"][0]
    former = winner.get("/api/auth/me/").json()["username"]
    first = closed_and_built(daily, django_capture_on_commit_callbacks)
    assert former.encode() in gzip.decompress(first.data)

    with django_capture_on_commit_callbacks(execute=True):
        delete_account(winner)
    placeholder = Attempt.objects.get(daily=daily, player__is_active=False).player.username
    assert placeholder.startswith("deleted-")
    board = anon.get(f"/api/leaderboard/{date}/{VARIANT}/").json()
    board_names = [row["player"] for row in board["results"]]
    assert placeholder in board_names and former not in board_names

    data = download(anon, date).content
    assert former.encode() not in data and placeholder.encode() in data
    rows = [json.loads(line) for line in data.splitlines()[1:]]
    assert [r["player"] for r in rows] == board_names  # exactly as the board
    assert verify_day(data, tmp_path).returncode == 0
    entry = entry_of(anon, date)["results"]
    assert entry["sha256"] == hashlib.sha256(data).hexdigest() != first.sha256
    (earlier,) = entry["earlier"]
    assert earlier["sha256"] == first.sha256 and earlier["reason"] == "deleted"
    assert earlier["built_at"] == first.built_at.isoformat()
    assert DayResults.objects.get(daily=daily).reissue == ""


def test_a_reissue_whose_task_was_lost_is_caught_up_by_the_hourly_job(
    day, anon, django_capture_on_commit_callbacks
):
    """The deletion marks the file due with the change; its build queued after
    the commit is lost here (the callbacks never run, as with a broker down):
    the hourly after-the-day job builds it."""
    daily, date = day["daily"], day["date"]
    winner = day["players"][0]
    former = winner.get("/api/auth/me/").json()["username"]
    first = closed_and_built(daily, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=False):
        delete_account(winner)
    due = DayResults.objects.get(daily=daily)
    assert due.sha256 == first.sha256 and due.reissue.startswith("deleted:")
    assert former.encode() in download(anon, date).content  # not re-issued yet

    after_the_day()  # beat, hourly (CELERY_EAGER in the tests: in process)
    assert former.encode() not in download(anon, date).content
    assert DayResults.objects.get(daily=daily).reissue == ""


def test_the_download_is_refused_while_the_day_runs_even_to_its_winner(make_player, anon):
    winner = make_player()
    win_daily(winner, VARIANT)
    today = utc_today()
    for client in (winner, anon):
        error = assert_error(download(client, today), 403, "day_running")
        assert "over" in error["message"]
    # Nothing is built for a day that runs, whatever asks.
    daily = DailyDeal.objects.get(date=today, variant=VARIANT)
    assert day_results_build(daily_id=daily.pk, rebuild=True) is None
    assert not DayResults.objects.exists()
    assert "results" not in entry_of(winner, today)


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/daily/2026-13-01/SH1-C4/results.jsonl", 400, "bad_date"),
        ("/api/daily/20261201/SH1-C4/results.jsonl", 400, "bad_date"),
        ("/api/daily/%00/SH1-C4/results.jsonl", 400, "bad_date"),
        ("/api/daily/{yesterday}/SH1-C9/results.jsonl", 400, None),
        ("/api/daily/{yesterday}/nonsense/results.jsonl", 400, None),
        ("/api/daily/{yesterday}/%F0%9F%83%8F/results.jsonl", 400, None),
        ("/api/daily/{tomorrow}/SH1-C4/results.jsonl", 404, "no_daily"),
        ("/api/daily/2001-01-01/SH1-C4/results.jsonl", 404, "no_daily"),
    ],
)
def test_bad_dates_and_variants_are_4xx_naming_what_is_wrong(anon, path, status, code):
    today = utc_today()
    path = path.format(yesterday=today - dt.timedelta(days=1), tomorrow=today + dt.timedelta(1))
    error = assert_error(anon.get(path), status, code)
    assert error["message"]


def test_an_old_day_without_a_file_says_so(anon):
    daily = daily_deal_prepare(date=utc_today(), variant=VARIANT)
    old = utc_today() - dt.timedelta(days=30)
    DailyDeal.objects.filter(pk=daily.pk).update(date=old)
    error = assert_error(download(anon, old), 404, "no_results")
    assert str(old) in error["message"]


def test_only_get_is_allowed(player, anon):
    yesterday = utc_today() - dt.timedelta(days=1)
    path = f"/api/daily/{yesterday}/{VARIANT}/results.jsonl"
    assert_error(player.send(path, {}), 405)
    assert_error(anon.delete(path), (403, 405))
