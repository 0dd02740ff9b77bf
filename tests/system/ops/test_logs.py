"""Issue 17, deliverable 2: structured logs, searched after a played game.

A real daphne and a real Celery worker (``deploy/stack.py``), at ``LOG_LEVEL=DEBUG``,
on a database and a redis-server of their own. The worker prepares today's
daily deals; a player plays today's running daily of every variant over HTTP
and over the game's websocket — legal actions, a refused one, a stale ``seq``,
an undo — and resigns, so the worker checks and reviews each game. Then both
logs are read:

- every line is one JSON object with a timestamp, level, logger and event;
- each action has exactly one line, with the request id the answer carried
  (HTTP) or its socket (websocket), the user id, attempt id and ``seq``, the
  outcome and the refusal's code; each request has its access line;
- a task's lines carry its name, id and attempt;
- no line names a card that was face down (or in the stock) at any moment of
  those games, nor any form of a running daily's code.
"""

from __future__ import annotations

import json
import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import psycopg
import pytest
import structlog
from celery import signals
from websockets.sync.client import ClientConnection

from deploy.client import Client
from deploy.processes import (
    CELERY,
    PG_HOST,
    PG_PORT,
    ROOT,
    free_port,
    one_daphne,
    server_env,
    start_redis,
    start_worker,
    stop,
)
from games.engine import ALL_VARIANTS, Game, load_game
from games.tasks import verify_attempt
from kit import logs
from tests.support.api import requires_postgres, requires_redis
from tests.support.env import SECRETS, settings_in_subprocess
from tests.support.hidden import CARD, code_secrets, hidden_only, hidden_runs
from tests.support.players import open_socket
from tests.support.waiting import wait_for

WAIT = 60.0  # every bounded wait, in seconds (the worker proves four deals first)
PASSWORD = "correct horse battery staple"
SAID = ("attempt_id", "seq", "type", "outcome", "reason")
OUTCOME = {
    "legal": "accepted",
    "undo": "accepted",
    "refused": "refused",
    "malformed": "invalid",
    "stale": "stale",
}
"""Each kind of action tried, as its line (and the metrics) say it was answered."""
"""What an action's line says that the test checks against what was sent."""
CELERY_SAYS = {"", "worker: Warm shutdown (MainProcess)"}
"""What Celery prints itself, not through logging, as it stops (docs/operations.md)."""


class Server:
    """The database of the daphne under test, read directly."""

    def __init__(self, url: str) -> None:
        self.url = url

    def one(self, sql: str, *params: Any) -> Any:
        with psycopg.connect(self.url, autocommit=True) as conn:
            return conn.execute(sql, params).fetchone()

    def all(self, sql: str, *params: Any) -> list[Any]:
        with psycopg.connect(self.url, autocommit=True) as conn:
            return conn.execute(sql, params).fetchall()

    def game(self, attempt_id: int) -> Game:
        (state,) = self.one("SELECT state FROM games_attempt WHERE id = %s", attempt_id)
        return load_game(state)

    def running_daily_codes(self) -> list[str]:
        rows = self.all(
            "SELECT d.code FROM games_dailydeal dd JOIN games_deal d ON d.id = dd.deal_id"
            " WHERE dd.date >= (now() AT TIME ZONE 'UTC')::date"
        )
        return [code for (code,) in rows]


class Play:
    """What the player did and what the logs must say of it."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.games: list[Game] = []
        self.http: list[dict[str, Any]] = []
        self.ws: list[dict[str, Any]] = []

    def seen(self, attempt_id: int) -> None:
        self.games.append(self.server.game(attempt_id))


def legal(view: dict[str, Any]) -> dict[str, Any]:
    """A legal action: a listed move; else a tap of Easy Harp's stock; else, at a
    Seahaven dead end (it has no stock), an undo — the games played here always
    have a move behind them by then."""
    if view["targets"]:
        target = view["targets"][0]
        return {
            "type": "move",
            "from": target["from"],
            "to": target["to"][0],
            "count": target["count"],
        }
    if "s" in view["piles"]:
        return {"type": "stock"}
    return {"type": "undo"}


def action_for(kind: str, fixed: dict[str, Any] | None, view: dict[str, Any]) -> dict[str, Any]:
    """``fixed``, or a legal action — also for the undo when a dead end's undo
    has already taken back every move (the view's ``undo`` depth is 0)."""
    if fixed is None or (kind == "undo" and not view["undo"]):
        return legal(view)
    return fixed


def actions_to_try() -> Iterator[tuple[str, dict[str, Any] | None]]:
    """Two legal actions, a refused one, a malformed one, a stale seq, an undo, a
    legal one."""
    yield "legal", None
    yield "legal", None
    yield "refused", {"type": "move", "from": "t1", "to": "t2", "count": 60}
    # Not an action the engine can read (a card for a pile): its line says nothing of it.
    yield "malformed", {"type": "move", "from": "KS", "to": "t2"}
    # Never accepted, so never the duplicate of the action at seq - 1.
    yield "stale", {"type": "move", "from": "t1", "to": "t2", "count": 60}
    yield "undo", {"type": "undo"}
    yield "legal", None


def play_http(player: Client, play: Play, game: dict[str, Any]) -> dict[str, Any]:
    gid = game["id"]
    for kind, fixed in actions_to_try():
        seq = game["seq"] - 1 if kind == "stale" else game["seq"]
        action = action_for(kind, fixed, game["view"])
        body = {"seq": seq, "action": action}
        answer = player.request("POST", f"/api/games/{gid}/actions/", body)
        expected = {"legal": 200, "undo": 200, "refused": 422, "malformed": 400, "stale": 409}[kind]
        assert answer.status == expected, (kind, answer.status, answer.body)
        refused = answer.status >= 400
        play.http.append(
            {
                "request_id": answer.headers.get("X-Request-ID"),
                "attempt_id": gid,
                "seq": seq,
                "type": None if kind == "malformed" else action["type"],
                "outcome": OUTCOME[kind],
                "reason": answer.body["error"]["code"] if refused else None,
                "status": answer.status,
            }
        )
        if not refused:
            game = answer.body
        play.seen(gid)
    return game


def reply(ws: ClientConnection) -> dict[str, Any]:
    """The answer to the frame sent, past broadcasts (a worker's dead-end proof)."""
    while True:
        message = json.loads(ws.recv(timeout=WAIT))
        if message["type"] in ("ack", "error"):
            return message


def play_ws(port: int, player: Client, play: Play, game: dict[str, Any]) -> None:
    gid = game["id"]
    with open_socket(port, f"/ws/games/{gid}/", player, wait=WAIT) as ws:
        snapshot = json.loads(ws.recv(timeout=WAIT))
        assert snapshot["type"] == "snapshot", snapshot
        game = snapshot["game"]
        for kind, fixed in actions_to_try():
            seq = game["seq"] - 1 if kind == "stale" else game["seq"]
            action = action_for(kind, fixed, game["view"])
            ws.send(json.dumps({"type": "action", "seq": seq, "action": action}))
            answer = reply(ws)
            refused = answer["type"] == "error"
            assert refused == (kind in ("refused", "malformed", "stale")), (kind, answer)
            play.ws.append(
                {
                    "attempt_id": gid,
                    "seq": seq,
                    "type": None if kind == "malformed" else action["type"],
                    "outcome": OUTCOME[kind],
                    "reason": answer["error"]["code"] if refused else None,
                }
            )
            if not refused:
                game = answer["game"]
            play.seen(gid)


def lines_of(path: Path, *, celery: bool = False) -> list[dict[str, Any]]:
    """Every line of a log, each one JSON object with the four fields."""
    records = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if celery and line in CELERY_SAYS:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            pytest.fail(f"{path.name}:{number} is not JSON: {line[:300]!r}")
        assert isinstance(record, dict), (path.name, number, line[:300])
        missing = {"timestamp", "level", "logger", "event"} - set(record)
        assert not missing, f"{path.name}:{number} lacks {missing}: {line[:300]}"
        assert record["timestamp"].endswith("Z"), record  # ISO 8601, UTC
        records.append(record)
    return records


def wait_for_tasks(path: Path, task: str, count: int) -> None:
    """Until the worker's log says ``count`` runs of ``task`` succeeded (bounded)."""
    done = f"Task games.tasks.{task}["

    def succeeded() -> bool:
        return sum(done in n and "succeeded" in n for n in path.read_text().splitlines()) >= count

    wait_for(succeeded, f"{count} runs of {task} to succeed", WAIT, path.read_text)


def assert_nothing_hidden(texts: list[str], games: list[Game]) -> None:
    """No card that any of ``games`` hid (face down, or in the stock) is named,
    nor any hidden run of them in order."""
    hidden: set[str] = set()
    runs: list[list[str]] = []
    for game in games:
        hidden |= hidden_only(game)
        runs += [run for run in hidden_runs(game) if run not in runs]
    assert hidden, "no game had a hidden card: the check would check nothing"
    for text in texts:
        leaked = set(CARD.findall(text)) & hidden
        assert not leaked, f"face-down card(s) {leaked} in the log: {text[:300]}"
        for run in runs:
            for sep in (",", ", ", " ", "", "|", '", "'):
                assert sep.join(run) not in text, f"hidden cards {run} in the log: {text[:300]}"


def test_log_format_is_json_unless_debug_and_nothing_else():
    base = SECRETS
    assert settings_in_subprocess(base, "s.LOG_FORMAT").stdout.split() == ["json"]
    assert settings_in_subprocess({"DEBUG": "1"}, "s.LOG_FORMAT").stdout.split() == ["console"]
    bad = settings_in_subprocess({**base, "LOG_FORMAT": "xml"}, "s.LOG_FORMAT")
    assert bad.returncode != 0 and "LOG_FORMAT is 'json' or 'console'" in bad.stderr


def test_sql_and_its_parameters_are_never_logged():
    """Under ``DEBUG`` Django logs every statement with its parameters (a game's
    state, say) at DEBUG level: kept out, even at ``LOG_LEVEL=DEBUG``, by the
    ``django`` logger staying at INFO (``kit/logs.py`` must not lower it)."""
    statement = "from django.db import connection; connection.cursor().execute('SELECT %s', ['KS'])"
    debug = {"DEBUG": "1", "LOG_LEVEL": "DEBUG", "DATABASE_URL": "sqlite://:memory:"}
    out = settings_in_subprocess(debug, "'done'", f"import django; django.setup(); {statement};")
    assert out.returncode == 0, out.stderr
    assert "SELECT" not in out.stdout and "KS" not in out.stdout, out.stdout


@pytest.mark.django_db
def test_an_eager_task_carries_the_request_id_and_gives_the_requests_context_back():
    """Under ``CELERY_EAGER`` (``make run``) a task runs inside the request that
    queued it: its lines carry the request's id, and the request's own later
    lines (its access line) keep their ids."""
    inside: list[dict[str, Any]] = []

    def snapshot(**_: Any) -> None:
        inside.append(structlog.contextvars.get_contextvars())

    logs.start(request_id="r-1", user_id=7)
    signals.task_success.connect(snapshot)
    try:
        verify_attempt.delay(10**9)  # no such game: the task says so and ends
    finally:
        signals.task_success.disconnect(snapshot)
    assert inside == [
        {
            "task": "games.tasks.verify_attempt",
            "task_id": ANY,
            "attempt_id": 10**9,
            "request_id": "r-1",
        }
    ]
    assert structlog.contextvars.get_contextvars() == {"request_id": "r-1", "user_id": 7}
    logs.start()


@requires_postgres
@requires_redis
def test_a_played_game_logs_json_with_its_ids_and_no_hidden_card_nor_daily_code(tmp_path):
    database = f"patience_logs_{secrets.token_hex(4)}"
    database_url = f"postgres://postgres@{PG_HOST}:{PG_PORT}/{database}"
    redis_port = free_port()
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    env = server_env(database_url, redis_url, LOG_LEVEL="DEBUG", CELERY_EAGER="0")
    daphne_log, worker_log = tmp_path / "daphne.log", tmp_path / "worker.log"
    server = Server(database_url.replace("postgres://", "postgresql://"))
    play = Play(server)
    redis = start_redis(redis_port)
    worker = None
    try:
        with one_daphne(database, env, daphne_log) as port:
            worker = start_worker(env, worker_log, "--concurrency", "1")
            # Today's deals, prepared by the job as in production (the worker
            # holds every code and key of the day while it proves them).
            subprocess.run(
                [*CELERY, "call", "games.tasks.prepare_daily_deals", "--kwargs", '{"days": 1}'],
                cwd=ROOT,
                env=env,
                check=True,
                timeout=WAIT,
                capture_output=True,
            )
            wait_for_tasks(worker_log, "prepare_daily_deals", 1)
            # …which queues one task a deal, each dealt and proven (issue 38).
            wait_for_tasks(worker_log, "prepare_daily_deal", len(ALL_VARIANTS))

            player = Client(port, timeout=WAIT)
            player.sign_up("logreader", PASSWORD)
            (user_id,) = server.one("SELECT id FROM accounts_user WHERE username = 'logreader'")
            attempts = []
            resigns: dict[int, str] = {}  # each game's resign request id
            for variant in ALL_VARIANTS:
                game = player.expect("POST", "/api/games/", {"daily": variant}, status=201)
                assert game["code"] is None
                attempts.append(game["id"])
                play.seen(game["id"])
                game = play_http(player, play, game)
                play_ws(port, player, play, game)
                resigned = player.request("POST", f"/api/games/{game['id']}/resign/")
                assert resigned.status == 200, resigned.body
                resigns[game["id"]] = resigned.headers["X-Request-ID"]
                play.seen(game["id"])
            # No such game: turned away, and its line says so as the metrics count it.
            body = {"seq": 0, "action": {"type": "undo"}}
            denied = player.request("POST", f"/api/games/{10**6}/actions/", body)
            assert denied.status == 404, denied.body
            play.http.append(
                {
                    "request_id": denied.headers.get("X-Request-ID"),
                    "attempt_id": 10**6,
                    "seq": 0,
                    "type": None,
                    "outcome": "denied",
                    "reason": denied.body["error"]["code"],
                    "status": 404,
                }
            )
            # Each resigned ranked game is checked, then reviewed, by the worker.
            wait_for_tasks(worker_log, "review_attempt", len(attempts))
            codes = server.running_daily_codes()
            stop([worker])
            worker = None
    finally:
        if worker is not None:
            stop([worker])
        stop([redis])

    daphne, work = lines_of(daphne_log), lines_of(worker_log, celery=True)

    # Every action has one line, with the ids the client saw.
    actions = [r for r in daphne if r["logger"] == "games.actions"]
    assert len(actions) == len(play.http) + len(play.ws)
    for sent in play.http:
        (line,) = [r for r in actions if r.get("request_id") == sent["request_id"]]
        assert line["via"] == "http" and line["user_id"] == user_id, line
        assert {k: line.get(k) for k in SAID} == {k: sent[k] for k in SAID}, (line, sent)
        (access,) = [
            r
            for r in daphne
            if r["logger"] == "config.access" and r["request_id"] == sent["request_id"]
        ]
        assert access["status"] == sent["status"] and access["method"] == "POST", access
        assert access["path"] == f"/api/games/{sent['attempt_id']}/actions/", access
        assert access["user_id"] == user_id and access["ms"] >= 0, access
    over_ws = [r for r in actions if r["via"] == "websocket"]
    assert [{k: r.get(k) for k in SAID} for r in over_ws] == play.ws
    assert all(r["user_id"] == user_id and "request_id" not in r for r in over_ws), over_ws
    sockets = {r["attempt_id"]: r["conn"] for r in over_ws}
    assert len(set(sockets.values())) == len(attempts), "one socket per game, each its own id"
    assert all(r["conn"] == sockets[r["attempt_id"]] for r in over_ws)

    # A socket's own lines: opened with its path, closed — each frame's context
    # is its own, so nothing of the last action is left on them.
    socket_lines = [r for r in daphne if r["logger"] == "kit.sockets"]
    opened = [r["path"] for r in socket_lines if r["event"] == "websocket open"]
    assert opened == [f"/ws/games/{gid}/" for gid in attempts], socket_lines
    assert {r["conn"] for r in socket_lines} == set(sockets.values()), socket_lines
    assert all(r["user_id"] == user_id and "seq" not in r for r in socket_lines), socket_lines

    # The worker's lines say which task and which game.
    checks = [r for r in work if r.get("task") == "games.tasks.verify_attempt"]
    assert {r["attempt_id"] for r in checks} == set(attempts), checks
    assert all(r["task_id"] for r in checks)
    # … and which request queued it: the resign, for the check and for the
    # review the check queued in turn.
    for task in ("games.tasks.verify_attempt", "games.tasks.review_attempt"):
        lines = [r for r in work if r.get("task") == task]
        assert {r["attempt_id"] for r in lines} == set(attempts), lines
        assert all(r.get("request_id") == resigns[r["attempt_id"]] for r in lines), lines

    # Nothing hidden, nothing that names a running daily.
    texts = [json.dumps(r) for r in daphne + work]
    assert len(codes) == len(ALL_VARIANTS), codes
    for code in codes:
        for secret in code_secrets(code):
            found = [t for t in texts if secret in t]
            assert not found, f"the running daily's {secret!r} is in the log: {found[0][:300]}"
    assert_nothing_hidden(texts, play.games)
