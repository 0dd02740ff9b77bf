"""The engine is pure Python: standard library only, no Django (STYLE.md, PRODUCT.md Shape)."""

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[3] / "games" / "engine"


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_engine_imports_only_the_standard_library():
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) > 5
    for path in files:
        for name in imported_modules(path):
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names or top == "__future__", (path.name, name)


def test_importing_the_engine_loads_no_django_or_third_party_module():
    code = (
        "import sys, games.engine, games.engine.cli, games.engine.solver; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] not in sys.stdlib_module_names "
        "and m.split('.')[0] not in ('games', '__main__')); print(bad)"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", code],
        cwd=ENGINE.parents[1],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
