# The two commands (README): `make run` and `make test`. Everything installs into .venv.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PYTHON := $(BIN)/python
HOST ?= 127.0.0.1
PORT ?= 8000
# The settings read them too: PUBLIC_URL (invitation links, the demo's login) defaults to http://HOST:PORT.
export HOST PORT

.PHONY: run test test-sqlite check lint typecheck contracts bench docs install install-dev migrate data serve clean

$(BIN)/activate:
	@command -v $(PY) >/dev/null || { echo "$(PY) not found: install Python 3.11 (or run make PY=python3)"; exit 1; }
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt $(BIN)/activate
	$(BIN)/pip install --quiet -r requirements.txt
	@touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt $(VENV)/.installed
	$(BIN)/pip install --quiet -r requirements-dev.txt
	@touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

migrate: install
	$(PYTHON) manage.py migrate --noinput

data: migrate
	$(PYTHON) manage.py setup_demo --url http://$(HOST):$(PORT)

run: data
	$(PYTHON) manage.py run_platform --host $(HOST) --port $(PORT)

# Two pytest-xdist workers, a test file at a time (tests/parallel.py); PYTEST_WORKERS=0 runs in one process.
# The 20 slowest tests are listed, to keep the whole run within its 15 minutes.
PYTEST_WORKERS ?= 2
test: install-dev
	$(PYTHON) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --durations=20 $(PYTEST_ARGS)

# The set-wise writers (corpus/bulk.py, annotation/work/rows.py, aggregation/storing.py) take one path on
# PostgreSQL and another elsewhere: their tests run a second time on SQLite, the embedded default.
SET_WISE_TESTS := tests/corpus/test_bulk.py tests/annotation/test_page_reads.py tests/aggregation/test_storing.py \
	tests/aggregation/test_reading.py tests/config/test_set_wise_writers.py
test-sqlite: install-dev
	env -u DATABASE_URL $(PYTHON) -m pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS) $(SET_WISE_TESTS)

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install-dev
	$(BIN)/mypy

# The layers and pure cores written down as import-linter contracts (pyproject.toml).
contracts: install-dev
	$(BIN)/lint-imports --no-logo

# `make check` runs exactly what CI runs: lint, types, import contracts, the docs, the tests, and the
# set-wise writers' tests again on SQLite.
check: lint typecheck contracts docs test test-sqlite

# The documentation (docs/, mkdocs.yml) as a site in var/site; --strict: a broken link or a page left
# out of the nav fails the build. The command and API reference pages are generated (docs_build/).
docs: install-dev
	$(BIN)/mkdocs build --strict

bench: install-dev
	$(PYTHON) -m bench $(BENCH_ARGS)

clean:
	rm -rf $(VENV) var staticfiles
