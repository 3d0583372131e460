# Entry points: `make run` (set up everything and serve) and `make test` (the whole suite).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run serve setup test e2e lint format typecheck bench load measure messages reset-local-db clean backup restore

$(STAMP): requirements.lock
	$(PYTHON) -c 'import sys; sys.exit("Python >= 3.11 is required") if sys.version_info < (3, 11) else None'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	touch $(STAMP)

install: $(STAMP)

messages: install
	$(PY) manage.py compile_translations

setup: install messages
	mkdir -p var
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_seed

# Static files collected first, as for `make serve`: hashed names, gzipped, cached (config/storage.py).
run: setup
	$(PY) manage.py collectstatic --noinput -v0
	$(PY) manage.py runserver $(HOST):$(PORT)

# Production settings: DATABASE_URL, SECRET_KEY, ALLOWED_HOSTS, REDIS_URL and CELERY_BROKER_URL
# must be set (README, "Production").
serve: install messages
	DJANGO_SETTINGS_MODULE=config.settings.prod $(PY) manage.py migrate --noinput
	DJANGO_SETTINGS_MODULE=config.settings.prod $(PY) manage.py collectstatic --noinput -v0
	DJANGO_SETTINGS_MODULE=config.settings.prod $(VENV)/bin/gunicorn config.wsgi --bind $(HOST):$(PORT) --workers 2

# Celery for price feeds and admin imports, with the development settings; needed only with
# CELERY_BROKER_URL=redis://... (without it tasks run in the process that starts them).
.PHONY: worker beat
worker: setup
	DJANGO_SETTINGS_MODULE=$${DJANGO_SETTINGS_MODULE:-config.settings.dev} $(VENV)/bin/celery -A config worker --loglevel INFO

beat: setup
	DJANGO_SETTINGS_MODULE=$${DJANGO_SETTINGS_MODULE:-config.settings.dev} $(VENV)/bin/celery -A config beat --loglevel INFO

# The suite on every core (pytest-xdist), then the tests marked serial (those that share Redis or
# a Celery worker, or time a request: tests/conftest.py) in one process with nothing beside them.
# `make test PYTEST_WORKERS=0` runs the first part in one process too. Exit code 5 is "no test
# selected" (PYTEST_ARGS naming tests of one kind only).
PYTEST_WORKERS ?= auto
test: install messages
	@status=0; \
	$(PY) -m pytest -n $(PYTEST_WORKERS) -m "not serial" $(PYTEST_ARGS) || status=$$?; \
	$(PY) -m pytest -m serial $(PYTEST_ARGS) || { code=$$?; [ $$code -eq 5 ] || status=$$code; }; \
	[ $$status -eq 0 ] || [ $$status -eq 5 ]

e2e: install messages
	$(PY) -m pytest -m e2e $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) manage.py check
	$(PY) manage.py makemigrations --check --dry-run

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

typecheck: install
	$(VENV)/bin/mypy advisor api platforms config feeds ops watches wording

bench: install
	for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

# Measured training memory (measure/measure_memory.py): torch in its own venv, never in
# requirements.lock; the pinned CPU wheel, not the multi-GB CUDA build plain `torch` would fetch.
MEASURE_VENV := .venv-measure
measure:
	test -x $(MEASURE_VENV)/bin/python || $(PYTHON) -m venv $(MEASURE_VENV)
	$(MEASURE_VENV)/bin/python -m pip install --quiet -r measure/requirements.txt
	$(MEASURE_VENV)/bin/python measure/measure_memory.py --out measure/data/memory.json

# The load test: gunicorn with production settings on Postgres (LOAD_DATABASE_URL) and Redis.
LOAD_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres
load: install messages
	$(PY) bench/load.py --database-url $(LOAD_DATABASE_URL) $(LOAD_ARGS)

# Backups of the database DATABASE_URL names (SQLite: a consistent copy; Postgres: pg_dump -Fc)
# under var/backups/; `make restore FILE=var/backups/...` puts one back (replacing everything).
backup: install
	$(PY) manage.py db_backup

restore: install
	test -n "$(FILE)" || { echo "usage: make restore FILE=var/backups/<file>"; exit 2; }
	$(PY) manage.py db_restore "$(FILE)" --noinput

reset-local-db:
	rm -f var/db.sqlite3

clean:
	rm -rf $(VENV) var/staticfiles
