# The two commands: `make demo` and `make test` (each works on a fresh machine).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

PI_DIR := evaluators/agent/pi
PI_STAMP := $(PI_DIR)/node_modules/.package-lock.json

.PHONY: demo test venv system-deps lint docs clean-venv pi validate-tasks

$(STAMP): pyproject.toml requirements/constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -c requirements/constraints.txt -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

## System packages the tests and the demo use (podman, runc, Chromium, Node for Pi).
system-deps:
	@scripts/system-deps.sh

## The Pi coding agent for the agent benchmark, pinned by the committed package-lock.json (needs Node >= 20.6).
$(PI_STAMP): $(PI_DIR)/package.json $(PI_DIR)/package-lock.json
	@node -e 'const [a, b] = process.versions.node.split(".").map(Number); if (a < 20 || (a === 20 && b < 6)) { console.error("Pi needs Node.js >= 20.6, found " + process.versions.node); process.exit(1) }'
	cd $(PI_DIR) && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $(PI_STAMP)

pi: $(PI_STAMP)

demo: venv system-deps pi
	$(VENV)/bin/bananabench demo

test: venv system-deps pi
	$(VENV)/bin/ruff check evaluators tests benchmarks
	$(PY) -m pytest $(PYTEST_ARGS)

lint: venv
	$(VENV)/bin/ruff check evaluators tests benchmarks

## Check every agent task in the podman sandbox: it must fail on its start state and pass with its solution.
validate-tasks: venv system-deps pi
	$(VENV)/bin/bananabench agent lint
	$(VENV)/bin/bananabench agent validate

## Regenerate the CLI and schema sections of README.md from the code.
docs: venv
	$(PY) -m evaluators.docs --write

clean-venv:
	rm -rf $(VENV)
