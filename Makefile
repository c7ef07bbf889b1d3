# The two commands: `make demo` and `make test` (each works on a fresh machine); `make check` is the inner loop.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=
# xdist workers (`auto`: one per core; 0 runs in one process). loadgroup keeps each xdist_group on one worker;
# --no-loadscope-reorder keeps the slowest-first order of tests/durations.json (else groups go by their size).
WORKERS ?= auto
PYTEST := $(PY) -m pytest -n $(WORKERS) --dist loadgroup --no-loadscope-reorder --durations=25

# Bytecode is cached even where the environment says not to: without it every xdist worker re-rewrites the
# asserts of every test module (5 CPU s a worker on a 2-core machine) and every CLI process the tests start
# recompiles the project's modules it imports. __pycache__ is ignored by git, the wheel and the task ledger.
unexport PYTHONDONTWRITEBYTECODE

PI_DIR := evaluators/agent/pi
PI_STAMP := $(PI_DIR)/node_modules/.package-lock.json

.PHONY: demo test check setup venv system-deps doctor lint docs clean-venv pi validate-tasks

# uv installs what pip would (the same pins and files: `pip freeze` of the two venvs is equal) in half the time:
# it downloads and unpacks in parallel (`make venv` on a 2-core machine with empty caches: 48 s, pip 101 s). It
# compiles no bytecode ahead: Python caches a module's on its first import (see above), and the tests import
# about a third of the 16,000 modules installed (compiling all of them took 95 CPU s of every fresh install).
# uv reads no pip.conf, so it is given pip's find-links (where a machine keeps the torch CPU wheel) and the
# system's certificates (which pip.conf may name for a TLS-inspecting proxy). The venv starts without pip
# (ensurepip took 6 of a fresh `make check`'s first 10 s): this Python's own pip puts uv in (`--python`), or,
# where it has none (Debian's python3 without python3-pip), the venv's ensurepip gives one. uv then installs
# pip in the venv with the rest: the wheel test and the real model's download use it.
$(STAMP): pyproject.toml requirements/constraints.txt
	$(PYTHON) -m venv --without-pip $(VENV)
	if $(PYTHON) -m pip --python $(PY) --version >/dev/null 2>&1; then pip="$(PYTHON) -m pip --python $(PY)"; \
	else $(PY) -m ensurepip >/dev/null && pip="$(PY) -m pip"; fi && \
	$$pip install --quiet -c requirements/constraints.txt uv && \
	links=$$($$pip config list | sed -n "s/^.*find-links='\(.*\)'$$/\1/p" | tr ' ' '\n' | sort -u | sed 's/^/--find-links=/') && \
	$(VENV)/bin/uv pip install --quiet --python $(PY) --system-certs $$links \
		-c requirements/constraints.txt -e '.[dev]' pip
	touch $(STAMP)

venv: $(STAMP)

## Debian packages the tests and the demo use, each by name (scripts/system-deps.sh says why each is there).
system-deps:
	@scripts/system-deps.sh

## Check every real part the way the code uses it (podman sandbox, Chromium, llama.cpp, Node, Pi, toolchains).
doctor: venv
	$(VENV)/bin/bananabench doctor

## The Pi coding agent for the agent benchmark, pinned by the committed package-lock.json (needs Node >= 20.6),
## and its bundle (pi/bundle.mjs: what containers start, in under half the CPU of Pi's own cli.js).
$(PI_STAMP): $(PI_DIR)/package.json $(PI_DIR)/package-lock.json $(PI_DIR)/bundle.mjs
	@node -e 'const [a, b] = process.versions.node.split(".").map(Number); if (a < 20 || (a === 20 && b < 6)) { console.error("Pi needs Node.js >= 20.6, found " + process.versions.node); process.exit(1) }'
	cd $(PI_DIR) && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error && node bundle.mjs
	touch $(PI_STAMP)

pi: $(PI_STAMP)

## Everything the demo and the tests need: the Debian packages first (`python3 -m venv` needs python3-venv on a
## fresh Debian), then the Python packages and Pi side by side.
setup: system-deps
	$(MAKE) -j2 venv pi

demo: setup
	$(VENV)/bin/bananabench doctor
	$(VENV)/bin/bananabench demo

test: setup
	$(VENV)/bin/bananabench doctor
	$(VENV)/bin/ruff check evaluators tests benchmarks
	$(PYTEST) $(PYTEST_ARGS)

## The inner loop: ruff, the generated docs, every test not marked slow, podman, browser or real.
check: venv
	$(VENV)/bin/ruff check evaluators tests benchmarks
	$(PY) -m evaluators.docs --check
	$(PYTEST) -m "not slow and not podman and not browser and not real" $(PYTEST_ARGS)

lint: venv
	$(VENV)/bin/ruff check evaluators tests benchmarks

## Prove every agent task changed since the ledger (tasks/agent/validated.json) in the podman sandbox, and record it.
validate-tasks: setup
	$(VENV)/bin/bananabench agent lint
	$(VENV)/bin/bananabench agent validate --record

## Regenerate docs/cli.md (from the parsers) and the schema in docs/store.md (from the migrations).
docs: venv
	$(PY) -m evaluators.docs --write

clean-venv:
	rm -rf $(VENV)
