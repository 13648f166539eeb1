# The README's commands. Every target sets up .venv first (fast when nothing changed).
.DEFAULT_GOAL := help
SHELL := /bin/bash

VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# Templates djhtml keeps indented. Not the PDF's: there whitespace between inline boxes is
# measured into the page layout, so reindenting moves text across page breaks.
INDENTED_TEMPLATES = $(shell find templates -name '*.html' -not -path 'templates/characters/pdf/*')
# Extra arguments for pytest, e.g. `make test PYTEST_ARGS="-k healthz -x"`.
PYTEST_ARGS ?=

.PHONY: help install install-test install-lint run test test-fast lint format migrations-check bench serve vendor clean

help:
	@echo "make run               set up, migrate, load demo data, serve http://127.0.0.1:$(PORT)/"
	@echo "make test              set up with the test tools and run the whole suite"
	@echo "make test-fast         unit and integration tests, no browser or slow ones, on every core"
	@echo "make install           set up .venv only"
	@echo "make lint              ruff, mypy (django-stubs; --strict on rules/), import contracts, djhtml, ESLint"
	@echo "make format            ruff format + ruff check --fix"
	@echo "make migrations-check  fail when models and migrations disagree"
	@echo "make bench             run the benchmarks and print their figures"
	@echo "make serve             production: collectstatic and gunicorn on 0.0.0.0:$(PORT)"
	@echo "make vendor            copy the front-end libraries of package-lock.json into static/vendor"

install:
	@scripts/bootstrap

install-test:
	@scripts/bootstrap test

install-lint:
	@scripts/bootstrap lint

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo
	DJANGO_DEBUG=1 $(PY) manage.py runserver 127.0.0.1:$(PORT)

test: install-test
	node --test tests/js/
	$(PY) -m pytest $(PYTEST_ARGS)

# While working: the tiers without Chromium and without the tests marked slow, spread over the
# cores (pytest-xdist), with few hypothesis examples outside CI (tests/conftest.py).
test-fast: install-test
	node --test tests/js/
	$(PY) -m pytest -n auto -m "not browser and not slow" $(PYTEST_ARGS)

lint: install-lint
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/mypy --strict rules
	$(VENV)/bin/lint-imports --no-logo --no-cache
	$(VENV)/bin/djhtml --check $(INDENTED_TEMPLATES)
	node_modules/.bin/eslint .
	@for file in $(VENDORED); do cmp -s node_modules/$$file static/vendor/$${file%%/*}/$$(basename $$file) \
	  || { echo "static/vendor is not what package-lock.json installs ($$file): make vendor"; exit 1; }; done

format: install-lint
	$(VENV)/bin/ruff format .
	$(VENV)/bin/djhtml $(INDENTED_TEMPLATES)
	$(VENV)/bin/ruff check --fix .

migrations-check: install
	$(PY) manage.py makemigrations --check --dry-run

bench: install
	$(PY) -m bench

# Production. Needs DJANGO_SECRET_KEY, DJANGO_ALLOWED_HOSTS and (really) DATABASE_URL in the
# environment; run `manage.py migrate` once per release, not on every app server. Workers:
# gunicorn.conf.py (WEB_CONCURRENCY, else as many as the machine's CPUs and memory take).
serve: export DJANGO_ENV ?= production
serve: install
	$(PY) manage.py collectstatic --noinput
	exec $(VENV)/bin/gunicorn ffa_site.wsgi --config gunicorn.conf.py --bind 0.0.0.0:$(PORT) --access-logfile -

# The front-end libraries the pages load, copied from npm (package-lock.json pins them): the
# site never links a CDN.
VENDORED = idiomorph/dist/idiomorph-ext.min.js idiomorph/LICENSE
vendor: install-lint
	@for file in $(VENDORED); do mkdir -p static/vendor/$${file%%/*}; cp node_modules/$$file static/vendor/$${file%%/*}/; done

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache
