"""``GET /metrics`` in process (no ``PROMETHEUS_MULTIPROC_DIR``: the embedded
default of ``make run``), and the figures the end-to-end test cannot provoke on
a healthy stack: a channel layer that refuses a broadcast."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings
from prometheus_client import REGISTRY

from deploy.processes import free_port
from games.dailies import daily_deal_get
from games.metrics import ActionMeter
from games.realtime import game_group
from kit.broadcast import publish
from tests.support.api import assert_error

TOKEN = "a-metrics-token-of-some-length"


def figure(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_no_token_set_means_no_metrics_page(anon):
    assert_error(anon.get("/metrics"), 404, "not_found")
    assert_error(anon.get("/metrics", HTTP_AUTHORIZATION="Bearer "), 404, "not_found")


@override_settings(METRICS_TOKEN=TOKEN)
@pytest.mark.parametrize(
    ("header", "status", "code"),
    [
        (None, 401, "not_authenticated"),
        ("Bearer", 401, "not_authenticated"),
        (f"Basic {TOKEN}", 401, "not_authenticated"),
        (f"Bearer {TOKEN[:-1]}", 403, "forbidden"),
        (f"Bearer {TOKEN.upper()}", 403, "forbidden"),
        ("Bearer " + "ı" * 30, 403, "forbidden"),  # not latin-1: compared as bytes, no 500
    ],
)
def test_a_missing_or_wrong_token_is_refused(anon, header, status, code):
    extra = {"HTTP_AUTHORIZATION": header} if header is not None else {}
    response = anon.get("/metrics", **extra)
    assert_error(response, status, code)
    assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert b"patience_" not in response.content


@override_settings(METRICS_TOKEN=TOKEN)
def test_the_token_reads_the_figures_and_only_by_get(anon):
    response = anon.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    assert response["Cache-Control"].startswith("max-age=0")
    text = response.content.decode()
    assert "# TYPE patience_actions_total counter" in text
    assert "# TYPE patience_action_seconds histogram" in text
    assert "patience_celery_broker_up 1.0" in text  # the tests' Redis answers
    posted = anon.post("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert_error(posted, 405, "method_not_allowed")


@pytest.mark.django_db(transaction=True)
def test_a_broadcast_the_channel_layer_refuses_is_counted():
    """The real Redis pub/sub layer pointed at a port nothing listens on."""
    dead = f"redis://127.0.0.1:{free_port()}/0"
    layers = {
        "default": {
            "BACKEND": "kit.layers.PubSubLayer",
            "CONFIG": {"hosts": [dead]},
        }
    }
    before = figure("patience_channel_send_failures_total", group="game")
    with override_settings(CHANNEL_LAYERS=layers):
        publish(game_group(1), {"type": "state", "v": 1})  # logged, never raised
    assert figure("patience_channel_send_failures_total", group="game") == before + 1
    assert figure("patience_channel_send_failures_total", group="leaderboard") == 0


@pytest.mark.django_db
def test_a_daily_read_before_the_job_made_it_is_counted_on_demand():
    before = figure("patience_daily_preparations_total", variant="SH1-C2", result="on_demand")
    daily_deal_get(date=dt.date(2031, 1, 1), variant="SH1-C2")
    daily_deal_get(date=dt.date(2031, 1, 1), variant="SH1-C2")  # made once, read once
    after = figure("patience_daily_preparations_total", variant="SH1-C2", result="on_demand")
    assert after == before + 1


def test_an_unknown_error_code_is_no_label():
    """Labels are bounded: a code that is not one of our snake_case words (it
    should never happen) is counted as ``other``, whatever it holds."""
    before = figure("patience_refusals_total", transport="http", reason="other")
    ActionMeter("http", 1).answered(422, "SH1-C4-AAAAAJ2 TH")
    ActionMeter("http", 1).answered(400, None)
    assert figure("patience_refusals_total", transport="http", reason="other") == before + 2
    assert (
        REGISTRY.get_sample_value(
            "patience_refusals_total", {"transport": "http", "reason": "SH1-C4-AAAAAJ2 TH"}
        )
        is None
    )
