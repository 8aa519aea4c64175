# Two commands matter: `make run` (demo portal on SQLite with a background worker) and `make test`.
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test test-fast test-sqlite lint check-migrations bench load audit sysdeps \
	portal-sysdeps e2e-deps clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# Demo portal (DEBUG on): SQLite unless DATABASE_URL is set. A real Celery worker runs in the
# background on the embedded broker (message files under var/broker, no Redis needed; log in
# var/worker.log) and stops when runserver, in the foreground, stops.
RUN_ENV := DJANGO_DEBUG=true PORTAL_EMBEDDED_BROKER=true
PORT ?= 8000
run: install portal-sysdeps
	$(RUN_ENV) CELERY_TASK_ALWAYS_EAGER=true $(BIN)/python manage.py migrate --noinput
	$(RUN_ENV) PORT=$(PORT) CELERY_TASK_ALWAYS_EAGER=true $(BIN)/python manage.py demo_setup
	@mkdir -p var; \
	$(RUN_ENV) $(BIN)/celery -A portal worker --pool=solo --loglevel=INFO --without-gossip \
	  --without-mingle --without-heartbeat -B --schedule var/celerybeat-schedule \
	  >var/worker.log 2>&1 & worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	echo "Celery worker started (pid $$worker, log var/worker.log)"; \
	$(RUN_ENV) DJANGO_RUNSERVER_HIDE_WARNING=true $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

# System packages beyond Python: what the portal uses (CJK fonts, Pango for the PDF reports),
# and for the tests also Chromium, ChromeDriver, poppler-utils and LibreOffice Calc.
portal-sysdeps:
	bash scripts/ensure_sysdeps.sh portal

sysdeps:
	bash scripts/ensure_sysdeps.sh test

# lint-imports: the layers contract in pyproject.toml ([tool.importlinter]; README, Design).
lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

check-migrations: install
	DJANGO_DEBUG=true $(BIN)/python manage.py makemigrations --check --dry-run

# Tests run against the real PostgreSQL and Redis (defaults: this machine's local services).
test: install sysdeps
	bash scripts/ensure_services.sh
	$(MAKE) lint check-migrations
	DATABASE_URL=$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/portal} \
	REDIS_URL=$${REDIS_URL:-redis://127.0.0.1:6379/0} \
	DJANGO_SETTINGS_MODULE=portal.settings_test $(BIN)/python -m pytest -q -ra --durations=15
	$(MAKE) test-sqlite

# SQLite lane: the page and API tests again on SQLite, the database of `make run`, so that SQL
# only PostgreSQL accepts fails CI too. No Redis (the cache is local memory, tasks run
# in-process); tests that need the real worker, PostgreSQL or a browser are left out or skip.
# Two processes (pytest-xdist), each with its own in-memory test database.
SQLITE_LANE := tests/quotes tests/vendors tests/rankings tests/benchmarks tests/reports \
	tests/sourcing tests/serving tests/accounts tests/core tests/contracts
SQLITE_JOBS ?= 2
test-sqlite: install
	env -u REDIS_URL DATABASE_URL=sqlite:///$(CURDIR)/var/test-sqlite.sqlite3 \
	DJANGO_SETTINGS_MODULE=portal.settings_test $(BIN)/python -m pytest -q -ra \
	  -n $(SQLITE_JOBS) -m "not e2e and not worker" $(SQLITE_LANE)

# Fast lane (no PostgreSQL, Redis, worker or browser): lint of the domain and its tests, the
# pure-Python domain tests (parsers, models, money, rules) and the layers contract. About 30 s
# on an idle 2-core machine.
test-fast: install
	$(BIN)/ruff check domain tests/domain
	env -u DATABASE_URL -u REDIS_URL $(BIN)/python -m pytest -q -p no:cacheprovider tests/domain tests/test_domain_is_pure.py \
	  tests/test_layers.py

# Performance figures (ratios measured in one run): log parsing vs json.load, ranking vs loading
# quotes, report generation vs the ranking. Uses DATABASE_URL if set, else SQLite.
bench: export DJANGO_DEBUG = true
bench: install
	$(BIN)/python scripts/bench_parse.py
	CELERY_TASK_ALWAYS_EAGER=true $(BIN)/python manage.py migrate --noinput -v0
	CELERY_TASK_ALWAYS_EAGER=true $(BIN)/python scripts/bench_ranking.py
	CELERY_TASK_ALWAYS_EAGER=true $(BIN)/python scripts/bench_reports.py

# Load test (a script, not a test): 5,000 quotes and 500 logs in its own database
# (portal_load), gunicorn, wrk with 20 connections; prints p50 / p95 / error rate per target.
load: install
	psql -U postgres -h 127.0.0.1 -tc "select 1 from pg_database where datname='portal_load'" | grep -q 1 || \
	  psql -U postgres -h 127.0.0.1 -c "create database portal_load"
	command -v wrk >/dev/null || apt-get install -y -q wrk
	$(BIN)/python scripts/load_test.py

# Dependency audit (pip-audit): exit 0 clean, 1 vulnerable, 3 "NOT CHECKED" when the
# vulnerability database cannot be reached.
audit: install
	bash scripts/audit_deps.sh

clean:
	rm -rf $(VENV) db.sqlite3 var staticfiles
