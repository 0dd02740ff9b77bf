"""The production shape (docker-compose.yml) is valid and complete. Docker
cannot run here, so the file is checked offline with Debian's ``docker-compose
config -q`` and read for what it must hold."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from deploy.processes import PGBOUNCER_QUERY_TIMEOUT, PGBOUNCER_QUERY_WAIT_TIMEOUT

ROOT = Path(__file__).resolve().parents[3]
COMPOSE = shutil.which("docker-compose")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The compose file with the example environment as its ``.env``."""
    shutil.copy(ROOT / "docker-compose.yml", tmp_path)
    shutil.copytree(ROOT / "deploy", tmp_path / "deploy")
    shutil.copy(ROOT / ".env.example", tmp_path / ".env")
    return tmp_path


@pytest.mark.skipif(
    COMPOSE is None and os.environ.get("REQUIRE_SERVICES") != "1",
    reason="no docker-compose (apt-get install docker-compose)",
)
def test_docker_compose_config_is_valid(project: Path):
    assert COMPOSE, "REQUIRE_SERVICES=1 but docker-compose is not installed"
    out = subprocess.run(
        [COMPOSE, "config", "-q"], cwd=project, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr


def test_the_services_the_product_needs_with_health_checks_and_volumes():
    spec = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = spec["services"]
    assert set(services) == {
        "db",
        "pgbouncer",
        "migrate",
        "redis",
        "web",
        "worker",
        "worker-heavy",
        "beat",
        "nginx",
    }
    for name in ("db", "pgbouncer", "redis", "web", "nginx", "worker", "worker-heavy"):
        assert "healthcheck" in services[name], name
    assert set(spec["volumes"]) == {"pgdata", "redisdata"}
    assert "daphne" in services["web"]["command"]
    assert "worker" in services["worker"]["command"] and "beat" in services["beat"]["command"]
    # Web is scaled behind nginx: no fixed host port on it.
    assert "ports" not in services["web"]
    for name in ("web", "worker", "beat"):
        environment = services[name]["environment"]
        assert environment["REDIS_URL"].startswith("redis://redis:")
        assert environment["DATABASE_URL"].startswith("postgres://")
        # Required, and its own: not derived from SECRET_KEY (PRODUCT.md, fair daily deals).
        assert environment["DAILY_DEAL_SECRET"].startswith("${DAILY_DEAL_SECRET:?")


def test_web_health_is_readiness_and_the_migrations_run_first():
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    # Ready means migrated too (config/health.py): worker, beat and nginx wait for it.
    assert "/readyz" in " ".join(services["web"]["healthcheck"]["test"])
    assert "/readyz" in " ".join(services["nginx"]["healthcheck"]["test"])
    for name in ("worker", "worker-heavy", "beat", "nginx"):
        assert services[name]["depends_on"]["web"]["condition"] == "service_healthy", name
    # The migrations, then the days' deals queued, not dealt, before web starts (issue 38).
    assert services["migrate"]["command"][-1].startswith("python manage.py migrate --noinput && ")
    assert services["migrate"]["command"][-1].endswith("prepare_dailies --queue")
    assert services["web"]["depends_on"]["migrate"]["condition"] == (
        "service_completed_successfully"
    )


def test_the_app_goes_through_pgbouncer_in_transaction_pooling_but_migrations_do_not():
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    bouncer = services["pgbouncer"]
    assert bouncer["image"].startswith("edoburu/pgbouncer:") and ":latest" not in bouncer["image"]
    assert bouncer["environment"]["POOL_MODE"] == "transaction"
    assert bouncer["environment"]["DB_HOST"] == "db"
    port = bouncer["environment"]["LISTEN_PORT"]
    for name in ("web", "worker", "beat"):
        environment = services[name]["environment"]
        assert f"@pgbouncer:{port}/" in environment["DATABASE_URL"], name
        assert environment["PGBOUNCER"] == "1", name  # config/settings.py: what pooling needs
    migrate = services["migrate"]["environment"]
    assert "@db:5432/" in migrate["DATABASE_URL"] and "PGBOUNCER" not in migrate
    # The timeouts are the app's: migrate sets them as the role's defaults, for
    # PgBouncer's sessions, and runs its own migrations without (games/apps.py).
    assert "DB_STATEMENT_TIMEOUT" not in migrate and "DB_LOCK_TIMEOUT" not in migrate
    # The bounded waits of deploy/stack.py's PgBouncer, which the stall test measures.
    assert bouncer["environment"]["QUERY_WAIT_TIMEOUT"] == str(PGBOUNCER_QUERY_WAIT_TIMEOUT)
    assert bouncer["environment"]["QUERY_TIMEOUT"] == str(PGBOUNCER_QUERY_TIMEOUT)


def test_nginx_passes_websockets_and_request_ids():
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    for needed in (
        "proxy_set_header Upgrade $http_upgrade",
        "proxy_set_header Connection $connection_upgrade",
        "X-Forwarded-For",
        "X-Forwarded-Proto",
        "X-Request-ID $request_id",
        "client_max_body_size 64k",
    ):
        assert needed in conf, needed


def test_the_env_example_names_only_settings_that_are_read():
    settings_text = (ROOT / "config" / "settings.py").read_text()
    compose_text = (ROOT / "docker-compose.yml").read_text()
    for line in (ROOT / ".env.example").read_text().splitlines():
        if line and not line.startswith("#"):
            name = line.split("=", 1)[0]
            assert f'"{name}"' in settings_text or f"${{{name}" in compose_text, name


def forwarded_proto(conf: str, header: str | None, scheme: str) -> str:
    """What nginx.conf sends daphne as X-Forwarded-Proto, read offline: its
    ``proxy_set_header`` and the ``map`` it names (exact keys and ``default``)."""
    sent = re.search(r"proxy_set_header X-Forwarded-Proto (\$\w+);", conf)
    assert sent, "nginx sets X-Forwarded-Proto"
    variable = sent[1]
    if variable == "$scheme":
        return scheme
    pattern = r"map \$http_x_forwarded_proto " + re.escape(variable) + r" \{([^}]*)\}"
    block = re.search(pattern, conf)
    assert block, f"{variable} is a map of the incoming X-Forwarded-Proto"
    entries = dict(
        line.strip().rstrip(";").split() for line in block[1].splitlines() if line.strip()
    )
    value = entries.get(header, entries["default"]) if header else entries["default"]
    return scheme if value == "$scheme" else value


def test_nginx_passes_the_outer_proxys_scheme_through():
    """Issue 25: nginx overwrote X-Forwarded-Proto with its own scheme (http, from
    the outer TLS proxy), so with HTTPS=1 no request looked secure: no HSTS."""
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert forwarded_proto(conf, "https", "http") == "https"  # behind the TLS proxy
    assert forwarded_proto(conf, None, "http") == "http"  # nginx faces clients itself
    assert forwarded_proto(conf, "gopher", "http") == "http"  # nonsense is not passed on


def test_every_container_s_logs_are_rotated_and_nginx_logs_no_full_address():
    """Issue 28: logs keep no address forever — each service's logs in docker's
    json-file with a size and a count of files (the oldest deleted), and nginx's
    access lines with the address's network only and no query string."""
    spec = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    for name, service in spec["services"].items():
        logging = service.get("logging")
        assert logging and logging["driver"] == "json-file", name
        assert logging["options"]["max-size"] and logging["options"]["max-file"], name
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    # In the server block (it replaces the image's own "main" log, which names the address).
    assert re.search(r"^    access_log \S+ masked;$", nginx, re.M)
    fmt = re.search(r"log_format masked (.*?);", nginx, re.S)
    assert fmt, nginx
    for exact in ("$remote_addr", "$request ", "$request_uri", "$args", "$http_x_forwarded_for"):
        assert exact not in fmt.group(1), exact
    assert "$remote_network" in fmt.group(1) and "$uri" in fmt.group(1)


def test_every_daphne_gives_a_handshake_the_kits_time():
    """Issue 38: a connect storm's handshakes are answered late, not dropped at
    daphne's 5 s default; compose, Kubernetes and the stack say the same time."""
    from deploy.processes import DAPHNE_QUIET
    from kit.sockets import HANDSHAKE_TIMEOUT_S

    def timeout(command: list[str]) -> int:
        return int(command[command.index("--websocket_connect_timeout") + 1])

    web = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["web"]
    docs = yaml.safe_load_all((ROOT / "deploy/k8s/base/web.yaml").read_text())
    pod = next(doc for doc in docs if doc["kind"] == "Deployment")
    (container,) = pod["spec"]["template"]["spec"]["containers"]
    for command in (web["command"], container["command"], DAPHNE_QUIET):
        assert timeout(command) == HANDSHAKE_TIMEOUT_S, command
