# Two commands a newcomer needs: `make run` and `make test`. See README.md.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
CODE ?= EH1-N-AAAAAAF

.PHONY: run test lint typecheck pytest bench clean

$(VENV)/.installed: requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

## run: deal CODE (default EH1-N-AAAAAAF) with the engine's command line
run: $(VENV)/.installed
	$(PY) -m games.engine deal $(CODE)

## test: lint, type-check the engine (mypy --strict), run the whole test suite
test: lint typecheck pytest

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(VENV)/.installed
	$(VENV)/bin/mypy

pytest: $(VENV)/.installed
	$(PY) -m pytest

## bench: print the engine's speed figures
bench: $(VENV)/.installed
	$(PY) bench/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
