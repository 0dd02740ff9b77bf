"""The Kubernetes manifests (deploy/k8s/) render and are what docs/operations.md says.

Rendered offline with ``kubectl kustomize`` (Debian's kubectl, kustomize v5),
the base and the production overlay (its ``secrets.env`` made from the
committed example in a copy of the tree, as an operator makes it), and every
document checked against the schemas of Kubernetes 1.32 (kubernetes-validate,
strict: an unknown field fails). Then the shape: probes, beat, autoscaling,
disruption budget, Ingress, settings from the ConfigMap and Secret, the
database through PgBouncer for everyone but the migrations Job.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
import yaml
from django.conf import settings

from deploy.processes import PGBOUNCER_QUERY_TIMEOUT, PGBOUNCER_QUERY_WAIT_TIMEOUT

ROOT = Path(__file__).resolve().parents[3]
K8S = ROOT / "deploy" / "k8s"
KUBECTL = shutil.which("kubectl")
KUBERNETES = "1.32"  # the schemas the manifests are checked against
APP_IMAGE = re.compile(r"(^|/)patience-daily(:|$)")
COMPONENT = "app.kubernetes.io/component"

pytestmark = pytest.mark.skipif(
    KUBECTL is None and os.environ.get("REQUIRE_SERVICES") != "1",
    reason="no kubectl (apt-get install kubectl)",
)

Doc = dict[str, Any]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Doc]]:
    assert KUBECTL, "REQUIRE_SERVICES=1 but kubectl is not installed"
    tree = tmp_path_factory.mktemp("k8s") / "k8s"
    shutil.copytree(K8S, tree, ignore=shutil.ignore_patterns("secrets.env"))
    production = tree / "overlays" / "production"
    shutil.copy(production / "secrets.env.example", production / "secrets.env")
    out: dict[str, list[Doc]] = {}
    for name, path in (("base", tree / "base"), ("production", production)):
        result = subprocess.run(
            [KUBECTL, "kustomize", str(path)], capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, result.stderr
        out[name] = [doc for doc in yaml.safe_load_all(result.stdout) if doc]
    return out


def by_kind(docs: list[Doc], kind: str) -> list[Doc]:
    return [doc for doc in docs if doc["kind"] == kind]


def one(docs: list[Doc], kind: str, component: str) -> Doc:
    found = [d for d in by_kind(docs, kind) if d["metadata"]["labels"].get(COMPONENT) == component]
    assert len(found) == 1, (kind, component, [d["metadata"]["name"] for d in found])
    return found[0]


def named(docs: list[Doc], kind: str, name: str) -> Doc:
    found = [d for d in by_kind(docs, kind) if d["metadata"]["name"] == name]
    assert len(found) == 1, (kind, name)
    return found[0]


def pod_spec(workload: Doc) -> Doc:
    return workload["spec"]["template"]["spec"]


def app_containers(docs: list[Doc]) -> Iterator[tuple[Doc, Doc]]:
    """(workload, container) for every container running the service's image."""
    for workload in by_kind(docs, "Deployment") + by_kind(docs, "Job"):
        for container in pod_spec(workload)["containers"]:
            if APP_IMAGE.search(container["image"]):
                yield workload, container


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def env_of(container: Doc) -> dict[str, Doc]:
    return {entry["name"]: entry for entry in container.get("env", [])}


# --- valid ----------------------------------------------------------------------------


def test_every_document_is_valid_kubernetes(rendered):
    for name, docs in rendered.items():
        kinds = {doc["kind"] for doc in docs}
        assert {"Deployment", "Job", "Service", "Ingress", "ConfigMap", "Secret"} <= kinds
        assert {"HorizontalPodAutoscaler", "PodDisruptionBudget"} <= kinds
        for doc in docs:
            try:
                kubernetes_validate.validate(doc, KUBERNETES, strict=True)
            except kubernetes_validate.ValidationError as exc:
                raise AssertionError(
                    f"{name}: {doc['kind']} {doc['metadata']['name']}: {exc}"
                ) from None


def test_the_validation_can_fail(rendered):
    """The check above is not vacuous: an unknown field is refused."""
    web = dict(one(rendered["base"], "Deployment", "web"))
    web["spec"] = {**web["spec"], "replicaz": 3}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(web, KUBERNETES, strict=True)


# --- web ------------------------------------------------------------------------------


def test_web_probes_ask_livez_and_readyz_on_the_container_port(rendered):
    for docs in rendered.values():
        web = one(docs, "Deployment", "web")
        (container,) = pod_spec(web)["containers"]
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert ports["http"] == 8000 and "8000" in container["command"]
        hosts = named_config(docs)["ALLOWED_HOSTS"].split(",")
        for probe, path in (
            ("livenessProbe", "/livez"),
            ("startupProbe", "/livez"),
            ("readinessProbe", "/readyz"),
        ):
            get = container[probe]["httpGet"]
            assert get["path"] == path, probe
            assert get["port"] in ("http", 8000), probe
            # Django answers 400 to a Host it does not allow: the probe's must be.
            (host,) = [h["value"] for h in get["httpHeaders"] if h["name"] == "Host"]
            assert host in hosts, (probe, host, hosts)
        # Websockets get time to close on a rolling update.
        assert pod_spec(web)["terminationGracePeriodSeconds"] >= 30


def test_autoscaler_and_disruption_budget_cover_the_web_pods(rendered):
    for docs in rendered.values():
        web = one(docs, "Deployment", "web")
        labels = web["spec"]["template"]["metadata"]["labels"]
        assert "replicas" not in web["spec"]  # the autoscaler owns the count
        hpa = one(docs, "HorizontalPodAutoscaler", "web")
        target = hpa["spec"]["scaleTargetRef"]
        assert (target["kind"], target["name"]) == ("Deployment", web["metadata"]["name"])
        assert selects(web["spec"]["selector"]["matchLabels"], labels)
        (metric,) = hpa["spec"]["metrics"]
        assert metric["resource"]["name"] == "cpu"
        pdb = one(docs, "PodDisruptionBudget", "web")
        assert selects(pdb["spec"]["selector"]["matchLabels"], labels)
        # A node can always be drained: the budget leaves at least one pod to move.
        assert pdb["spec"]["minAvailable"] < hpa["spec"]["minReplicas"]


def test_ingress_keeps_websockets_open_and_routes_to_the_web_pods(rendered):
    for docs in rendered.values():
        (ingress,) = by_kind(docs, "Ingress")
        notes = ingress["metadata"]["annotations"]
        assert notes["nginx.ingress.kubernetes.io/proxy-read-timeout"] == "3600"
        assert notes["nginx.ingress.kubernetes.io/proxy-send-timeout"] == "3600"
        assert notes["nginx.ingress.kubernetes.io/proxy-body-size"] == "64k"
        (rule,) = ingress["spec"]["rules"]
        (path,) = rule["http"]["paths"]
        backend = path["backend"]["service"]
        service = named(docs, "Service", backend["name"])
        (port,) = [p for p in service["spec"]["ports"] if p["name"] == backend["port"]["name"]]
        web = one(docs, "Deployment", "web")
        assert selects(service["spec"]["selector"], web["spec"]["template"]["metadata"]["labels"])
        (container,) = pod_spec(web)["containers"]
        container_ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert port["targetPort"] in (*container_ports, *container_ports.values())


# --- worker, beat, migrations ---------------------------------------------------------


def test_beat_is_one_pod_replaced_not_rolled(rendered):
    for docs in rendered.values():
        beat = one(docs, "Deployment", "beat")
        assert beat["spec"]["replicas"] == 1
        assert beat["spec"]["strategy"] == {"type": "Recreate"}
        assert "beat" in " ".join(pod_spec(beat)["containers"][0]["command"])
    worker = one(rendered["production"], "Deployment", "worker")
    assert "worker" in pod_spec(worker)["containers"][0]["command"]
    job = one(rendered["production"], "Job", "migrate")
    command = pod_spec(job)["containers"][0]["command"][-1]
    assert command.startswith("python manage.py migrate --noinput && ")
    assert command.endswith("prepare_dailies --queue")  # queued, not dealt (issue 38)


# --- settings -------------------------------------------------------------------------


def generated(docs: list[Doc], kind: str, name: str) -> Doc:
    """The ConfigMap or Secret kustomize generated as ``name`` (plus its hash)."""
    (found,) = [d for d in by_kind(docs, kind) if d["metadata"]["name"].startswith(name + "-")]
    return found


def named_config(docs: list[Doc]) -> dict[str, str]:
    return dict(generated(docs, "ConfigMap", "patience-config")["data"])


def secret_name(docs: list[Doc]) -> str:
    return str(generated(docs, "Secret", "patience-secrets")["metadata"]["name"])


def secret_keys(docs: list[Doc], name: str) -> dict[str, str]:
    secret = named(docs, "Secret", name)
    return {k: base64.b64decode(v).decode() for k, v in secret.get("data", {}).items()}


def test_every_app_container_takes_its_settings_from_the_configmap_and_secret(rendered):
    for name, docs in rendered.items():
        containers = list(app_containers(docs))
        assert {w["metadata"]["labels"][COMPONENT] for w, _ in containers} == {
            "web", "worker", "worker-heavy", "beat", "migrate"
        }  # fmt: skip
        for workload, container in containers:
            where = f"{name}: {workload['metadata']['name']}"
            sources = container["envFrom"]
            assert [s["configMapRef"]["name"] for s in sources] == [
                generated(docs, "ConfigMap", "patience-config")["metadata"]["name"]
            ], where
            env = env_of(container)
            for key in ("SECRET_KEY", "DAILY_DEAL_SECRET", "POSTGRES_PASSWORD", "REDIS_URL"):
                ref = env[key]["valueFrom"]["secretKeyRef"]
                assert key in secret_keys(docs, ref["name"]), (where, key)
            # Every other value is literal or built from what comes before it.
            defined = set(named_config(docs))
            for entry in container["env"]:
                for used in re.findall(r"\$\((\w+)\)", entry.get("value", "")):
                    assert used in defined, (where, entry["name"], used)
                defined.add(entry["name"])


def test_the_app_goes_through_pgbouncer_but_the_migrations_do_not(rendered):
    for name, docs in rendered.items():
        bouncer = one(docs, "Service", "pgbouncer")
        (port,) = bouncer["spec"]["ports"]
        deployment = one(docs, "Deployment", "pgbouncer")
        settings = named(
            docs,
            "ConfigMap",
            pod_spec(deployment)["containers"][0]["envFrom"][0]["configMapRef"]["name"],
        )["data"]
        assert settings["POOL_MODE"] == "transaction"
        assert settings["LISTEN_PORT"] == str(port["port"])
        # The bounded waits of deploy/stack.py's PgBouncer, which the stall test measures.
        assert settings["QUERY_WAIT_TIMEOUT"] == str(PGBOUNCER_QUERY_WAIT_TIMEOUT), name
        assert settings["QUERY_TIMEOUT"] == str(PGBOUNCER_QUERY_TIMEOUT), name
        assert selects(
            bouncer["spec"]["selector"], deployment["spec"]["template"]["metadata"]["labels"]
        )
        for workload, container in app_containers(docs):
            env = env_of(container)
            url = urlsplit(env["DATABASE_URL"]["value"])
            host = url.netloc.rsplit("@", 1)[1]
            if workload["kind"] == "Job":
                assert host == "$(POSTGRES_HOST):$(POSTGRES_PORT)", name
                assert "PGBOUNCER" not in env, name
                assert "DB_STATEMENT_TIMEOUT" not in env, name  # the app's (games/apps.py)
            else:
                where = f"{name}: {workload['metadata']['name']}"
                assert host == f"{bouncer['metadata']['name']}:{port['port']}", where
                assert env["PGBOUNCER"]["value"] == "1", where


def test_web_and_worker_figures_are_scrapable_with_the_token_only(rendered):
    """docs/operations.md, "Metrics": each pod's processes write to a memory emptyDir of its
    own (never shared), the token comes from the Secret, and the annotations name
    the port the figures are really served on (web's HTTP port, the worker's
    METRICS_PORT)."""
    for name, docs in rendered.items():
        for component, port_name in (("web", "http"), ("worker", "metrics")):
            workload = one(docs, "Deployment", component)
            spec = pod_spec(workload)
            (container,) = spec["containers"]
            where = f"{name}: {component}"
            env = env_of(container)
            token = env["METRICS_TOKEN"]["valueFrom"]["secretKeyRef"]
            assert token["key"] in secret_keys(docs, token["name"]), where
            directory = env["PROMETHEUS_MULTIPROC_DIR"]["value"]
            mount = [m for m in container["volumeMounts"] if m["mountPath"] == directory]
            assert len(mount) == 1, where
            volume = [v for v in spec["volumes"] if v["name"] == mount[0]["name"]]
            assert volume[0]["emptyDir"] == {"medium": "Memory"}, where
            ports = {p["name"]: p["containerPort"] for p in container["ports"]}
            annotations = workload["spec"]["template"]["metadata"]["annotations"]
            assert annotations["prometheus.io/port"] == str(ports[port_name]), where
            if component == "worker":
                assert env["METRICS_PORT"]["value"] == str(ports["metrics"]), where


def test_a_stopping_worker_may_finish_its_longest_task(rendered):
    """The worker's grace period covers CELERY_TASK_TIME_LIMIT, so a rolling update
    does not kill a task the broker would only hand out again after
    CELERY_VISIBILITY_TIMEOUT."""
    for docs in rendered.values():
        grace = pod_spec(one(docs, "Deployment", "worker"))["terminationGracePeriodSeconds"]
        assert grace > settings.CELERY_TASK_TIME_LIMIT


def test_base_secrets_are_empty_and_production_takes_the_operators_file(rendered):
    base = secret_keys(rendered["base"], secret_name(rendered["base"]))
    assert set(base) == {
        "SECRET_KEY",
        "DAILY_DEAL_SECRET",
        "POSTGRES_PASSWORD",
        "REDIS_URL",
        "METRICS_TOKEN",
    }
    assert set(base.values()) == {""}  # a process refuses to start without them
    production = secret_keys(rendered["production"], secret_name(rendered["production"]))
    example = K8S / "overlays" / "production" / "secrets.env.example"
    expected = dict(
        line.split("=", 1)
        for line in example.read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert production == expected
    ignored = (K8S / "overlays" / "production" / ".gitignore").read_text().split()
    assert "secrets.env" in ignored


# --- how the pods run -----------------------------------------------------------------


def test_every_pod_runs_unprivileged_with_a_read_only_root_and_bounded_resources(rendered):
    dockerfile_user = re.search(r"^USER (\d+)", (ROOT / "Dockerfile").read_text(), re.M)
    assert dockerfile_user, "the Dockerfile runs as a numeric user"
    for name, docs in rendered.items():
        for workload in by_kind(docs, "Deployment") + by_kind(docs, "Job"):
            spec = pod_spec(workload)
            where = f"{name}: {workload['metadata']['name']}"
            assert spec["securityContext"]["runAsNonRoot"] is True, where
            assert spec["automountServiceAccountToken"] is False, where
            for container in spec["containers"]:
                security = container["securityContext"]
                assert security["readOnlyRootFilesystem"] is True, where
                assert security["allowPrivilegeEscalation"] is False, where
                assert security["capabilities"]["drop"] == ["ALL"], where
                for kind in ("requests", "limits"):
                    assert {"cpu", "memory"} <= set(container["resources"][kind]), where
                if APP_IMAGE.search(container["image"]):
                    assert spec["securityContext"]["runAsUser"] == int(dockerfile_user[1])
                    mounts = {m["mountPath"] for m in container["volumeMounts"]}
                    assert "/tmp" in mounts, where  # daphne and beat write there
            labels = workload["spec"]["template"]["metadata"]["labels"]
            assert labels["app.kubernetes.io/name"] == "patience-daily", where
            assert COMPONENT in labels, where


def test_production_names_a_release_image_and_a_namespace(rendered):
    docs = rendered["production"]
    for workload, container in app_containers(docs):
        image = container["image"]
        assert ":" in image and not image.endswith(":latest"), image
        assert workload["metadata"]["namespace"] == "patience"
    (ingress,) = by_kind(docs, "Ingress")
    host = ingress["spec"]["rules"][0]["host"]
    assert host in named_config(docs)["ALLOWED_HOSTS"].split(",")
    assert f"https://{host}" in named_config(docs)["CSRF_TRUSTED_ORIGINS"].split(",")
    assert ingress["spec"]["tls"][0]["hosts"] == [host]
