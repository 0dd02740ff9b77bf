"""What the compose file gives the metrics (offline, as ``tests/system/deploy``): each
app container a fresh directory of its own for the processes' figures, the
worker its port, and nothing of them published on the host."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]


def test_each_app_container_has_its_own_metrics_directory_and_the_worker_a_port():
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    for name in ("web", "worker", "beat"):
        service = services[name]
        directory = service["environment"]["PROMETHEUS_MULTIPROC_DIR"]
        # A tmpfs: empty at every start, never shared between containers.
        assert directory in service["tmpfs"], name
    assert int(services["worker"]["environment"]["METRICS_PORT"]) > 0
    for name in ("web", "worker"):
        assert "ports" not in services[name], name  # scraped inside the network only
    assert "METRICS_TOKEN=" in (ROOT / ".env.example").read_text()
