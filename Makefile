# The two commands: `make demo` and `make test` (each works on a fresh machine).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: demo test venv system-deps lint docs clean-venv

$(STAMP): pyproject.toml requirements/constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -c requirements/constraints.txt -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

## System packages the tests and the demo use (podman, runc, Chromium, Node for Pi).
system-deps:
	@scripts/system-deps.sh

demo: venv system-deps
	$(VENV)/bin/bananabench demo

test: venv system-deps
	$(VENV)/bin/ruff check evaluators tests benchmarks
	$(PY) -m pytest $(PYTEST_ARGS)

lint: venv
	$(VENV)/bin/ruff check evaluators tests benchmarks

## Regenerate the CLI and schema sections of README.md from the code.
docs: venv
	$(PY) -m evaluators.docs --write

clean-venv:
	rm -rf $(VENV)
