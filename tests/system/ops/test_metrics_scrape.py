"""Prometheus metrics, scraped from real processes (docs/operations.md, "Metrics").

A database of its own (migrated), a ``redis-server`` of its own, one daphne and
later a Celery worker (prefork, one pool process), all started with
``deploy/processes.py`` and the production settings, each with a
``PROMETHEUS_MULTIPROC_DIR`` of its own as each container has. The test plays
over HTTP (``deploy/client.py``) and real websockets, scrapes ``GET /metrics``
and the worker's ``METRICS_PORT`` with the token, and checks exact deltas.
Every scrape is parsed with prometheus-client's own parser and every label
value checked against its bounded set: no deal code or card can be a label.
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import re
import secrets
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
import redis
from celery import Celery
from prometheus_client.parser import text_string_to_metric_families

from deploy.client import Client
from deploy.processes import (
    PG_HOST,
    PG_PORT,
    create_database,
    drop_database,
    free_port,
    kill,
    migrate,
    server_env,
    start_daphne,
    start_redis,
    start_worker,
    stop,
    wait_for_port,
    wait_until_up,
)
from games.engine import ALL_VARIANTS
from games.metrics import OUTCOMES
from kit.metrics import SOCKET_KINDS
from tests.support.api import requires_postgres, requires_redis
from tests.support.players import close_quietly, open_socket, receive, sign_up
from tests.support.waiting import wait_for

pytestmark = [requires_postgres, requires_redis]

CODE = "SH1-C4-AAAAAJ2"
TOKEN = secrets.token_urlsafe(24)
WAIT = 60.0

# Every label a metric of ours may carry, and the values it may take.
LABELS = {
    "transport": re.compile(r"http|websocket"),
    "outcome": re.compile("|".join(OUTCOMES)),
    "reason": re.compile(r"[a-z][a-z0-9_]{0,39}"),
    "kind": re.compile("|".join(SOCKET_KINDS)),
    "group": re.compile(r"game|leaderboard|other"),
    "task": re.compile(r"games\.tasks\.[a-z_]+"),
    "state": re.compile(r"[a-z]+"),
    "queue": re.compile(r"[a-z]+"),
    "variant": re.compile("|".join(re.escape(v) for v in ALL_VARIANTS)),
    "result": re.compile(r"proven|unproven|on_demand"),
    "le": re.compile(r"[0-9.e+]+|\+Inf"),
}
CARD = re.compile(r"\b[A2-9TJQK][SHDC]\b")


Figures = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(text: str) -> Figures:
    """The samples of a scrape, each label checked against its bounded set."""
    figures: Figures = {}
    for family in text_string_to_metric_families(text):
        if not family.name.startswith("patience_"):
            continue
        for sample in family.samples:
            for name, value in sample.labels.items():
                assert name in LABELS, f"{sample.name}: unexpected label {name}={value!r}"
                assert LABELS[name].fullmatch(value), f"{sample.name}: {name}={value!r}"
                assert not CARD.search(value), f"{sample.name}: {name}={value!r} names a card"
            figures[sample.name, frozenset(sample.labels.items())] = sample.value
    return figures


def value(figures: Figures, name: str, **labels: str) -> float:
    return figures.get((name, frozenset(labels.items())), 0.0)


def total(figures: Figures, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    wanted = set(labels.items())
    return sum(v for (n, key), v in figures.items() if n == name and wanted <= key)


def get(port: int, path: str, authorization: str | None) -> tuple[int, str, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers={"Authorization": authorization} if authorization else {})
        answer = conn.getresponse()
        return answer.status, answer.getheader("Content-Type") or "", answer.read().decode()
    finally:
        conn.close()


@dataclass
class Servers:
    database: str
    redis_url: str
    env: dict[str, str]
    logs: Path
    port: int
    daphne: subprocess.Popen[bytes] | None
    worker: subprocess.Popen[bytes] | None = None
    worker_port: int = 0

    def scrape(self, port: int | None = None, path: str = "/metrics") -> str:
        status, kind, body = get(port or self.port, path, f"Bearer {TOKEN}")
        assert status == 200, (status, body[:300])
        assert kind.startswith("text/plain"), kind
        return body

    def figures(self) -> Figures:
        return parse(self.scrape())

    def worker_figures(self) -> Figures:
        return parse(self.scrape(self.worker_port, "/"))

    def restart_daphne(self) -> None:
        """SIGKILL (no socket says goodbye), then a new daphne on the same port
        and the same metrics directory, as a container's restart would."""
        assert self.daphne is not None
        kill(self.daphne)
        self.daphne = start_daphne(self.port, self.env, self.logs / "daphne.log")
        wait_until_up(self.port, self.daphne, self.logs / "daphne.log")

    def start_worker(self) -> None:
        self.worker_port = free_port()
        env = {
            **self.env,
            "PROMETHEUS_MULTIPROC_DIR": str(self.logs / "worker-metrics"),
            "METRICS_PORT": str(self.worker_port),
        }
        self.worker = start_worker(env, self.logs / "worker.log", "--concurrency", "1")
        wait_for_port("127.0.0.1", self.worker_port, self.worker, "the worker's metrics port")


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    logs = tmp_path_factory.mktemp("metrics")
    database = f"patience_metrics_{secrets.token_hex(4)}"
    redis_port = free_port()
    redis_server = start_redis(redis_port, log=logs / "redis.log")
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    env = server_env(
        f"postgres://postgres@{PG_HOST}:{PG_PORT}/{database}",
        redis_url,
        PROMETHEUS_MULTIPROC_DIR=str(logs / "daphne-metrics"),
        METRICS_TOKEN=TOKEN,
    )
    create_database(database)
    port = free_port()
    found = Servers(database, redis_url, env, logs, port, daphne=None)
    try:
        migrate(env)
        found.daphne = start_daphne(port, env, logs / "daphne.log")
        wait_until_up(port, found.daphne, logs / "daphne.log")
        yield found
    finally:
        stop([p for p in (found.daphne, found.worker) if p is not None])
        stop([redis_server])
        drop_database(database)
        for name in ("daphne.log", "worker.log"):
            if (logs / name).exists():
                print(f"--- {name}\n{(logs / name).read_text(errors='replace')[-3000:]}")


def soon() -> float:
    return time.monotonic() + 10


def test_actions_are_counted_by_transport_outcome_and_reason(servers: Servers):
    player = sign_up(f"m{secrets.token_hex(4)}", servers.port)
    game = player.expect("POST", "/api/games/", {"code": CODE}, status=201)
    actions = f"/api/games/{game['id']}/actions/"
    before = servers.figures()

    # HTTP: two applied, a resend, a stale seq, a move the rules refuse, a malformed body.
    tap = {"type": "move", "from": "t1", "to": "f"}  # AH home
    player.expect("POST", actions, {"seq": 0, "action": tap})
    player.expect("POST", actions, {"seq": 1, "action": {"type": "move", "from": "c1", "to": "f"}})
    assert player.expect("POST", actions, {"seq": 0, "action": tap})["duplicate"] is True
    stale = player.request("POST", actions, {"seq": 7, "action": {"type": "undo"}})
    assert stale.status == 409 and stale.body["error"]["code"] == "seq_conflict", stale.body
    illegal = {"type": "move", "from": "t2", "to": "t3"}  # 4H on 4C
    refused = player.request("POST", actions, {"seq": 2, "action": illegal})
    assert refused.status == 422, refused.body
    rule = refused.body["error"]["code"]
    bad = player.request("POST", actions, {"seq": "2", "action": {"type": "undo"}})
    assert bad.status == 400 and bad.body["error"]["code"] == "invalid", bad.body

    # The websocket: two applied, a stale seq, the same refused move.
    ws = open_socket(servers.port, f"/ws/games/{game['id']}/", player)
    try:
        assert receive(ws, deadline=soon())["type"] == "snapshot"
        for seq, action in (
            (2, {"type": "move", "from": "c2", "to": "t5"}),  # 8D on 9D
            (3, {"type": "undo"}),
            (9, {"type": "undo"}),
            (4, illegal),
        ):
            ws.send(json.dumps({"seq": seq, "action": action}))
            answer = receive(ws, deadline=soon())
            assert answer["type"] in ("ack", "error"), answer
    finally:
        close_quietly(ws)

    after = servers.figures()
    delta = {
        (transport, outcome): value(
            after, "patience_actions_total", transport=transport, outcome=outcome
        )
        - value(before, "patience_actions_total", transport=transport, outcome=outcome)
        for transport in ("http", "websocket")
        for outcome in OUTCOMES
    }
    moved = {key: n for key, n in delta.items() if n}
    assert moved == {
        ("http", "accepted"): 2,
        ("http", "duplicate"): 1,
        ("http", "stale"): 1,
        ("http", "refused"): 1,
        ("http", "invalid"): 1,
        ("websocket", "accepted"): 2,
        ("websocket", "stale"): 1,
        ("websocket", "refused"): 1,
    }
    for transport, reasons in (
        ("http", {"seq_conflict": 1, rule: 1, "invalid": 1}),
        ("websocket", {"seq_conflict": 1, rule: 1}),
    ):
        seen = {
            dict(key)["reason"]: v - value(before, name, **dict(key))
            for (name, key), v in after.items()
            if name == "patience_refusals_total" and dict(key)["transport"] == transport
        }
        assert {r: n for r, n in seen.items() if n} == reasons, transport
    for transport, count in (("http", 6), ("websocket", 4)):
        name = "patience_action_seconds_count"
        assert value(after, name, transport=transport) - value(
            before, name, transport=transport
        ) == (count)
        # Every action counted in some bucket: the +Inf bucket is the count.
        assert value(after, "patience_action_seconds_bucket", transport=transport, le="+Inf") == (
            value(after, name, transport=transport)
        )
    # Neither the deal's code nor any card reached a figure (labels: ``parse``).
    assert CODE not in servers.scrape()


def test_open_sockets_go_up_and_back_down(servers: Servers):
    player, spectator = (
        sign_up(f"m{secrets.token_hex(4)}", servers.port),
        sign_up(f"m{secrets.token_hex(4)}", servers.port),
    )
    game = player.expect("POST", "/api/games/", {"code": CODE}, status=201)
    room = player.expect("POST", "/api/races/", {"code": CODE}, status=201)
    today = dt.datetime.now(dt.UTC).date().isoformat()
    sockets = [
        open_socket(servers.port, f"/ws/games/{game['id']}/", player),
        open_socket(servers.port, f"/ws/games/{game['id']}/", spectator),
        open_socket(servers.port, f"/ws/leaderboard/{today}/SH1-C4/", None),
        open_socket(servers.port, f"/ws/races/{room['id']}/", None),  # a spectator
    ]
    try:
        for ws in sockets:
            assert receive(ws, deadline=soon())["type"] in ("snapshot", "subscribed", "race")
        figures = servers.figures()
        for kind in SOCKET_KINDS:
            assert value(figures, "patience_websockets_open", kind=kind) == 1, kind
    finally:
        for ws in sockets:
            close_quietly(ws)

    def all_closed() -> bool:
        figures = servers.figures()
        return all(value(figures, "patience_websockets_open", kind=k) == 0 for k in SOCKET_KINDS)

    wait_for(all_closed, "the open-socket gauges back to 0")
    # A socket refused (not signed in: accepted, told 4401, closed) leaves no count behind.
    refused = open_socket(servers.port, f"/ws/games/{game['id']}/", None)
    close_quietly(refused)
    assert all_closed()


def test_the_figures_need_the_token_and_the_public_side_has_none(servers: Servers):
    for authorization, status in (
        (None, 401),
        ("Basic " + TOKEN, 401),
        ("Bearer ", 401),
        ("Bearer " + TOKEN[:-1], 403),
        ("Bearer " + TOKEN + "x", 403),
        ("Bearer " + "é" * 20, 403),
    ):
        code, kind, body = get(servers.port, "/metrics", authorization)
        assert code == status, (authorization, code, body[:200])
        assert kind.startswith("application/json"), kind
        assert set(json.loads(body)) == {"error"}
        assert "patience_" not in body
    assert get(servers.port, "/metrics/", f"Bearer {TOKEN}")[0] == 404
    # nginx, the one public entry of the compose file, never passes /metrics on.
    conf = (Path(__file__).resolve().parents[3] / "deploy" / "nginx.conf").read_text()
    block = re.search(r"location \^~ /metrics \{([^}]*)\}", conf)
    assert block is not None and "return 404" in block.group(1), conf


def test_queue_depth_task_runtime_and_daily_preparation(servers: Servers):
    broker = redis.Redis.from_url(servers.redis_url)
    tomorrow = (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=1)).isoformat()
    # Today's deals, asked for before any job made them: made on demand by daphne.
    assert len(Client(servers.port).expect("GET", "/api/daily/")["deals"]) == len(ALL_VARIANTS)
    figures = servers.figures()
    for variant in ALL_VARIANTS:
        assert (
            value(figures, "patience_daily_preparations_total", variant=variant, result="on_demand")
            == 1
        ), variant

    # A real message on the broker, no worker yet: the scrape reads it there.
    # Not the current app: the tests after this one in this process queue to theirs.
    sender = Celery(broker=servers.redis_url, set_as_current=False)
    sender.send_task("games.tasks.prepare_daily_deals", kwargs={"start": tomorrow, "days": 1})
    assert broker.llen("celery") == 1
    figures = servers.figures()
    assert value(figures, "patience_celery_broker_up") == 1
    assert value(figures, "patience_celery_queue_length", queue="celery") == 1

    # A worker (prefork: the task runs in its pool process) takes and runs it.
    servers.start_worker()
    task = "games.tasks.prepare_daily_deals"

    def ran() -> bool:
        done = servers.worker_figures()
        return value(done, "patience_celery_task_seconds_count", task=task, state="success") == 1

    wait_for(ran, "the worker's figures for the task", timeout=WAIT * 2)
    figures = servers.worker_figures()
    assert value(figures, "patience_celery_task_seconds_sum", task=task, state="success") > 0
    stored = _dailies(servers.database, tomorrow)
    assert set(stored) == set(ALL_VARIANTS)
    for variant, proven in stored.items():
        result = "proven" if proven else "unproven"
        assert (
            value(figures, "patience_daily_preparations_total", variant=variant, result=result) == 1
        ), variant
        assert total(figures, "patience_daily_preparations_total", variant=variant) == 1
        assert value(figures, "patience_daily_candidates_tried_count", variant=variant) == 1
        assert value(figures, "patience_daily_candidates_tried_sum", variant=variant) >= 1
        assert value(figures, "patience_daily_preparation_seconds_count", variant=variant) == 1
    assert value(servers.figures(), "patience_celery_queue_length", queue="celery") == 0
    # The worker's port wants the token too.
    assert get(servers.worker_port, "/", None)[0] == 401
    assert get(servers.worker_port, "/", "Bearer wrong-token-wrong-token")[0] == 403
    # The daily codes the worker just made are in no figure.
    for code in _codes(servers.database):
        assert code not in servers.scrape(servers.worker_port, "/")
        assert code not in servers.scrape()


def _dailies(database: str, date: str) -> dict[str, bool]:
    with psycopg.connect(f"postgresql://postgres@{PG_HOST}:{PG_PORT}/{database}") as conn:
        rows = conn.execute(
            "SELECT variant, proven FROM games_dailydeal WHERE date = %s", [date]
        ).fetchall()
    return dict(rows)


def _codes(database: str) -> list[str]:
    with psycopg.connect(f"postgresql://postgres@{PG_HOST}:{PG_PORT}/{database}") as conn:
        rows = conn.execute(
            "SELECT d.code FROM games_dailydeal dd JOIN games_deal d ON d.id = dd.deal_id"
        ).fetchall()
    return [code for (code,) in rows]


def test_two_daphnes_of_one_directory_are_scraped_as_one(servers: Servers):
    """Several daphnes in one container (``make stack`` on one host): each
    writes its own files, a scrape of either sums them all."""
    port = free_port()
    log = servers.logs / "daphne2.log"
    second = start_daphne(port, servers.env, log)
    try:
        wait_until_up(port, second, log)
        before = servers.figures()
        player = sign_up(f"m{secrets.token_hex(4)}", port)
        game = player.expect("POST", "/api/games/", {"code": CODE}, status=201)
        player.expect(
            "POST",
            f"/api/games/{game['id']}/actions/",
            {"seq": 0, "action": {"type": "move", "from": "t1", "to": "f"}},
        )
        for scraped in (servers.figures(), parse(servers.scrape(port))):
            moved = value(
                scraped, "patience_actions_total", transport="http", outcome="accepted"
            ) - value(before, "patience_actions_total", transport="http", outcome="accepted")
            assert moved == 1
    finally:
        stop([second])


def test_a_killed_daphne_leaves_no_open_socket_behind(servers: Servers):
    """Last: it restarts the daphne. The dead process's counters stay in the sum."""
    player = sign_up(f"m{secrets.token_hex(4)}", servers.port)
    game = player.expect("POST", "/api/games/", {"code": CODE}, status=201)
    player.expect(
        "POST",
        f"/api/games/{game['id']}/actions/",
        {"seq": 0, "action": {"type": "move", "from": "t1", "to": "f"}},
    )
    ws = open_socket(servers.port, f"/ws/games/{game['id']}/", player)
    assert receive(ws, deadline=soon())["type"] == "snapshot"
    before = servers.figures()
    assert value(before, "patience_websockets_open", kind="game") == 1
    accepted = value(before, "patience_actions_total", transport="http", outcome="accepted")
    assert accepted >= 1
    servers.restart_daphne()
    close_quietly(ws)
    after = servers.figures()
    assert value(after, "patience_websockets_open", kind="game") == 0
    assert value(after, "patience_actions_total", transport="http", outcome="accepted") == accepted
