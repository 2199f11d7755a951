# The two commands: `make dev` runs all three services locally; `make test` runs the whole suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: dev test venv

venv: $(STAMP)

$(STAMP): requirements/dev.lock
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements/dev.lock
	touch $(STAMP)

dev: $(STAMP)
	$(PY) -m local_runtime

test: $(STAMP)
	$(PY) -m pytest -q
