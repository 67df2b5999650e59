# Canfield Online. `make run` serves the site on http://127.0.0.1:8000/, `make test` checks
# everything CI checks. Both set up .venv from requirements.txt when it is missing or stale.

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.requirements.stamp
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=

.DEFAULT_GOAL := help
.NOTPARALLEL:
.PHONY: help deps tools run test lint fmt pytest bench

help:
	@echo "make run     serve on http://$(HOST):$(PORT)/ (Daphne; migrates first)"
	@echo "make test    system tools, lint, format check, mypy, compose config, pytest"
	@echo "make pytest  the test suite only (PYTEST_ARGS=... to pass arguments)"
	@echo "make lint    ruff check, ruff format --check, mypy --strict games/engine"
	@echo "make fmt     ruff format and ruff check --fix"
	@echo "make bench   run the engine, API and leaderboard benchmarks"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall only when requirements.txt changed since the last install.
$(STAMP): requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --disable-pip-version-check -q -r requirements.txt
	touch $@

deps: $(STAMP)

# Debian's Chromium for the browser tests and docker-compose for the compose file check;
# installed when missing and we are root (as on CI), else a clear failure.
tools:
	@if [ ! -x /usr/bin/chromium ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get update -q && apt-get install -y -q chromium; \
		else \
			echo "Chromium is missing: apt-get install chromium (as root)" >&2; exit 1; \
		fi; \
	fi
	@if ! command -v docker-compose >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get update -q && apt-get install -y -q --no-install-recommends docker-compose; \
		else \
			echo "docker-compose is missing: apt-get install docker-compose (as root)" >&2; \
			exit 1; \
		fi; \
	fi

run: deps
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	$(BIN)/daphne -b $(HOST) -p $(PORT) canfield_site.asgi:application

test: deps tools lint pytest

lint: deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@if ls games/engine/*.py >/dev/null 2>&1; then \
		echo "$(BIN)/mypy --strict games/engine"; $(BIN)/mypy --strict games/engine; \
	else \
		echo "mypy: games/engine has no modules yet"; \
	fi
	docker-compose -f docker-compose.yml config -q

pytest: deps
	$(BIN)/pytest $(PYTEST_ARGS)

fmt: deps
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: deps
	@set -e; for script in engine api leaderboard; do \
		echo "== benchmarks/$$script.py"; $(BIN)/python "benchmarks/$$script.py"; \
	done
