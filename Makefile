# The two commands a newcomer needs: `make run` and `make test`. Both set up .venv themselves.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test test-fast faults worker worker-bots worker-analysis worker-checks bench loadtest loadtest-event soak lint lock clean backup restore runtime axe proxy

# No key is committed and the site refuses to start without one: a run on this machine keeps a
# generated key in var/ (git-ignored). SECRET_KEY set in the environment wins.
SECRET_KEY_FILE := var/secret_key
WITH_KEY = SECRET_KEY="$${SECRET_KEY:-$$(cat $(SECRET_KEY_FILE))}"

# The types ([tool.mypy] in pyproject.toml). django-stubs' plugin imports the settings, which
# refuse to load without a key; the check never signs anything, so any key will do.
MYPY = SECRET_KEY=type-check-only $(BIN)/mypy

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The exact versions and their hashes come from the lock files, which `make lock` compiles from
# the ranges in pyproject.toml: every install (run, test, CI, worker) gets the same packages.
# Reinstall only when the lock changes.
LOCK_RUN := requirements/run.txt
LOCK_TEST := requirements/test.txt

$(VENV)/.installed: $(LOCK_RUN) pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --require-hashes -r $(LOCK_RUN)
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.installed-test: $(LOCK_TEST) pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --require-hashes -r $(LOCK_TEST)
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(VENV)/.installed $@

# Recompiles both lock files from pyproject.toml, keeping every pin that still fits its range;
# `make lock LOCK_ARGS=--upgrade` moves everything to the newest versions allowed. pip-tools lives
# in a venv of its own so it never lands in the locks. The runtime lock starts from the test
# lock's pins, so the packages both need are the same versions.
LOCK_VENV := var/lock-venv
LOCK_FLAGS := --quiet --strip-extras --generate-hashes --allow-unsafe --no-emit-index-url --no-emit-find-links
lock:
	test -x $(LOCK_VENV)/bin/pip-compile || ($(PYTHON) -m venv $(LOCK_VENV) && $(LOCK_VENV)/bin/pip install --quiet "pip-tools>=7.4,<8")
	$(LOCK_VENV)/bin/pip-compile $(LOCK_FLAGS) $(LOCK_ARGS) --extra test --output-file $(LOCK_TEST) pyproject.toml
	cp $(LOCK_TEST) $(LOCK_RUN)
	$(LOCK_VENV)/bin/pip-compile $(LOCK_FLAGS) --output-file $(LOCK_RUN) pyproject.toml

$(SECRET_KEY_FILE):
	@mkdir -p $(dir $@) && chmod 700 $(dir $@)  # var/: the key, backups, logs (owner-only)
	@umask 077 && $(PYTHON) -c "import secrets; print(secrets.token_urlsafe(50))" > $@

# The offline page's Pyodide runtime, pinned and checked (games/offline/runtime.json), into the
# git-ignored static/vendor/pyodide/: a no-op when it is there and verified (docs/offline.md).
runtime:
	$(PYTHON) scripts/fetch_pyodide.py

# axe-core, the accessibility checker the browser tests run in every page, pinned and checked
# (tests/e2e/axe.json), into the git-ignored var/axe/: a no-op when it is there and verified.
axe:
	$(PYTHON) scripts/fetch_axe.py

run: $(VENV)/.installed $(SECRET_KEY_FILE) runtime
	$(WITH_KEY) $(BIN)/python manage.py migrate --noinput
	$(WITH_KEY) $(BIN)/python manage.py collectstatic --noinput --verbosity 0
	@echo "Serving Setback on http://$(HOST):$(PORT)/"
	$(WITH_KEY) $(BIN)/daphne -b $(HOST) -p $(PORT) setback_site.asgi:application

# The site behind nginx, as a deployment serves it (docs/deploy.md): nginx on PROXY_PORT serves
# the static files and passes pages and websockets to Daphne (two with DATABASE_URL and
# REDIS_URL set: run `make worker` beside it). Needs nginx (apt-get install nginx-light).
PROXY_PORT ?= 8080
proxy: $(VENV)/.installed $(SECRET_KEY_FILE) runtime
	$(WITH_KEY) $(BIN)/python manage.py migrate --noinput
	$(WITH_KEY) $(BIN)/python manage.py collectstatic --noinput --verbosity 0
	$(WITH_KEY) $(BIN)/python scripts/serve_behind_proxy.py --host $(HOST) --port $(PROXY_PORT)

# Browser tests run in a pytest process of their own: Playwright's sync API keeps an event loop
# in the main thread, which breaks async tests that come after it in the same process.
# Both run side by side, the rest on two workers (pytest-xdist, a file's tests in one worker,
# each worker with its own test database): the browser tests mostly wait on Chromium and the
# bots' pace, the rest mostly compute (two browser workers beside them left the bots too little
# of the two cores). The browser pass's output is printed when both are done. MARKS narrows
# both runs to a marker expression: CI's second pass, on PostgreSQL, Redis and a Celery worker,
# runs `make test MARKS=real_services` (what depends on those services) the same way, each
# pytest process with a Redis database and a Celery worker of its own (tests/settings.py,
# tests/conftest.py): their match numbers overlap.
ONLY = $(if $(MARKS), and ($(MARKS)))
TEST_OTHERS = $(BIN)/pytest -m "not browser$(ONLY)" $(PYTEST_ARGS)
TEST_BROWSER = DJANGO_ALLOW_ASYNC_UNSAFE=true $(BIN)/pytest -m "browser$(ONLY)" $(PYTEST_ARGS)
SIDE_BY_SIDE = -n 2 --dist loadfile
# BROWSER_LOG: two `make test` runs at once (CI) keep their browser output apart. OTHERS_DONE: a
# file touched when the rest is done and only the browser tests, mostly waiting, still run: CI
# starts its other lanes then (.ci/run).
BROWSER_LOG ?= var/test-browser.log
OTHERS_DONE ?=
test: $(VENV)/.installed-test runtime axe
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(MYPY)
	@mkdir -p var
	@echo "browser tests running beside the rest; their output follows at the end ($(BROWSER_LOG))"
	@$(TEST_BROWSER) > $(BROWSER_LOG) 2>&1 & browser=$$!; \
	  $(TEST_OTHERS) $(SIDE_BY_SIDE); others=$$?; \
	  $(if $(OTHERS_DONE),touch $(OTHERS_DONE);) \
	  wait $$browser; browser=$$?; \
	  echo "== browser tests =="; cat $(BROWSER_LOG); \
	  test $$others -eq 0 && test $$browser -eq 0

# The fault suite (tests/faults): its own PostgreSQL, Redis, two Daphne processes and a worker,
# about twenty tables in play; kills and restarts each service and checks that every table and
# screen goes on by itself. Needs PostgreSQL's binaries and redis-server installed (not running).
faults: $(VENV)/.installed-test
	SETBACK_FAULTS=1 $(BIN)/pytest -p no:django --confcutdir=tests/faults -W ignore::pytest.PytestConfigWarning tests/faults $(PYTEST_ARGS)

# One Celery worker per queue, each a process of its own, so that bots never wait behind
# analysis and analysis never behind offline checks (issue 45): "bots" (WORKER_CONCURRENCY, 2),
# "coach" (advice, reviews, face-up solves, daily par; ANALYSIS_CONCURRENCY, 1, below the bots'
# priority) and "checks" (offline deals coming home, data downloads; CHECK_CONCURRENCY, 1,
# lowest). `make worker-bots`, `make worker-analysis`, `make worker-checks` start one alone
# (more machines, more of one kind: docs/deploy.md).
CELERY_WORKER = $(BIN)/celery -A setback_site worker --loglevel INFO
worker: $(VENV)/.installed $(SECRET_KEY_FILE)
	@test -n "$$REDIS_URL" || (echo "make worker needs REDIS_URL (and DATABASE_URL) set" && exit 1)
	@$(MAKE) --no-print-directory -j3 worker-bots worker-analysis worker-checks

worker-bots: $(VENV)/.installed $(SECRET_KEY_FILE)
	@test -n "$$REDIS_URL" || (echo "make worker-bots needs REDIS_URL (and DATABASE_URL) set" && exit 1)
	$(WITH_KEY) $(CELERY_WORKER) -n bots@%h --queues $${SETBACK_QUEUE_PREFIX}bots --concurrency $${WORKER_CONCURRENCY:-2}

worker-analysis: $(VENV)/.installed $(SECRET_KEY_FILE)
	@test -n "$$REDIS_URL" || (echo "make worker-analysis needs REDIS_URL (and DATABASE_URL) set" && exit 1)
	$(WITH_KEY) nice -n 5 $(CELERY_WORKER) -n analysis@%h --queues $${SETBACK_QUEUE_PREFIX}coach --concurrency $${ANALYSIS_CONCURRENCY:-1}

worker-checks: $(VENV)/.installed $(SECRET_KEY_FILE)
	@test -n "$$REDIS_URL" || (echo "make worker-checks needs REDIS_URL (and DATABASE_URL) set" && exit 1)
	$(WITH_KEY) nice -n 10 $(CELERY_WORKER) -n checks@%h --queues $${SETBACK_QUEUE_PREFIX}checks --concurrency $${CHECK_CONCURRENCY:-1}

bench: $(VENV)/.installed-test $(SECRET_KEY_FILE)
	$(BIN)/python -m games.engine bench
	$(WITH_KEY) $(BIN)/python manage.py migrate --noinput --verbosity 0
	$(WITH_KEY) $(BIN)/python manage.py bench_moves
	$(WITH_KEY) $(BIN)/python manage.py bench_stats
	$(WITH_KEY) $(BIN)/python manage.py bench_coach

# K tables played over HTTP and websockets against a site already running (docs/performance.md).
LOADTEST_URL ?= http://127.0.0.1:$(PORT)
TABLES ?= 10
LOADTEST_SECONDS ?= 60
BOTS ?= easy
THINK ?= 0
comma := ,
# The users are made in the site's database first (the same DATABASE_URL as the site): the site
# allows only five sign-ups a minute from one address.
# It prints the server's CPU per move (every process of the site, the load generator's aside).
# PACED=1: people think 2-6 s a move; CAPACITY=N,STEP,MAX: the most tables the site carries
# (rounds of N, N+STEP ... until move -> update p95 passes 200 ms or a screen stalls).
PACED ?=
CAPACITY ?=
loadtest: $(VENV)/.installed-test $(SECRET_KEY_FILE)
	$(WITH_KEY) $(BIN)/python manage.py loadtest_users $(if $(CAPACITY),$(lastword $(subst $(comma), ,$(CAPACITY))),$(TABLES))
	$(WITH_KEY) $(BIN)/python manage.py loadtest --url $(LOADTEST_URL) --tables $(TABLES) --seconds $(LOADTEST_SECONDS) --bot-level $(BOTS) --think $(THINK) $(if $(PACED),--paced) $(if $(CAPACITY),--capacity $(CAPACITY))

# A Setback night of EVENT_PEOPLE people (200: 50 tables) against a site already running, in its
# database (issue 49): every table's start and each deal's end on every event page, as p50/p95/max,
# and the server's CPU. Half the people play their table, stand-ins the others' turns.
# `EVENT=1 scripts/loadtest-run.sh 200` starts PostgreSQL's and Redis's site for it first.
EVENT_PEOPLE ?= 200
loadtest-event: $(VENV)/.installed-test $(SECRET_KEY_FILE)
	$(WITH_KEY) $(BIN)/python manage.py loadtest_event --url $(LOADTEST_URL) --people $(EVENT_PEOPLE) --bot-level $(BOTS)

# PEOPLE simulated people doing random legal things for SOAK_SECONDS against the site exactly as
# `make run` starts it (which the soak runs itself, on a free port and a throwaway SQLite file):
# fails on an answer of 500 or more, a table stalled over 15 s, or a fault in the server's log.
PEOPLE ?= 20
SOAK_SECONDS ?= 600
soak: $(VENV)/.installed-test $(SECRET_KEY_FILE) runtime
	$(WITH_KEY) $(BIN)/python manage.py soak --people $(PEOPLE) --seconds $(SOAK_SECONDS)

# A consistent, timestamped backup of the site's database (the same DATABASE_URL as the site)
# into var/backups/, and a restore into an empty database (docs/operations.md).
backup: $(VENV)/.installed $(SECRET_KEY_FILE)
	$(WITH_KEY) $(BIN)/python manage.py backup

restore: $(VENV)/.installed $(SECRET_KEY_FILE)
	@test -n "$(FILE)" || (echo "make restore FILE=var/backups/setback-....sqlite3 (or .dump)" && exit 1)
	$(WITH_KEY) $(BIN)/python manage.py restore "$(FILE)"
	$(WITH_KEY) $(BIN)/python manage.py migrate --noinput

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(MYPY)

clean:
	rm -rf $(VENV) staticfiles var .pytest_cache
