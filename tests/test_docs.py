"""The documentation (issue 26): README.md stays short; every relative link of
README.md, docs/*.md and the packages' notes reaches a file (and heading) of
this repository; the README's configuration table is what config/settings.py
reads; the README's test command is the one CI runs; the metrics and the
Kubernetes objects docs/operations.md names exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
# The packages' own notes, which link into docs/.
NOTES = [
    ROOT / "games" / "engine" / "README.md",
    ROOT / "games" / "websocket.md",
    ROOT / "frontend" / "README.md",
]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def prose(path: Path) -> str:
    """The text of a Markdown file without its fenced code blocks."""
    return FENCE.sub("", path.read_text())


def anchors(path: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings."""
    found = set()
    for line in prose(path).splitlines():
        if match := re.match(r"#{1,6}\s+(.*)", line):
            slug = re.sub(r"[^\w\- ]", "", match.group(1).strip().lower().replace("`", ""))
            found.add(slug.replace(" ", "-"))
    return found


def broken_links(path: Path) -> list[str]:
    broken = []
    for target in LINK.findall(prose(path)):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve() if file else path
        if ROOT not in resolved.parents and resolved != ROOT:
            broken.append(f"{target}: outside the repository")
        elif not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no such heading in {resolved.relative_to(ROOT)}")
    return broken


def test_readme_is_at_most_250_lines():
    lines = len(README.read_text().splitlines())
    assert lines <= 250, f"README.md has {lines} lines: move the detail to docs/"


def test_the_docs_pages_exist():
    names = {path.name for path in DOCS}
    assert {"operations.md", "api.md", "architecture.md", "benchmarks.md"} <= names


def test_every_relative_link_reaches_a_file_and_heading():
    broken = {str(p.relative_to(ROOT)): broken_links(p) for p in [README, *DOCS, *NOTES]}
    assert not {page: links for page, links in broken.items() if links}, broken


def test_the_link_check_can_fail(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "a.md").write_text("# Here\n[ok](a.md#here) [gone](b.md) [no](a.md#there)\n")
    assert broken_links(tmp_path / "a.md") == [
        "b.md: no such file",
        "a.md#there: no such heading in a.md",
    ]


def test_readme_configuration_is_every_setting_the_settings_read():
    settings = (ROOT / "config" / "settings.py").read_text()
    read = set(re.findall(r'env(?:\.get|_flag|_list)\(\s*"([A-Z0-9_]+)"', settings))
    section = README.read_text().split("## Configuration", 1)[1].split("\n## ", 1)[0]
    first_cells = [row.split("|")[1] for row in section.splitlines() if row.startswith("| `")]
    documented = set(re.findall(r"`([A-Z0-9_]+)`", "".join(first_cells)))
    assert len(read) > 40
    assert not read - documented, f"README's Configuration lacks {sorted(read - documented)}"
    assert not documented - read, (
        f"README documents settings no longer read: {sorted(documented - read)}"
    )


def test_readme_test_command_is_the_one_ci_runs():
    commands = re.search(r"## Two commands\n+```sh\n(.*?)```", README.read_text(), re.S)
    assert commands, "README.md has no 'Two commands' block"
    runs = [line.split("#")[0].strip() for line in commands.group(1).splitlines()]
    assert runs == ["make run", "make test"]
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1].strip() == "make test"
    assert re.search(r"^test:", (ROOT / "Makefile").read_text(), re.M)


def test_every_metric_operations_names_is_exported():
    rows = [
        row.split("|")[1]
        for row in prose(ROOT / "docs" / "operations.md").splitlines()
        if row.startswith("| `patience_")
    ]
    named = set(re.findall(r"\bpatience_[a-z_]+", "".join(rows)))
    code = "".join(
        path.read_text()
        for package in ("kit", "games", "leaderboard", "accounts", "config")
        for path in (ROOT / package).rglob("*.py")
    )
    assert len(named) >= 10
    missing = {name for name in named if f'"{name.removesuffix("_total")}"' not in code}
    assert not missing, f"docs/operations.md names metrics no code exports: {sorted(missing)}"


def test_every_kubernetes_object_operations_names_is_in_the_manifests():
    named = set(re.findall(r"`(patience-[a-z-]+)`", prose(ROOT / "docs" / "operations.md")))
    manifests = "".join(path.read_text() for path in (ROOT / "deploy" / "k8s").rglob("*.yaml"))
    assert {"patience-web", "patience-worker", "patience-beat"} <= named
    missing = {name for name in named if f"name: {name}\n" not in manifests}
    assert not missing, f"docs/operations.md names objects deploy/k8s/ lacks: {sorted(missing)}"
