"""The sample Grafana dashboard (``deploy/grafana/patience-daily.json``) reads
only figures the service exports, and shows every one of them: renaming or
dropping a metric fails here instead of leaving an empty panel."""

from __future__ import annotations

import json
import re
from pathlib import Path

from prometheus_client.metrics import MetricWrapperBase

from config.exporter import QueueCollector
from games import metrics as games_metrics
from kit import metrics

DASHBOARD = Path(__file__).resolve().parents[3] / "deploy" / "grafana" / "patience-daily.json"
SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"), "gauge": ("",)}


def exported() -> dict[str, str]:
    """Every sample name a scrape can hold → the family it belongs to."""
    names: dict[str, str] = {}
    for item in [*vars(metrics).values(), *vars(games_metrics).values()]:
        if isinstance(item, MetricWrapperBase):
            for suffix in SUFFIXES[item._type]:
                names[item._name + suffix] = item._name
    for family in QueueCollector().describe():
        names[family.name] = family.name
    return names


def expressions() -> list[str]:
    spec = json.loads(DASHBOARD.read_text())
    found = [t["expr"] for p in spec["panels"] for t in p.get("targets", [])]
    assert found, "no PromQL in the dashboard"
    return found


def test_every_metric_the_dashboard_reads_is_exported():
    names = exported()
    assert len(names) > 10, names  # the collection above found the metric objects
    for expr in expressions():
        used = re.findall(r"\bpatience_[a-z0-9_]+", expr)
        assert used, expr
        for name in used:
            assert name in names, f"{name} (in {expr!r}) is not exported"


def test_every_exported_family_has_a_panel():
    names = exported()
    shown = {names[n] for e in expressions() for n in re.findall(r"\bpatience_[a-z0-9_]+", e)}
    assert shown == set(names.values())


def test_the_dashboard_picks_its_prometheus_and_each_panel_has_a_place():
    spec = json.loads(DASHBOARD.read_text())
    assert [v["type"] for v in spec["templating"]["list"]] == ["datasource"]
    ids = [p["id"] for p in spec["panels"]]
    assert len(ids) == len(set(ids))
    for panel in spec["panels"]:
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
        assert {"x", "y", "w", "h"} <= set(panel["gridPos"]), panel["title"]
