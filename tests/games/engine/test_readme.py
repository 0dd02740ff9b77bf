"""The examples of games/engine/README.md and of the engine's docstrings run as
doctests: documentation that stops being true fails the suite."""

import doctest
from pathlib import Path

import pytest

import games.engine.actions

README = Path(__file__).resolve().parents[3] / "games" / "engine" / "README.md"


def test_the_engine_readme_examples_hold():
    result = doctest.testfile(str(README), module_relative=False, report=True)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize("module", [games.engine.actions], ids=lambda m: m.__name__)
def test_the_docstring_examples_hold(module):
    result = doctest.testmod(module, report=True)
    assert result.attempted > 0
    assert result.failed == 0
