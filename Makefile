# Canfield Online. `make run` serves the site on http://127.0.0.1:8000/, `make test` checks
# everything CI checks. Both set up .venv from requirements-dev.lock when it is missing or stale.

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.requirements.stamp
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=
# The suite runs in this many processes (pytest-xdist), a test file to a process, the files in the
# order they are collected: a process then takes the browser tests one after another and starts
# Playwright and Chromium once for them. xdist's default order (the files with most tests first)
# mixed them with other packages' files, and they were started again after each: 82 Playwright
# drivers in a run, which took 1,286 s of CPU and 748 s in all, against 1,151 s and 670 s in this
# order (benchmarks/suite_cpu.py). The CPU is the limit: the test processes and the servers and
# browsers they start keep 86% of two cores busy.
PYTEST_WORKERS ?= 2
USERS ?= 200
SECONDS ?= 60
LOADTEST_ARGS ?=

.DEFAULT_GOAL := help
.NOTPARALLEL:
.PHONY: help deps tools run test lint fmt pytest bench lock loadtest messages compilemessages

help:
	@echo "make run     serve on http://$(HOST):$(PORT)/ (Daphne and a worker; migrates first)"
	@echo "make test    system tools, lint, format check, mypy, compose config, pytest"
	@echo "make pytest  the test suite only (PYTEST_ARGS=... to pass arguments)"
	@echo "make lint    ruff check, ruff format --check, mypy (the whole project), compose check"
	@echo "make fmt     ruff format and ruff check --fix"
	@echo "make bench   run the engine, look-ahead, API, throughput, leaderboard, fault, offload, worker, socket-flood and log-in-flood benchmarks (~57 min)"
	@echo "make loadtest  Locust against two Daphne processes behind nginx (USERS=200 SECONDS=60)"
	@echo "make lock    pin pyproject.toml's dependencies into requirements*.lock"
	@echo "make messages         update locale/*/LC_MESSAGES/*.po from the sources (then translate)"
	@echo "make compilemessages  compile the .po catalogs into the committed .mo files"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall only when the lock file changed since the last install. The dependencies are declared
# in pyproject.toml; requirements.lock (runtime, for the Docker image) and requirements-dev.lock
# (runtime and development) pin them and all they need: `make lock` writes both.
$(STAMP): requirements-dev.lock | $(BIN)/python
	$(BIN)/python -m pip install --disable-pip-version-check -q -r requirements-dev.lock
	touch $@

deps: $(STAMP)

# Debian's Chromium for the browser tests, nginx for the test of deploy/nginx.conf,
# gettext for the catalogs' tests (makemessages, msgfmt) and docker-compose for the compose file
# check; installed when missing and we are root (as on CI),
# else a clear failure.
tools:
	@if [ ! -x /usr/bin/chromium ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get update -q && apt-get install -y -q chromium; \
		else \
			echo "Chromium is missing: apt-get install chromium (as root)" >&2; exit 1; \
		fi; \
	fi
	@if [ ! -x /usr/sbin/nginx ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get update -q && apt-get install -y -q --no-install-recommends nginx; \
		else \
			echo "nginx is missing: apt-get install nginx (as root)" >&2; exit 1; \
		fi; \
	fi
	@if ! command -v msgfmt >/dev/null 2>&1 || ! command -v xgettext >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get update -q && apt-get install -y -q --no-install-recommends gettext; \
		else \
			echo "gettext is missing: apt-get install gettext (as root)" >&2; exit 1; \
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

# The translations: locale/<lang>/LC_MESSAGES/{django,djangojs}.po, compiled to .mo files that are
# committed (a fresh clone runs without gettext's tools). `make run` and `make test` recompile them
# where msgfmt exists, so an edited .po is never served stale; tests/i18n checks .mo against .po.
MESSAGE_IGNORE := --ignore=.venv --ignore=staticfiles --ignore=tests --ignore=benchmarks \
	--ignore=loadtest --ignore=artifacts

messages: deps
	$(BIN)/python manage.py makemessages -a --no-obsolete $(MESSAGE_IGNORE)
	$(BIN)/python manage.py makemessages -d djangojs -a --no-obsolete $(MESSAGE_IGNORE)

# Each .mo is compiled again only when its .po is newer (as compilemessages does it: msgfmt
# --check-format).
PO_FILES := $(wildcard locale/*/LC_MESSAGES/*.po)
MO_FILES := $(PO_FILES:.po=.mo)

compilemessages: $(MO_FILES)

locale/%.mo: locale/%.po
	@if command -v msgfmt >/dev/null 2>&1; then \
		msgfmt --check-format -o $@ $<; \
	else \
		echo "msgfmt is missing (apt-get install gettext): using the committed $@"; \
	fi

# Static files are collected (and compressed: core.storage compresses only what
# changed) only when a source file or the installed packages changed since the last time, so that
# a restart of `make run` with nothing changed starts at once.
STATIC_STAMP := staticfiles/.collected
STATIC_SOURCES := $(shell find frontend/static -type f 2>/dev/null)

$(STATIC_STAMP): $(STAMP) $(STATIC_SOURCES)
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	touch $@

# The web process (Daphne) and a worker of the worker tier (background duties: dealing the days
# ahead, settling days, records, the Redis sets), started and stopped together: Ctrl-C stops both.
run: deps compilemessages $(STATIC_STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python -m core.supervise \
		-- $(BIN)/python -m canfield_site.serve -b $(HOST) -p $(PORT) \
		-- $(BIN)/python manage.py worker

test: deps tools compilemessages lint pytest

lint: deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	DAILY_DEAL_SECRET=compose-config-check-only docker-compose -f docker-compose.yml config -q

pytest: deps
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

fmt: deps
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Pin pyproject.toml's dependencies (versions already pinned stay unless pyproject.toml moves them).
lock: deps
	$(BIN)/uv pip compile -q pyproject.toml --python-version 3.11 -o requirements.lock
	$(BIN)/uv pip compile -q pyproject.toml --group dev --python-version 3.11 -o requirements-dev.lock

bench: deps
	@set -e; for script in engine stuck api throughput board faults offload worker flood login_flood; do \
		echo "== benchmarks/$$script.py"; $(BIN)/python "benchmarks/$$script.py"; \
	done

# Locust, headless, against a local deployment (PostgreSQL on 127.0.0.1, a private Redis, two
# Daphne processes, nginx with deploy/nginx.conf); bounded: USERS users for SECONDS seconds.
loadtest: deps tools
	$(BIN)/python loadtest/run.py --users $(USERS) --seconds $(SECONDS) $(LOADTEST_ARGS)
