# Two commands a newcomer needs: `make run` and `make test`. See README.md.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
CODE ?= EH1-N-AAAAAAF
PORT ?= 8000

.PHONY: run stack deal test lint typecheck pytest bench bench-api bench-ws bench-flood bench-login bench-cost bench-solver bench-log bench-tap bench-load bench-stall bench-race bench-midnight messages clean

$(VENV)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

## run: the service on the embedded defaults (SQLite, in-process), daphne on :$(PORT),
## answering at once while the daily deals are prepared beside it (games/management/commands/serve.py)
run: $(VENV)/.installed
	DEBUG=1 $(PY) manage.py migrate --noinput
	DEBUG=1 $(PY) manage.py serve 127.0.0.1:$(PORT)

## stack: the production process set without Docker (PostgreSQL, Redis, 2 daphnes on
## :$(PORT) and the next port, a Celery worker, beat) until Ctrl-C, starting again a
## process that dies (as compose's restart: unless-stopped); see deploy/stack.py
stack: $(VENV)/.installed
	$(PY) -m deploy.stack --port $(PORT)

## deal: print deal CODE (default EH1-N-AAAAAAF) with the engine's command line
deal: $(VENV)/.installed
	$(PY) -m games.engine deal $(CODE)

## test: lint (and the import contracts), type-check the engine (mypy --strict), run the
## whole test suite
test: lint typecheck pytest

## lint: ruff, and the import contracts of pyproject.toml ([tool.importlinter]): imports run
## one way, the engine imports no Django, no circles inside a package
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache

typecheck: $(VENV)/.installed
	$(VENV)/bin/mypy

## pytest: the suite on $(TEST_WORKERS) processes (pytest-xdist, each test file whole to
## one; each its own test database and Redis database), naming the slowest tests at the end
TEST_WORKERS ?= 3
pytest: $(VENV)/.installed
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=20

## bench: the engine's speed figures; bench-api: the HTTP API's; bench-ws: websocket load;
## bench-solver: the solvers' (and the daily-deal job's) figures
bench: $(VENV)/.installed
	$(PY) bench/engine.py

bench-api: $(VENV)/.installed
	$(PY) bench/api.py

bench-ws: $(VENV)/.installed
	$(PY) bench/ws_load.py

## bench-flood: other players' action latency while one account floods 200 sockets (issue 25)
bench-flood: $(VENV)/.installed
	$(PY) bench/socket_flood.py

## bench-login: sign-in under attack: guesses at one account, a player's latency in a sign-in flood
bench-login: $(VENV)/.installed
	$(PY) bench/login_flood.py

## bench-cost: server CPU per action (daphne, PostgreSQL, worker, Redis) over the websocket
## and over HTTP on the production process set, against its floor measured in the same run
bench-cost: $(VENV)/.installed
	$(PY) bench/cost.py

## bench-race: a 50-racer room and 200 spectators on one daphne: progress fan-out per action,
## a racer's own ack p99, daphne CPU per action against the floor (issue 29); then a quick
## race queue of 500 players: who is matched, how soon, with whom, CPU per ask (issue 39)
bench-race: $(VENV)/.installed
	$(PY) bench/race.py

## bench-midnight: 00:00 UTC simulated: players open the new dailies while yesterday's analyses
## run and reminders go out: first board and ack p50/p99, mail delays, CPU per process (issue 38)
bench-midnight: $(VENV)/.installed
	$(PY) bench/midnight.py

bench-solver: $(VENV)/.installed
	$(PY) bench/solver.py

## bench-postmortem: where it went wrong (issue 27): a week of daily deals, lost lines of
## simple play, analysed with the production limits: seconds, probes, settled
.PHONY: bench-postmortem
bench-postmortem: $(VENV)/.installed
	$(PY) bench/postmortem.py

## bench-knew: what the player knew (issue 36): detection and false positives of the
## hidden-knowledge test on simulated honest and clairvoyant Easy Harp wins (docs/fairplay.md)
.PHONY: bench-knew
bench-knew: $(VENV)/.installed
	$(PY) bench/knew.py

## bench-log: bytes per action, per game and per day of the action log (PostgreSQL)
bench-log: $(VENV)/.installed
	$(PY) bench/action_log_size.py

## bench-tap: tap-to-landed in headless Chromium through a 500 ms round-trip delay proxy
## (drops on listed piles, taps), on a daphne of its own
bench-tap: $(VENV)/.installed
	$(PY) bench/tap_latency.py

## bench-load: the lobby's and the play page's time-to-interactive in headless Chromium on
## Fast 3G at 390×844, cold, with requests and bytes (docs/benchmarks.md, "make bench-load")
bench-load: $(VENV)/.installed
	$(PY) bench/load.py

## bench-stall: answer times of requests, /readyz and socket openings during a 30 s PgBouncer
## PAUSE (a database stall) on the production process set (issue 25)
bench-stall: $(VENV)/.installed
	$(PY) bench/db_stall.py

## messages: refresh the translation catalogs (locale/) from the code, then compile them
LANGS := -l id -l bg -l tr
IGNORE := --ignore .venv --ignore staticfiles --ignore .artifacts --ignore tests --ignore bench
messages: $(VENV)/.installed
	DEBUG=1 $(PY) manage.py makemessages $(LANGS) $(IGNORE) --no-obsolete
	DEBUG=1 $(PY) manage.py makemessages -d djangojs $(LANGS) $(IGNORE) --no-obsolete
	DEBUG=1 $(PY) manage.py compilemessages --ignore .venv

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
