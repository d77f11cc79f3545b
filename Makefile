# The two commands a newcomer needs: `make run` and `make test`. Both set up .venv themselves.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test test-fast worker bench loadtest lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the dependencies change.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(VENV)/.installed $@

run: $(VENV)/.installed
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	@echo "Serving Setback on http://$(HOST):$(PORT)/"
	$(BIN)/daphne -b $(HOST) -p $(PORT) setback_site.asgi:application

# Browser tests run in a second pytest process: Playwright's sync API keeps an event loop in
# the main thread, which breaks async tests that come after it in the same process.
test: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/pytest -m "not browser" $(PYTEST_ARGS)
	DJANGO_ALLOW_ASYNC_UNSAFE=true $(BIN)/pytest -m browser $(PYTEST_ARGS)

worker: $(VENV)/.installed
	@test -n "$$REDIS_URL" || (echo "make worker needs REDIS_URL (and DATABASE_URL) set" && exit 1)
	$(BIN)/celery -A setback_site worker --queues $${SETBACK_QUEUE_PREFIX}bots,$${SETBACK_QUEUE_PREFIX}coach --concurrency $${WORKER_CONCURRENCY:-2} --loglevel INFO

bench: $(VENV)/.installed-test
	$(BIN)/python -m games.engine bench
	$(BIN)/python manage.py migrate --noinput --verbosity 0
	$(BIN)/python manage.py bench_moves
	$(BIN)/python manage.py bench_stats
	$(BIN)/python manage.py bench_coach

# K tables played over HTTP and websockets against a site already running (docs/performance.md).
LOADTEST_URL ?= http://127.0.0.1:$(PORT)
TABLES ?= 10
LOADTEST_SECONDS ?= 60
BOTS ?= easy
loadtest: $(VENV)/.installed-test
	$(BIN)/python manage.py loadtest --url $(LOADTEST_URL) --tables $(TABLES) --seconds $(LOADTEST_SECONDS) --bot-level $(BOTS)

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) staticfiles var .pytest_cache
