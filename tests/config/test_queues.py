"""Queues that cannot starve each other (issue 38): every task of ours has a route
(``CELERY_TASK_ROUTES``) — a new task cannot land on a queue by default — what a
player waits for and the solver's searches go to different queues, and each
queue is taken by one class of worker, as compose, Kubernetes and the stack run
them. Before, every task but one shared the ``celery`` queue: a password-reset
mail waited 65 s behind six Easy Harp analyses."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.conf import settings

from config import exporter
from config.celery import app
from deploy.processes import QUEUES

ROOT = Path(__file__).resolve().parents[2]
OURS = ("accounts.", "clubs.", "config.", "frontend.", "games.", "kit.", "leaderboard.", "races.")


def queue_of(task: str) -> str:
    return app.amqp.router.route({}, task)["queue"].name


@pytest.fixture(scope="module")
def tasks() -> list[str]:
    app.loader.import_default_modules()  # every app's tasks.py, as a worker loads them
    found = sorted(name for name in app.tasks if name.startswith(OURS))
    assert "accounts.mail.mail_password_reset" in found and "games.tasks.analyse_attempt" in found
    return found


def test_every_task_of_ours_is_routed_to_a_queue_a_worker_takes(tasks):
    unrouted = [name for name in tasks if name not in settings.CELERY_TASK_ROUTES]
    assert not unrouted, f"name a queue for these in CELERY_TASK_ROUTES: {unrouted}"
    assert not set(settings.CELERY_TASK_ROUTES) - set(tasks), "a route names no task"
    taken = {q for queues in settings.WORKER_QUEUES.values() for q in queues}
    for name in tasks:
        assert queue_of(name) in taken, name


def test_a_mail_and_a_solver_search_go_to_queues_no_worker_takes_both_of(tasks):
    interactive, heavy = settings.WORKER_QUEUES["interactive"], settings.WORKER_QUEUES["heavy"]
    assert not set(interactive) & set(heavy)
    for name in (
        "accounts.mail.mail_password_reset",
        "accounts.mail.mail_email_verification",
        "games.tasks.verify_attempt",
        "games.tasks.review_attempt",
        "leaderboard.tasks.rate_race",
    ):
        assert queue_of(name) in interactive, name
    for name in (
        "games.tasks.analyse_attempt",
        "games.tasks.prove_lost",
        "games.tasks.prepare_daily_deal",
        "games.tasks.predict_daily_deal",
        "games.tasks.fill_practice_pool",
        "games.tasks.judge_knowledge",
    ):
        assert queue_of(name) in heavy, name


def test_compose_kubernetes_and_the_stack_run_a_worker_of_each_class():
    wanted = {cls: ",".join(queues) for cls, queues in settings.WORKER_QUEUES.items()}
    assert wanted == QUEUES  # deploy/processes.py, which cannot read the settings
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    compose = {n: s["command"] for n, s in services.items() if "worker" in s.get("command", [])}
    k8s = {
        path.name: yaml.safe_load(path.read_text())["spec"]["template"]["spec"]["containers"][0][
            "command"
        ]
        for path in (ROOT / "deploy/k8s/base").glob("worker*.yaml")
    }
    for commands in (compose, k8s):
        taken = sorted(command[command.index("-Q") + 1] for command in commands.values())
        assert taken == sorted(wanted.values()), commands


def test_the_exporter_reports_every_queue_length():
    assert set(exporter._queue_names()) >= {"interactive", "celery", "heavy", "fairplay"}
