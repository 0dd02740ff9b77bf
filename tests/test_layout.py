"""The tests' layout (issue 40, docs/architecture.md "The tests' layout"): no
test module imports another test module or a conftest; a helper two modules
need lives in ``tests/support/``. Every Python file under ``tests/`` is read
with ``ast`` (nothing imported, no database): an import of a module of the
``tests`` package whose last part is ``test_…`` or ``conftest`` — absolute
(``tests.kit.test_api``) or relative (``.test_api``, ``from . import
test_api``) — fails, named by file and line; so does such an import in the
code a test hands to another interpreter as a string (``python -c``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

# An import written in a string (code run by another interpreter, ``python -c``):
# ``from tests.kit.test_x import y``, ``import tests.kit.test_x``.
IN_TEXT = re.compile(r"\b(?:from\s+(tests(?:\.\w+)*)\s+import\b|import\s+(tests(?:\.\w+)*))")


def is_test_module(name: str) -> bool:
    """``name`` (dotted) is a test module or a conftest of the ``tests`` package."""
    parts = name.split(".")
    last = parts[-1]
    return parts[0] == "tests" and (last.startswith("test_") or last == "conftest")


def module_of(path: Path) -> str:
    """The dotted name of a file under the repository: tests/kit/test_x.py → tests.kit.test_x."""
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def is_package(name: str) -> bool:
    return (ROOT / Path(*name.split("."))).is_dir()


def imported(node: ast.Import | ast.ImportFrom, module: str) -> list[str]:
    """The modules an import statement in ``module`` may load, absolute and dotted:
    ``from .test_x import y`` → the package's ``test_x``; ``from . import test_x``
    → that too (a name imported from a package may be a module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".")[: -node.level]
        base = ".".join([*package, *([base] if base else [])])
    if not is_package(base):
        return [base]
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def imports_of_tests(source: str, module: str) -> list[tuple[int, str]]:
    """(line, module) for every import of a test module or a conftest in
    ``source``, the text of ``module``: import statements, and imports in the
    code carried by its string constants."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [name for name in imported(node, module) if is_test_module(name)]
            found.extend((node.lineno, name) for name in dict.fromkeys(names))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for match in IN_TEXT.finditer(node.value):
                name = match.group(1) or match.group(2)
                if is_test_module(name):
                    line = node.lineno + node.value.count("\n", 0, match.start())
                    found.append((line, name))
    return sorted(found)


def breaches(files: list[Path]) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{line}: imports {name}"
        for path in files
        for line, name in imports_of_tests(path.read_text(), module_of(path))
    ]


def test_no_test_module_imports_another_or_a_conftest():
    files = sorted(TESTS.rglob("*.py"))
    assert any(path.name == "conftest.py" for path in files)
    assert len([path for path in files if path.name.startswith("test_")]) > 100
    found = "\n".join(breaches(files))
    assert not found, f"a helper two test modules need goes to tests/support/:\n{found}"


def test_the_checker_sees_every_form_of_the_import():
    """Each form a test module could be reached by, found with its line; the
    support package and a module that is not a test are not."""
    test_x, conftest = "test_" + "x", "con" + "ftest"  # split: this file is scanned too
    source = "\n".join(
        [
            f"from tests.kit.{test_x} import helper",  # 1
            f"import tests.games.engine.{test_x}",  # 2
            f"from .{test_x} import helper",  # 3
            f"from . import {test_x}, support",  # 4
            f"from ..{conftest} import Server",  # 5
            "from tests.support.api import act",  # 6: fine
            "from tests.system.ops.failing_urls import CODE",  # 7: not a test module
            f"CODE = '''\nimport django\nfrom tests.kit.{test_x} import helper\n'''",  # 8, 10
            "from games.engine import new_game",  # 12: fine
            "from tests.support.api import test_client",  # 13: a name, not a module
        ]
    )
    assert imports_of_tests(source, "tests.system.browser.test_here") == [
        (1, "tests.kit.test_x"),
        (2, "tests.games.engine.test_x"),
        (3, "tests.system.browser.test_x"),
        (4, "tests.system.browser.test_x"),
        (5, "tests.system.conftest"),
        (10, "tests.kit.test_x"),
    ]
